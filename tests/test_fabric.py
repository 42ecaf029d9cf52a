"""Fabric sizing against NVIDIA's published DGX SuperPOD tables and fat-tree limits."""

from __future__ import annotations

from collections import Counter

import pytest

from conftest import DESIGNS
from infra.analysis.network.fat_tree import FabricSizeError, max_endpoints, size_fat_tree
from infra.analysis.summary import analyze_file

RAIL2 = (["leaf", "spine"], [1, 1])
RAIL3 = (["leaf", "spine", "core"], [1, 1, 1])


def counts(tree):
    return [(t.switches, t.down_links) for t in tree.tiers]


# NVIDIA DGX SuperPOD B200 RA, "Larger DGX SuperPOD component counts"
# https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200/latest/dgx-superpod-architecture.html
# (32 DGX B200 per SU,
# 8 x CX-7 NDR 400G per node, QM9700 radix 64):
# SU | leaf | spine | core | node-leaf | leaf-spine | spine-core cables
B200_TABLE = [
    (2, 16, 8, None, 512, 512, None),
    (4, 32, 16, None, 1024, 1024, None),
    (8, 64, 32, None, 2048, 2048, None),
    (16, 128, 128, 64, 4096, 4096, 4096),
    (32, 256, 256, 128, 8192, 8192, 8192),
    (64, 512, 512, 256, 16384, 16384, 16384),
]


@pytest.mark.parametrize("su,leaf,spine,core,c1,c2,c3", B200_TABLE)
def test_b200_superpod_table(su, leaf, spine, core, c1, c2, c3):
    roles, o = RAIL3 if core else RAIL2
    t = size_fat_tree([(32, su)], 8, "rail_optimized", [64] * len(roles), o, roles)
    expect = [(leaf, c1), (spine, c2)] + ([(core, c3)] if core else [])
    assert counts(t) == expect


# DGX SuperPOD B300 (XDR) RA, Table 3
# https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300-xdr/latest/dgx-superpod-architecture.html
# 72 DGX B300 per SU, 8 x 800G per node on
# Quantum-X800 Q3400 (radix 144). 18 spines at 4 SU: 32 leaves x 72 uplinks = 2,304
# need 16 spines of 144 ports, but 72 uplinks only spread evenly over a divisor of 72: 18.
B300_XDR_TABLE = [(1, 8, 4, 576), (2, 16, 8, 1152), (4, 32, 18, 2304), (8, 64, 36, 4608),
                  (18, 144, 72, 10368)]


@pytest.mark.parametrize("su,leaf,spine,cables", B300_XDR_TABLE)
def test_b300_xdr_superpod_table(su, leaf, spine, cables):
    t = size_fat_tree([(72, su)], 8, "rail_optimized", [144, 144], [1, 1], ["leaf", "spine"])
    assert counts(t) == [(leaf, cables), (spine, cables)]


def test_h100_superpod_spines_4_8_16_16():
    # DGX SuperPOD H100 RA: first SU 31 DGX (+ UFM), then 32 per SU; 8 leaves per SU;
    # spines 4 / 8 / 16 / 16 for 1 / 2 / 3 / 4 SU (hardware-facts §5c)
    spines = [size_fat_tree([(31, 1), (32, su - 1)], 8, "rail_optimized", [64, 64], [1, 1],
                            ["leaf", "spine"]).tiers[1].switches for su in (1, 2, 3, 4)]
    assert spines == [4, 8, 16, 16]


def test_fat_tree_limits():
    # non-blocking trees of radix k reach k^2/2 (2 tiers) and k^3/4 (3 tiers) endpoints
    for k in (32, 64, 128):
        assert max_endpoints([k, k], [1, 1]) == k * k // 2
        assert max_endpoints([k, k, k], [1, 1, 1]) == k ** 3 // 4
    assert max_endpoints([64], [1]) == 64
    # 2:1 oversubscribed leaves: d = floor(64 x 2/3) = 42 down ports -> 42 x 64
    assert max_endpoints([64, 64], [2, 1]) == 42 * 64


def test_two_tiers_too_small_names_the_numbers():
    # 16 SU of B200 = 4,096 ports > 2,048 reachable with 2 tiers of radix 64
    with pytest.raises(FabricSizeError, match=r"reach at most 2,048 .* needs 4,096.*add a tier"):
        size_fat_tree([(32, 16)], 8, "rail_optimized", [64, 64], [1, 1], ["leaf", "spine"])


