"""Candidate families for design synthesis: the shipped designs built from repeated blocks.

A family is a shipped design whose ``build:`` repeats one block (a DGX SuperPOD SU, an
NVL72 scalable unit, an MI3xx scalable unit): candidates are that design with the block
built ``n`` times, and, where two fabric tiers cannot reach ``n`` blocks, a third tier of
the same switch and media added on top (non-blocking). Per-block figures come from one
analysis of a single block; they give the cheap bounds that prune counts before any
full analysis (facility power and priced capex grow at least linearly with the blocks).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

from infra.errors import InfraError
from infra.models.starter import DESIGNS_DIR as DESIGNS  # the shipped designs
from infra.models.yamlio import read_yaml

# (design stem, the block its build repeats); every one has a scale-out fabric
FAMILIES = (("dgx_h100_su", "su"), ("dgx_b200_su", "su"), ("hgx_b300_su", "su"),
            ("hgx_h200_cluster", "cluster"), ("hgx_h100_liquid_512", "group"),
            ("gb200_nvl72_576", "su"), ("aws_nvl36x2_cluster", "cluster"),
            ("mi300x_cluster", "su"), ("mi325x_cluster", "su"), ("mi355x_cluster", "su"),
            ("gaudi3_cluster", "su"))


@dataclass(frozen=True)
class Family:
    name: str
    file: Path
    block: str
    data: dict  # the design file's data
    gpu: str  # slug
    gpus_per_block: float
    facility_kw_per_block: float
    it_kw_per_block: float
    capex_per_block: float | None  # priced capex of one block (None: nothing priced)
    capex_lower_bound: bool
    hbm_gb_per_gpu: float  # 10^9 bytes (Gpu.hbm_gbyte), as the training model counts it
    cooling: str  # liquid | air
    rails: tuple[tuple[str, int], ...] = ()  # rail-optimized fabric -> rails (NIC ports a node)


def load_family(name: str, block: str, catalog, book) -> Family:
    """One family with its per-block figures (one analysis of the design built once)."""
    from infra.analysis.summary import analyze
    from infra.models.resolve import design_from_data

    file = DESIGNS / f"{name}.yaml"
    data = read_yaml(file, InfraError)
    one = with_count(data, block, 1)
    a = analyze(design_from_data(one, file, catalog), book)
    m = a.metrics()
    dom = max(a.bandwidth.domains, key=lambda d: d.gpus * d.count)
    return Family(name, file, block, data, dom.gpu.slug, m["gpus"], m["facility_power_kw"],
                  m["it_power_kw"], m.get("capex_priced_usd"),
                  bool(a.capex and a.capex.is_lower_bound), dom.gpu.hbm_gbyte or 0.0,
                  "liquid" if a.cooling.liquid_kw > 0 else "air",
                  tuple((f.name, f.ports_per_node) for f in a.fabrics
                        if f.spec.kind == "rail_optimized" and len(f.spec.tiers) >= 2
                        and f.ports_per_node > 1))


def rail_only(data: dict, rails: tuple[tuple[str, int], ...]) -> dict:
    """The design with each rail-optimized fabric made rail-only (Wang et al., "Rail-only",
    2023): one switch per rail, no spine, every rail its own plane (``planes`` = the node's
    NIC ports); traffic between rails crosses the scale-up domain first (NCCL's PXN). Valid
    while a rail's nodes fit one switch's ports."""
    d = copy.deepcopy(data)
    for name, n in rails:
        f = d["fabrics"][name]
        f.pop("group", None)
        f["planes"] = n  # one NIC port of every node per plane
        f["tiers"] = f["tiers"][:1]
        f["tiers"][0].pop("oversubscription", None)
    return d


def leaf_paths(data: dict) -> list[str]:
    """Sweep paths of the first-tier oversubscription of every switched fabric of two or
    more tiers (the ratio synthesis varies within a family)."""
    return [f"fabrics.{name}.tiers[0].oversubscription"
            for name, f in sorted((data.get("fabrics") or {}).items())
            if f.get("kind") != "single_switch" and len(f.get("tiers") or []) >= 2]


def with_count(data: dict, block: str, n: int, tiers: int | None = None,
               oversubscription: float | None = None) -> dict:
    """The family's design data with its block built ``n`` times; ``tiers=3`` adds a
    non-blocking core tier (the spine's switch, port speed and media) to every two-tier fabric;
    ``oversubscription`` sets the first tier's down : up ratio of every switched fabric."""
    d = copy.deepcopy(data)
    d["build"] = {block: n}
    if oversubscription is not None:
        for name in leaf_paths(d):
            tier0 = d["fabrics"][name.split(".")[1]]["tiers"][0]
            if oversubscription == 1:
                tier0.pop("oversubscription", None)
            else:
                tier0["oversubscription"] = oversubscription
    if tiers == 3:
        for f in (d.get("fabrics") or {}).values():
            t = f.get("tiers") or []
            if len(t) == 2:
                spine = t[1]
                t.append({"role": "core", "switch": spine["switch"],
                          **({"port_gbit_s": spine["port_gbit_s"]} if "port_gbit_s" in spine
                             else {}),
                          **({"down": copy.deepcopy(spine["down"])} if "down" in spine else {})})
    return d


def ladder(limit: int, every: bool = False) -> list[int]:
    """Counts tried up to ``limit``: every count to 8, then about 1.4x apart, and the limit
    (``every``: each count).

    Examples
    --------
    >>> ladder(40)
    [1, 2, 3, 4, 5, 6, 7, 8, 11, 16, 23, 32, 40]
    """
    if every:
        return list(range(1, limit + 1))
    out = list(range(1, min(limit, 8) + 1))
    x = 8.0
    while True:
        x *= 2 ** 0.5
        if round(x) >= limit:
            break
        out.append(round(x))
    if limit > 8:
        out.append(limit)
    return sorted(set(out))


__all__ = ["DESIGNS", "FAMILIES", "Family", "ladder", "leaf_paths", "load_family",
           "rail_only", "with_count"]
