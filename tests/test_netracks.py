"""Network racks counted from templates (infra.analysis.layout.netracks) against the placement
that names every switch (infra.analysis.layout.placement): the same elevations, on designs that
exercise each rule (rail / Clos, planes, nested and missing groups, ToRs, 2 and 3 tiers)."""

from __future__ import annotations

import pytest

from infra.analysis.layout.placement import network_elevations, network_placement
from infra.models.resolve import load_design

from conftest import DESIGNS

SUPERPOD = (DESIGNS / "dgx_h100_superpod.yaml").read_text()
CORE = ("      - role: core\n        switch: nvidia-quantum-2-qm9700\n"
        "        down: {lower_end: nvidia-mms4x00-ns, switch_end: nvidia-mms4x00-ns}\n")


def _variant(text: str, *subs: tuple[str, str]) -> str:
    for old, new in subs:
        assert old in text, old
        text = text.replace(old, new)
    return text


VARIANTS = {
    "superpod": SUPERPOD,
    "clos": _variant(SUPERPOD, ("kind: rail_optimized", "kind: clos")),
    "two planes": _variant(SUPERPOD, ("group: su_first, su", "group: su_first, su\n    planes: 2")),
    # no group: the whole cluster is one leaf group
    "no group": _variant(SUPERPOD, ("    group: su_first, su\n", "")),
    "three tiers": _variant(SUPERPOD, ("  superpod: 1", "  superpod: 2"),
                            ("build:", CORE + "build:")),
    "three tiers, two planes": _variant(
        SUPERPOD, ("build:", CORE + "build:"), ("  superpod: 1", "  superpod: 3"),
        ("group: su_first, su", "group: su_first, su\n    planes: 2")),
}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_counted_network_racks_match_the_placement(name, tmp_path):
    f = tmp_path / "d.yaml"
    f.write_text(VARIANTS[name])
    rd = load_design(f)
    counted = network_elevations(rd)
    assert counted  # every variant has network racks
    assert counted == network_elevations(rd, network_placement(rd))


@pytest.mark.parametrize("design", ["aws_nvl36x2_cluster", "mi300x_cluster", "gb200_nvl72_576",
                                    "dgx_b200_su", "llama3_h100_16k", "aws_nvl36x2"])
def test_shipped_designs_counted_as_placed(design):
    rd = load_design(DESIGNS / f"{design}.yaml")
    assert network_elevations(rd) == network_elevations(rd, network_placement(rd))


def test_superpod_counts_by_hand():
    from infra.analysis.layout.netracks import network_rack_counts

    rd = load_design(DESIGNS / "dgx_h100_superpod.yaml")
    # su_first (31 DGX) then 3 x su (32 DGX): 8 rails x ceil(32 / 32 leaf down ports) = 8
    # leaves per SU, one leaf rack each (a 42U rack holds (42 - 2) // (1 + 1) = 20 1U
    # switches); 32 leaves x 32 uplinks / 64 spine ports = 16 spines in one network rack
    assert [(t, k, n) for _, t, k, n in network_rack_counts(rd)] == [(0, 8, 1), (0, 8, 3),
                                                                       (1, 16, 1)]


def test_tors_that_do_not_fit_are_an_infeasible_design(tmp_path):
    from infra.analysis.summary import analyze
    from infra.errors import InfeasibleDesignError

    text = (DESIGNS / "aws_nvl36x2_cluster.yaml").read_text()
    f = tmp_path / "d.yaml"
    # 27U of trays + 12 x 1U shelves from the top of a 48U rack leave U1-U9 free; six 2U
    # ToRs from U1 up need U1-U12
    f.write_text(_variant(text, ("cooling: liquid}\n", "cooling: liquid}\n"
                                 "      - {type: nvidia-mgx-33kw-power-shelf, count: 12}\n")))
    need = "has 9U free below its contents, 6 x 2U ToRs need 12U"
    rd = load_design(f)
    with pytest.raises(InfeasibleDesignError, match="rack layout 'nvl36' " + need):
        network_elevations(rd)  # counted
    with pytest.raises(InfeasibleDesignError, match="rack cluster0/ultraserver0/r0 " + need):
        network_placement(rd)
    with pytest.raises(InfeasibleDesignError, match=need):
        analyze(rd).tables()


