"""Fabrics grouped per pod at the spine tier, and over- or under-subscription at any tier.

Golden: Meta's 24,576-GPU RoCE cluster (designs/meta_h100_24k.yaml), from Meta's own
descriptions:
- "Building Meta's GenAI Infrastructure", Meta Engineering, 12 Mar 2024
  (https://engineering.fb.com/2024/03/12/data-center-engineering/building-metas-genai-infrastructure/):
  24,576 H100, RoCE on Arista 7800 with Minipack2 rack switches, 400 Gb/s endpoints.
- "The Llama 3 Herd of Models" (arXiv 2407.21783), section 3.3.1 "Network topology": 16 GPUs
  per rack in two servers under one Minipack2 ToR; 192 racks per pod of 3,072 GPUs with full
  bisection bandwidth; eight pods joined by aggregation switches at 1:7.
- Gangidi et al., "RDMA over Ethernet for Distributed AI Training at Meta Scale" (SIGCOMM
  2024) and Meta's post "A RoCE network for distributed AI training at scale" (5 Aug 2024):
  rack switch (RTSW) uplinks at twice the GPU bandwidth, 1:2 under-subscribed.
The Meta documents were not opened in this session; their figures were read in third-party
copies that cite them: glennklockwood.com "Meta's H100 clusters" (24,576 GPUs, 3,072 nodes,
1,536 racks, 8 pods of 192 racks / 384 nodes, "T0-T1 links are undersubscribed by 2:1",
"T1-T2 links are oversubscribed by 7:1") and a SIGCOMM 2024 summary on besthub.dev (pods of
3,072 H100, 16 x 192). The lead should check the quotes against the primary texts.
The switch counts of the cluster and aggregation tiers are the model's (Meta does not
publish them); the test checks how they are formed, from the radices, by hand.
"""

from __future__ import annotations

import math

import pytest

from conftest import DESIGNS
from infra.analysis.network.fat_tree import FabricSizeError, size_fat_tree, split_ports, tier_ratios
from infra.analysis.summary import analyze_file

META = DESIGNS / "meta_h100_24k.yaml"


@pytest.fixture(scope="module")
def meta():
    return analyze_file(META)


def test_meta_24k_counts_and_pods(meta):
    f = meta.fabrics[0]
    # Meta: 24,576 GPUs = 8 pods x 192 racks x 16 GPUs (2 servers x 8)
    assert f.gpus == 8 * 192 * 16 == 24_576
    assert f.nodes == 8 * 192 * 2 == 3_072
    tor, spine, core = f.tiers
    # one rack switch per rack: 8 x 192 = 1,536
    assert (tor.role, tor.switches) == ("tor", 1_536)
    # spines per pod: the tier is built as 8 blocks, one per pod, none shared
    assert (spine.group, spine.blocks) == ("pod", 8)
    assert spine.switches % 8 == 0
    assert (core.group, core.blocks) == (None, 1)


def test_meta_rack_switch_is_1_to_2(meta):
    f = meta.fabrics[0]
    tor = f.tiers[0]
    assert tor.oversubscription == 0.5
    # 16 GPU links down per rack switch (2 servers x 8 NICs); 1:2 -> 32 x 400G up
    down, up = 16, 32
    assert tor.down_links == 1_536 * down
    assert tor.ports_used == 1_536 * (down + up)
    # uplinks of the rack switches = links into the cluster switches
    assert f.tiers[1].down_links == 1_536 * up == 49_152


def test_meta_spines_sized_per_pod(meta):
    f = meta.fabrics[0]
    # a 576-port cluster switch at 7:1 has floor(576 x 7 / 8) = 504 down, 72 up
    assert split_ports(576, 7, False) == (504, 72)
    # one pod's uplinks: 192 racks x 32 = 6,144 -> ceil(6,144 / 504) = 13 per pod, 104 in all
    per_pod = math.ceil(192 * 32 / 504)
    assert per_pod == 13
    assert f.tiers[1].switches == 8 * per_pod == 104
    # sized over the whole fabric the spines would straddle pods: ceil(49,152 / 504) = 98
    assert math.ceil(49_152 / 504) == 98 != f.tiers[1].switches
    # aggregation: 104 x 72 uplinks = 7,488 links into 576-port switches -> 13
    assert f.tiers[2].down_links == 104 * 72 == 7_488
    assert f.tiers[2].switches == math.ceil(7_488 / 576) == 13


def test_meta_bandwidth_per_gpu(meta):
    per = meta.fabrics[0].per_gpu_gbit_s
    # inside a pod: non-blocking, and the 1:2 rack switch adds headroom, not rate (400 Gb/s)
    assert per["injection"] == 400
    assert per["above_tor"] == 400
    # across pods: 400 x 2 (1:2 below) / 7 = 114.29 Gb/s
    assert per["above_spine"] == pytest.approx(400 * 2 / 7)
    # bisection at the aggregation tier: 7,488 links x 400 Gb/s / 2 = 1,497.6 Tb/s
    assert meta.fabrics[0].bisection_tbit_s == pytest.approx(7_488 * 400 / 2 / 1000)


