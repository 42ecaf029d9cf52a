"""Rack weights (issue 30 item 5: "rack weight where the catalog has it"): the sum of the
published weights of a rack's enclosure and units, a lower bound naming what is
unpublished, the vendor's loaded weight beside it, and a finding over the enclosure's
static load rating."""

from __future__ import annotations

import pytest

from conftest import ROOT
from infra.analysis.layout.elevation import rack_elevations
from infra.analysis.layout.placement import network_elevations
from infra.analysis.layout.weight import hall_weight, weight_findings
from infra.analysis.power.it_power import design_power
from infra.models.resolve import load_design


def _hall(name):
    rd = load_design(ROOT / "designs" / f"{name}.yaml")
    return rd, hall_weight(rd, rack_elevations(rd, design_power(rd)) + list(network_elevations(rd)))


def test_dgx_h100_su_racks_by_hand():
    """dgx_h100_su: 8 racks of 4 DGX H100 in a 42U enclosure, and two network racks.
    Compute rack: 134.09 kg enclosure (APC AR3300, NetBox copy [3P]) + 4 x 130.45 kg (DGX
    H100 user guide, max [V]) = 655.89 kg, a lower bound: the rack PDUs (apc-ap8886) have
    no weight in the catalog, so no planning figure is claimed. Leaf rack: 134.09 + 8 QM9700
    x 14.8 kg = 252.49 kg, every part published. Total: 8 x 655.89 + 252.49 + (134.09 +
    4 x 14.8 = 193.29) = 5,692.9 kg."""
    _, w = _hall("dgx_h100_su")
    by = {r.layout: r for r in w.racks}
    dgx = by["dgx4"]
    assert dgx.kg == pytest.approx(134.09 + 4 * 130.45)
    assert dgx.missing == ("apc-ap8886",) and dgx.planning_kg is None
    assert "apc-ap8886 unpublished" in dgx.basis
    leaf = next(r for r in w.racks if r.layout.startswith("network: leaf"))
    assert leaf.complete and leaf.planning_kg == pytest.approx(134.09 + 8 * 14.8)
    assert w.total_kg == pytest.approx(8 * 655.89 + 252.49 + 193.29)
    assert not w.complete


def test_published_loaded_weight_is_the_planning_figure_when_parts_are_unpublished():
    """GB200 NVL72: the compute, switch and power trays have no published weight; the
    rack's published loaded weight, 1.36 t (3,000 lb, a third-party relay of NVIDIA's GTC
    2024 figure), is the planning figure, the parts' sum shown as a bound beside it."""
    _, w = _hall("gb200_nvl72_576")
    nvl = next(r for r in w.racks if r.layout == "nvl72")
    assert nvl.published_kg == 1360 and nvl.planning_kg == 1360
    assert "nvidia-gb200-compute-tray" in nvl.missing
    assert nvl.basis.startswith("the rack's published loaded weight (1,360 kg [3P])")
    assert w.heaviest.layout == "nvl72"


def test_over_the_enclosure_rating_is_a_finding_with_its_line():
    """The same DGX rack in an enclosure rated for 500 kg: its units weigh 4 x 130.45 =
    521.8 kg > 500 kg, a rack_load finding at the layout's line; within 1,701 kg none."""
    rd, w = _hall("dgx_h100_su")
    assert weight_findings(rd, w) == []
    rack = rd.part("generic-42u-air-rack")
    rd.parts["generic-42u-air-rack"] = rack.model_copy(update={"static_load_kg": 500.0})
    w = hall_weight(rd, rack_elevations(rd, design_power(rd)))
    (f,) = [f for f in weight_findings(rd, w) if "dgx4" in f.message]
    assert f.kind == "rack_load" and "521.8 kg" in f.message and "500 kg" in f.message
    assert f.path == "racks.dgx4" and f.line is not None


def test_decision_summary_heaviest_rack():
    """The decision summary's heaviest rack is a figure only when every rack layout has
    one: dgx_h100_superpod's DGX racks lack their PDUs' weight, so the heaviest is unknown,
    at least 655.89 kg (134.09 + 4 x 130.45, the DGX rack's known parts), naming the two
    layouts of unknown weight; hgx_h100_liquid_512's fully weighed network rack (322.09
    kg) is a bound, never named the heaviest while its liquid-cooled HGX racks are
    unweighed; gb200_nvl72 (one NVL72 rack) is 1,360 kg, the published loaded weight,
    tagged third-party; aws_nvl36x2 publishes no weight at all: unknown, never 0 kg."""
    from infra.analysis.summary import analyze_file
    from infra.reports.decision import decision_summary

    def fig(name):
        d = decision_summary(analyze_file(ROOT / "designs" / f"{name}.yaml").as_dict())
        return next(f for f in d["figures"] if f["key"] == "heaviest_rack_kg")

    f = fig("dgx_h100_superpod")
    assert f["value"] is None and f["unit"] == "kg"
    assert f["note"] == "at least 655.89 kg; 2 rack layouts without every part's weight (dgx4, dgx3)"
    f = fig("hgx_h100_liquid_512")
    assert f["value"] is None and f["note"].startswith("at least 322.09 kg; 1 rack layout")
    assert "network" not in f["note"]
    f = fig("gb200_nvl72")
    assert f["value"] == 1360 and "published loaded weight [3P]" in f["note"]
    f = fig("aws_nvl36x2")
    assert f["value"] is None and f["note"] == "no weight published for these racks' parts"


def test_rack_load_finding_exits_1_with_every_figure(tmp_path, run_cli):
    """A rack over its enclosure's static load rating is a design-rule finding: exit 1,
    the layout's YAML path and line, every figure still printed. A 42U enclosure copy rated
    for 500 kg holding 4 DGX H100 (4 x 130.45 = 521.8 kg of units)."""
    import yaml

    from infra.models.catalog import DEFAULT_CATALOG_DIR

    rack = yaml.safe_load((DEFAULT_CATALOG_DIR / "racks" / "generic-42u-air-rack.yaml").read_text())
    rack.update(slug="acme-light-rack", static_load_kg=500)
    (tmp_path / "cat" / "racks").mkdir(parents=True)
    (tmp_path / "cat" / "racks" / "acme-light-rack.yaml").write_text(yaml.safe_dump(rack))
    design = tmp_path / "d.yaml"
    design.write_text("name: light\nracks:\n  r:\n    type: acme-light-rack\n"
                      "    contents: [{type: nvidia-dgx-h100, count: 4}]\nbuild: {r: 1}\n")
    res = run_cli("design", str(design), "--catalog", str(DEFAULT_CATALOG_DIR),
                  "--catalog", str(tmp_path / "cat"))
    assert res.exit_code == 1, res.output
    assert "d.yaml:3: racks.r: rack layout 'r': its units weigh 521.8 kg" in res.output
    assert "static load rating of 500 kg" in res.output and "IT power" in res.output
