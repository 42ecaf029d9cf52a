"""Wiring of three-tier fabrics: a Clos, not a tree (every leaf reaches as many spines as
it has uplinks, every spine as many cores, every pod every core)."""

from collections import defaultdict

import pytest

from conftest import DESIGNS
from infra.analysis.network.attach import core_of, spine_of
from infra.analysis.network.fabric import design_fabrics
from infra.models.resolve import load_design
from infra.synthesis.families import with_count


def _fabric(data=None, path=None):
    from infra.models.resolve import design_from_data

    if path is not None:
        return design_fabrics(load_design(path))[0]
    rd = design_from_data(data, DESIGNS / "dgx_b200_su.yaml", load_design(
        DESIGNS / "dgx_b200_su.yaml").catalog)
    return design_fabrics(rd)[0]


def _wiring(f):
    leaves = [f"leaf{i}" for i in range(f.tree.tiers[0].switches)]
    up = defaultdict(set)
    per_spine = defaultdict(int)
    for leaf, _, spine, _ in spine_of(f, leaves):
        up[leaf].add(spine)
        per_spine[spine] += 1
    core = defaultdict(set)
    per_core = defaultdict(int)
    for spine, _, c, _ in core_of(f):
        core[spine].add(c)
        per_core[c] += 1
    return up, per_spine, core, per_core


def test_sixteen_b200_sus_are_a_k_ary_fat_tree():
    """16 SU of DGX B200 (the RA's 128 leaves, 128 spines, 64 cores; QM9700 at 32 down /
    32 up): each leaf's 32 uplinks reach 32 spines (pods of 32 leaves over 32 spines), each
    spine's 32 uplinks 32 cores; every spine and core uses at most its 64 ports, and every
    pod of spines reaches all 64 cores (was: each leaf to one spine, each spine to one
    core)."""
    from infra.models.yamlio import read_yaml
    from infra.errors import InfraError

    data = with_count(read_yaml(DESIGNS / "dgx_b200_su.yaml", InfraError), "su", 16, 3)
    f = _fabric(data)
    t = f.tree.tiers
    assert (t[0].switches, t[1].switches, t[2].switches) == (128, 128, 64)
    up, per_spine, core, per_core = _wiring(f)
    assert {len(s) for s in up.values()} == {32}
    assert {len(c) for c in core.values()} == {32}
    assert max(per_spine.values()) <= 32 and max(per_core.values()) <= 64
    pods = defaultdict(set)
    for s, cs in core.items():
        pods[int(s.removeprefix("spine")) // 32] |= cs
    assert all(len(cs) == 64 for cs in pods.values()) and len(pods) == 4


def test_meta_pods_each_reach_every_core():
    """Meta 24k (spines per pod): every pod's 13 cluster switches reach all 13 aggregation
    switches, so pods have an up-down path between them (was: pod 0 only cores 0-1)."""
    f = _fabric(path=DESIGNS / "meta_h100_24k.yaml")
    _, _, core, _ = _wiring(f)
    n_cores = f.tree.tiers[2].switches
    per_block = f.tree.tiers[1].switches // f.blocks[1]
    pods = defaultdict(set)
    for s, cs in core.items():
        pods[int(s.rsplit("spine", 1)[1]) // per_block] |= cs
    assert len(pods) == 8 and all(len(cs) == n_cores for cs in pods.values())
