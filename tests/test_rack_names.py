"""Rack instance names counted from the pod tree (infra.analysis.layout.rack_names), and
report cost that does not grow with the rack count (issue 34)."""

from __future__ import annotations

import random
import sys

import pytest

from conftest import DESIGNS
from infra.analysis.layout import identity
from infra.analysis.layout.identity import rack_instances
from infra.analysis.layout.rack_names import rack_names
from infra.models.resolve import design_from_data, load_design

NVL72 = {"type": "nvidia-gb200-nvl72-rack", "contents": [
    {"type": "nvidia-mgx-33kw-power-shelf", "count": 8},
    {"type": "nvidia-gb200-compute-tray", "count": 18},
    {"type": "nvidia-nvlink5-switch-tray", "count": 9, "cooling": "liquid"},
    {"type": "supermicro-gb300-in-rack-cdu", "count": 1}]}
DGX = {"type": "generic-42u-air-rack", "contents": [{"type": "nvidia-dgx-h100", "count": 4}]}


def listed(rd, first: int = 8) -> dict:
    """The same figures from the one naming rule that lists every rack."""
    got: dict[str, list[str]] = {}
    for r in rack_instances(rd):
        got.setdefault(r.layout, []).append(r.path)
    return {k: (len(v), tuple(v[:first]), v[-1]) for k, v in got.items()}


def counted(rd, first: int = 8) -> dict:
    return {k: (n.count, n.first, n.last) for k, n in rack_names(rd, first).items()}


@pytest.mark.parametrize("path", sorted(DESIGNS.glob("*.yaml")), ids=lambda p: p.stem)
def test_shipped_designs_name_racks_as_rack_instances(path):
    rd = load_design(path)
    assert counted(rd) == listed(rd)


def random_design(seed: int) -> dict:
    """A pod DAG of 1-6 levels mixing layouts, pods holding layouts under ``pods:``,
    shared sub-pods and racks built directly beside pods."""
    rng = random.Random(seed)
    layouts = {"a": DGX, "b": DGX, "c": NVL72}
    levels = rng.randint(1, 6)
    pods: dict[str, dict] = {}
    for lv in range(levels - 1, -1, -1):
        for k in range(rng.randint(1, 3)):
            name = f"p{lv}_{k}"
            deeper = [p for p in pods if p.startswith(f"p{lv + 1}_")]
            spec: dict = {}
            subs = {s: rng.randint(1, 3) for s in rng.sample(deeper, rng.randint(0, len(deeper)))}
            if rng.random() < 0.3:
                subs[rng.choice("abc")] = rng.randint(1, 2)  # a layout listed as a sub-pod
            racks = {r: rng.randint(1, 3) for r in rng.sample("abc", rng.randint(0, 3))}
            if not subs and not racks:
                racks = {rng.choice("abc"): 1}
            if subs:
                spec["pods"] = subs
            if racks:
                spec["racks"] = racks
            pods[name] = spec
    tops = [p for p in pods if p.startswith("p0_")]
    build: dict = {}
    for entry in rng.sample(tops + list("abc"), rng.randint(1, len(tops) + 3)):
        build[entry] = rng.randint(1, 3)
    return {"name": f"random {seed}", "racks": layouts, "pods": pods, "build": build}


@pytest.mark.parametrize("first", [1, 3, 8])
def test_random_pod_dags_name_racks_as_rack_instances(catalog, tmp_path, first):
    checked = 0
    for seed in range(60):
        data = random_design(seed)
        rd = design_from_data(data, tmp_path / f"r{seed}.yaml", catalog)
        if not rd.rack_counts or sum(rd.rack_counts.values()) > 20_000:
            continue
        assert counted(rd, first) == listed(rd, first), (seed, data)
        checked += 1
    assert checked >= 40  # the generator yields real cases, not empty ones


def flat(racks: int, catalog, tmp_path):
    """``racks`` NVL72 racks built directly (72 GPUs each)."""
    return design_from_data({"name": f"{racks} racks", "racks": {"nvl72": NVL72},
                             "build": {"nvl72": racks}}, tmp_path / f"flat{racks}.yaml", catalog)


def deep(depth: int, catalog, tmp_path):
    """bench_hetero's pod DAG: each level holds two pods that both hold the next two
    (2**depth racks from 2 * depth pod definitions)."""
    pods = {}
    for lv in range(depth):
        for side in "ab":
            pods[f"{side}{lv}"] = ({"racks": {"nvl72": 1}} if lv == depth - 1
                                   else {"pods": {f"a{lv + 1}": 1, f"b{lv + 1}": 1}})
    return design_from_data({"name": f"DAG {depth}", "racks": {"nvl72": NVL72}, "pods": pods,
                             "build": {"a0": 1}}, tmp_path / f"deep{depth}.yaml", catalog)


def test_huge_designs_named_without_listing(catalog, tmp_path, monkeypatch):
    monkeypatch.setattr(identity, "rack_instances", lambda rd: pytest.fail("listed every rack"))
    # 13,888,888 NVL72 racks = 999,999,936 GPUs
    n = rack_names(flat(13_888_888, catalog, tmp_path))["nvl72"]
    assert (n.count, n.first[:2], n.last) == (13_888_888, ("r0", "r1"), "r13888887")
    assert n.shown() == "r0, r1, r2, r3, ..., r13888887 (13,888,888 racks)"
    # 30 levels: a0 built once holds a1 and b1, each level doubles: 2**29 instances of
    # the last level's pods, one rack each. Pod instance paths are <name><i> (a00, a10);
    # the first rack is a00/a10/.../a290/r0, the 2nd a00/.../a280/b290/r0, the last
    # a00/b10/.../b290/r0
    d = rack_names(deep(30, catalog, tmp_path))["nvl72"]
    assert d.count == 2 ** 29 == 536_870_912
    assert d.first[0] == "/".join(f"a{lv}0" for lv in range(30)) + "/r0"
    assert d.first[1] == "/".join(f"a{lv}0" for lv in range(29)) + "/b290/r0"
    assert d.last == "a00/" + "/".join(f"b{lv}0" for lv in range(1, 30)) + "/r0"


def python_calls(fn) -> int:
    """Python function calls made by ``fn()`` (a count, not a timing)."""
    n = 0

    def prof(frame, event, arg):
        nonlocal n
        if event == "call":
            n += 1

    sys.setprofile(prof)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return n


def test_diagrams_and_workbook_cost_does_not_grow_with_racks(catalog, tmp_path):
    """The elevation, scale-up, tray and failure diagrams and the workbook of 14 racks and
    of 1.4 million (10^8 GPUs, the largest design the tool accepts), and of pod DAGs 4 and
    21 levels deep (8 and 1,048,576 racks), make the same number of Python calls within
    5 %: nothing is done per rack."""
    from infra.analysis.summary import analyze
    from infra.reports.diagrams import build_diagrams
    from infra.reports.writer import _import_openpyxl
    from infra.reports.xlsx_report import build_workbook

    _import_openpyxl()

    def cost(rd) -> int:
        a = analyze(rd)
        data = a.as_dict()
        return python_calls(lambda: (build_diagrams(a, data),
                                     build_workbook(data, a, (), None, defer_pictures=True)))

    cost(flat(14, catalog, tmp_path))  # warm: imports and first-use caches
    for small, big in ((flat(14, catalog, tmp_path), flat(1_388_888, catalog, tmp_path)),
                       (deep(4, catalog, tmp_path), deep(21, catalog, tmp_path))):
        c_small, c_big = cost(small), cost(big)
        assert c_big <= 1.05 * c_small, (small.name, c_small, big.name, c_big)