def test_superpod_design_counts():
    a = analyze_file(DESIGNS / "dgx_h100_superpod.yaml")
    m = a.metrics()
    assert (m["gpus"], m["fabric_tiers"], m["leaf_switches"], m["spine_switches"],
            m["core_switches"]) == (1016, 2, 32, 16, 0)
    leaf, spine = a.fabrics[0].tiers
    assert leaf.down_links == 127 * 8 == 1016  # node -> leaf cables
    assert spine.down_links == 32 * 32 == 1024  # leaf -> spine cables
    # twin-port 800G OSFP carries two 400G links at each end:
    # 1016/2 (DGX cages) + 1016/2 (leaf) + 1024/2 (leaf up) + 1024/2 (spine) = 2,040
    assert m["transceivers"] == 508 + 508 + 512 + 512
    # power: the 508 DGX-side optics are the servers' own (inside the 10.2 kW each), the
    # other 2,040 - 508 = 1,532 x 17 W = 26.044 kW are fabric IT load outside the racks;
    # plus 48 QM9700 (32 leaves + 16 spines) x 1,096 W [estimate] = 52.608 kW -> 78.652 kW
    assert m["fabric_power_kw"] == pytest.approx((2040 - 508) * 17 / 1000 + 48 * 1.096)
    # ... and it is in the design's IT power: 127 x 10.2 kW + 78.652 kW
    assert m["it_power_kw"] == pytest.approx(127 * 10.2 + 78.652)
    assert not a.power.unknown  # every part has a figure (the QM9700's is an estimate)
    assert a.fabrics[0].unknown_power == ()
    # capex: 127 DGX H100 systems x $270,000 (their H100s included) + 48 QM9700 x $36,000;
    # the optics and fibres are unpriced, so the capex is a lower bound
    assert m["capex_priced_usd"] == 127 * 270_000 + 48 * 36_000
    assert "nvidia-mms4x00-ns" in a.capex.unpriced and "fibre-link" in a.capex.unpriced
    # bisection: 1,016 x 400 Gb/s / 2 = 203.2 Tb/s
    assert m["scale_out_bisection_tbit_s"] == pytest.approx(203.2)
    bom = {r.slug: r.count for r in a.bom}
    assert bom["nvidia-quantum-2-qm9700"] == 48 and bom["nvidia-mms4x00-ns"] == 2040


def test_superpod_cabling_plan():
    a = analyze_file(DESIGNS / "dgx_h100_superpod.yaml")
    rows = a.tables()["cabling"]
    assert len(rows) == 1016 + 1024
    down = [r for r in rows if r["tier"] == "leaf"]
    assert len({(r["a_device"], r["a_port"]) for r in down}) == 1016  # each port once
    per_leaf = Counter(r["b_device"] for r in down)
    assert len(per_leaf) == 32 and max(per_leaf.values()) == 32
    # rail-optimized: NIC k of every node goes to a rail-k leaf
    assert all(f"rail{int(r['a_port'][3])}." in r["b_device"] for r in down)
    spine_ports = Counter(r["b_device"] for r in rows if r["tier"] == "spine")
    assert set(spine_ports.values()) == {64}  # 1,024 uplinks over 16 spines, all ports
    # both ends placed (rack and U) on every one of the 2,040 fabric links
    assert all(r["a_rack"] and r["a_u"] and r["b_rack"] and r["b_u"] for r in rows)
    assert len({r["cable_id"] for r in rows}) == 2040


def test_aws_cluster_clos_with_in_rack_tors():
    a = analyze_file(DESIGNS / "aws_nvl36x2_cluster.yaml")
    m = a.metrics()
    # 16 racks x 6 ToRs = 96; each ToR: 72 rack ports / 6 = 12 down, 12 up (1:1)
    # 96 x 12 = 1,152 uplinks need ceil(1152 / 128) = 9 spines; 12 is the smallest divisor
    # of 12 >= 9 so every ToR reaches every spine equally
    assert (m["leaf_switches"], m["spine_switches"]) == (96, 12)
    tor = next(b for b in a.blast if b.component_kind == "tor_switch")
    # 12 Nitro ports per ToR, one per GPU (the GPU's other card is on another ToR): keep 1/2
    assert (tor.gpus_lost, tor.gpus_degraded, tor.degraded_bandwidth_fraction) == (0, 12, 0.5)
    rows = a.tables()["cabling"]
    gpu0 = [r["b_device"] for r in rows if r["a_device"] == "r001n01"
            and r["a_port"] in ("nic0/p0", "nic1/p0")]
    assert len(set(gpu0)) == 2  # nic0 and nic1 (both GPU 0's) on different ToRs


def test_leaf_failure_in_rail_optimized_su():
    a = analyze_file(DESIGNS / "dgx_h100_su.yaml")
    leaf = next(b for b in a.blast if b.component_kind == "leaf_switch")
    # one rail leaf serves rail k of all 32 DGX: 32 GPUs lose their only NIC port
    assert (leaf.gpus_lost, leaf.gpus_degraded, leaf.degraded_bandwidth_fraction) == (0, 32, 0.0)
    spine = next(b for b in a.blast if b.component_kind == "spine_switch")
    assert spine.degraded_bandwidth_fraction == 0.75  # 3 of 4 spines left


BAD_FABRIC = (DESIGNS / "dgx_h100_su.yaml").read_text()


@pytest.mark.parametrize("old,new,fragments", [
    ("su: 1\n", "su: 16\n",
     ["fabrics.compute.tiers", "2 tier(s) of radix [64, 64] reach at most 2,048",
      "needs 4,096", "add a tier"]),
    ("        switch: nvidia-quantum-2-qm9700\n        down: {node_end",
     "        switch: nvidia-quantum-x800-q3400\n        down: {node_end",
     ["fabrics.compute.tiers[0].port_gbit_s", "NIC ports run at 400 Gb/s", "tier 1 (leaf)",
      "800 Gb/s"]),
    ("      - role: spine\n        switch: nvidia-quantum-2-qm9700\n"
     "        down: {lower_end: nvidia-mms4x00-ns, switch_end: nvidia-mms4x00-ns}\n"
     "build:\n  su: 1", "build:\n  su: 2",
     ["a single tier cannot join 2 groups", "add a spine tier"]),
])
def test_invalid_fabrics_exit_2(tmp_path, run_cli, old, new, fragments):
    text = BAD_FABRIC.replace(old, new)
    assert text != BAD_FABRIC
    p = tmp_path / "f.yaml"
    p.write_text(text)
    res = run_cli("validate", str(p))
    assert res.exit_code == 2, res.output
    for f in fragments:
        assert f in res.output, (f, res.output)
