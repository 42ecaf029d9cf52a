"""Rack elevation faces (issue 30 item 5): an in-rack CDU of unpublished height is drawn in
the free U below the units, not as a full-height strip beside units that read 'free'."""

from __future__ import annotations

from conftest import DESIGNS
from infra.analysis.layout.rack_faces import rack_faces
from infra.models.resolve import load_design


def test_nvl72_cdu_drawn_in_the_free_u(nvl72):
    # GB200 NVL72: 2 x SN2201 + 8 x 1U power shelves + 18 x 1U trays + 9 x 1U switch trays
    # = 37U stacked from U48 down to U12; U11..U1 free. The Supermicro CDU's height is not
    # published (catalog u_height 0), so it spans U11..U1 at the rear.
    (f,) = rack_faces(nvl72.rd)
    (cdu,) = [r for r in f.rear if r.kind == "cooling_unit" and r.slug]
    assert (cdu.top_u, cdu.bottom_u, cdu.slug) == (11, 1, "supermicro-gb300-in-rack-cdu")
    assert "height unpublished" in cdu.label
    from infra.reports.diagrams.elevation import rack_elevation_diagrams

    (d,) = rack_elevation_diagrams(nvl72)
    assert d.source.count("free, or the in-rack CDU (its height is unpublished)") == 11
    assert 'rowspan="11"' in d.source
    assert "supe<br/>rmicro" not in d.source and "supermicro-<br/>" in d.source  # at hyphens


def test_pdus_stay_full_height_rear_strips():
    (f, _) = rack_faces(load_design(DESIGNS / "dgx_h100_superpod.yaml"))
    pdus = [r for r in f.rear if r.kind == "pdu"]
    assert len(pdus) == 3 and all((r.top_u, r.bottom_u) == (42, 1) for r in pdus)