def test_tier_ratios():
    assert tier_ratios([0.5, 7]) == [1.0, 3.5]
    assert tier_ratios([2, 0.5]) == [2.0, 2.0]  # headroom above does not undo a 2:1 below
    assert tier_ratios([1, 1]) == [1.0, 1.0]


def test_under_subscribed_leaf_split():
    # radix 64 at 1:2: floor(64 x 0.5 / 1.5) = 21 down, 43 up
    assert split_ports(64, 0.5, False) == (21, 43)
    t = size_fat_tree([(32, 1)], 8, "rail_optimized", [64, 64], [0.5, 1], ["leaf", "spine"])
    # 8 rails x ceil(32 / 21) = 16 leaves; 16 x 43 = 688 uplinks need >= ceil(688 / 64) = 11
    # spines; the smallest divisor of 43 that is >= 11 is 43
    assert (t.tiers[0].switches, t.tiers[1].down_links, t.tiers[1].switches) == (16, 688, 43)


def test_grouped_tier_must_split_evenly():
    # 3 groups x ceil(10 / 8) = 6 leaves cannot split over 4 spine blocks
    with pytest.raises(FabricSizeError, match="6 leaf switches do not split evenly"):
        size_fat_tree([(10, 3)], 1, "clos", [16, 16, 16], [1, 1, 1], ["leaf", "spine", "core"],
                      instances=[1, 4, 1])


META_TEXT = META.read_text()


@pytest.mark.parametrize("old,new,fragments", [
    ("oversubscription: 0.5 ", "oversubscription: 0.05 ",
     ["fabrics.backend.tiers[0].oversubscription", "0.0625"]),
    ("group: pod ", "group: rack ",
     ["fabrics.backend.tiers[1].group", "'rack' is not a pod", "pods: ['pod']"]),
    ("      - role: core\n        switch: arista-7816r3\n",
     "      - role: core\n        switch: arista-7816r3\n        group: pod\n",
     ["top tier (core) joins the whole fabric"]),
])
def test_invalid_groups_exit_2(tmp_path, run_cli, old, new, fragments):
    text = META_TEXT.replace(old, new)
    assert text != META_TEXT
    p = tmp_path / "m.yaml"
    p.write_text(text)
    res = run_cli("validate", str(p))
    assert res.exit_code == 2, res.output
    for fr in fragments:
        assert fr in res.output, (fr, res.output)


def test_meta_leaves_reach_only_their_pods_spines(meta):
    """Wiring (cabling, Slurm tree): every rack switch's 32 uplinks go round-robin over its
    own pod's 13 cluster switches; no cluster switch serves two pods."""
    from collections import Counter, defaultdict

    from infra.analysis.layout.identity import node_identities
    from infra.analysis.network.attach import spine_of
    from infra.analysis.network.schedtopo import tree_topology

    f = meta.fabrics[0]
    ids = node_identities(meta.rd)
    leaves = list(dict.fromkeys(leaf for n in ids for name, ls in n.leaves if name == "backend"
                                for leaf in ls))
    assert len(leaves) == 1_536 and leaves[192] == "pod1/r0.tor0"
    pods, per_spine, per_leaf = defaultdict(set), Counter(), defaultdict(set)
    for leaf, _, spine, _ in spine_of(f, leaves):
        pods[spine].add(leaf.split("/")[0])
        per_spine[spine] += 1
        per_leaf[leaf].add(spine)
    assert len(pods) == 104 and all(len(p) == 1 for p in pods.values())
    # 6,144 uplinks per pod over 13 spines: 472 or 473 each, within the 504 down ports
    assert set(per_spine.values()) == {472, 473}
    assert all(len(s) == 13 for s in per_leaf.values())  # each leaf reaches its whole pod
    # the Slurm tree: one logical spine switch per pod, 192 racks under each
    tree = tree_topology(meta.rd, ids)
    spines = [s for s in tree.switches if s.name.startswith("spine")]
    assert [(len(s.switches), len(s.members)) for s in spines] == [(192, 13)] * 8


def test_meta_spine_failure_absorbed_by_the_1_to_2_headroom(meta):
    rows = {b.component_kind: b for b in meta.blast}
    spine, core = rows["spine_switch"], rows["core_switch"]
    # a cluster switch serves one pod (192 racks, 13 switches): within the pod the rack
    # switches keep 800 x 12/13 = 738 Gb/s of uplink per GPU-worth of 400 Gb/s, so no GPU
    # slows down there; but the switch also carried 1/13 of the pod's 7:1 uplinks to the
    # aggregation tier, so the pod's 3,072 GPUs keep 12/13 of their 114 Gb/s across pods
    assert (spine.gpus_degraded, spine.degraded_bandwidth_fraction) == (
        3_072, pytest.approx(12 / 13, abs=1e-4))
    assert "192 leaves" in spine.note and "absorbs it within the block" in spine.note
    # an aggregation switch: the 114 Gb/s across pods drops to 12/13 for every GPU
    assert (core.gpus_degraded, core.degraded_bandwidth_fraction) == (24_576, pytest.approx(12 / 13, abs=1e-4))