def test_superpod_elevations_draw_the_network_racks(catalog):
    """Issue 30 item 5: the SuperPOD's rack elevation drawing shows its network racks.
    The RA's 4 SU: 8 QM9700 leaves per SU (4 leaf racks of 8 at the end of each SU's row)
    and 16 spines in one network rack; a 42U rack holds floor((42 - 2) / (1 + 1)) = 20
    1U switches, so one rack each. Each switch stacks from U42 down with a free U
    between, so the leaf rack uses U42, U40, ..., U28 and the spine rack down to U12."""
    from infra.analysis.summary import analyze_file
    from infra.reports.diagrams.elevation import rack_elevation_diagrams

    a = analyze_file(DESIGNS / "dgx_h100_superpod.yaml", catalog)
    (d,) = rack_elevation_diagrams(a)
    src = d.source
    assert "<b>network: leaf (8 x nvidia-quantum-2-qm9700)</b>: 4 rack(s) of generic-42u-air-rack" in src
    assert "<b>network: spine (16 x nvidia-quantum-2-qm9700)</b>: 1 rack(s)" in src
    assert "4 racks; cabling plan names: &lt;SU&gt;/n&lt;k&gt;, network/n&lt;k&gt;" in src
    assert "1 rack; cabling plan names" in src
    assert src.count("network switch (leaf)") == 8 and src.count("network switch (spine)") == 16
    # the compute layouts are still there, named
    assert "<b>dgx4</b>: 31 rack(s)" in src and "superpod0/su2/r7 (31 racks)" in src
    # no fabric, no network rack drawn
    (plain,) = rack_elevation_diagrams(analyze_file(DESIGNS / "gb200_nvl72.yaml", catalog))
    assert "network:" not in plain.source


def test_superpod_network_racks_in_racks_and_power_per_rack(catalog):
    """Issue 30 item 5: the SuperPOD's 5 network racks (4 leaf, 1 spine) are counted
    (``network_racks``) and listed in Power per rack, all air heat; their switch power
    adds up to the fabric analysis's own figure (78.65 kW for 48 QM9700 with their
    switch-end optics), an independent path through the fabric tiers."""
    from infra.analysis.summary import analyze_file

    data = analyze_file(DESIGNS / "dgx_h100_superpod.yaml", catalog).as_dict()
    m, rows = data["metrics"], data["tables"]["power_by_rack"]
    # Racks counts every rack on the floor: 31 dgx4 + 1 dgx3 compute, 4 leaf + 1 spine
    assert (m["compute_racks"], m["network_racks"]) == (32, 5)
    assert m["racks"] == 32 + m["other_racks"] + 5
    net = {r["layout"]: r for r in rows if r["layout"].startswith("network: ")}
    leaf = net["network: leaf (8 x nvidia-quantum-2-qm9700)"]
    spine = net["network: spine (16 x nvidia-quantum-2-qm9700)"]
    assert (leaf["racks"], spine["racks"]) == (4, 1)
    for r in (leaf, spine):
        assert r["rack_type"] == "generic-42u-air-rack"
        assert r["liquid_kw_per_rack"] == 0 and r["air_kw_per_rack"] == r["it_kw_per_rack"]
        assert r["supply_kw_per_rack"] is None  # network-rack PDUs are not modelled
    # the same QM9700 with its optics per switch, within the leaves' 8 ports left for UFM
    assert spine["it_kw_per_rack"] / 16 == pytest.approx(leaf["it_kw_per_rack"] / 8, abs=0.01)
    (fabric,) = data["tables"]["fabric_summary"]
    total = sum(r["it_kw_total"] for r in net.values())
    assert total == pytest.approx(fabric["power_kw"], abs=0.05)
    # the compute rows come first, as before
    assert [r["layout"] for r in rows[:2]] == ["dgx4", "dgx3"]
