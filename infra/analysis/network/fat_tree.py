"""Fat-tree sizing arithmetic (pure functions; no catalog, no design).

Rules
-----
- A switch of radix ``k`` at tier oversubscription ``o`` (down : up) has
  ``d = floor(k * o / (1 + o))`` down ports and ``u = k - d`` up ports (1:1 -> k/2;
  ``o`` below 1 is under-subscription, more up than down: 1:2 -> k/3 down).
  The top tier has no uplinks (all ``k`` ports face down).
- Grouped tiers: the spine tier of three, sized per instance of a pod, takes the uplinks of
  that instance only: ``switches = instances x size(uplinks / instances)`` (Meta's
  one cluster-switch fabric per 192-rack pod). The tier below must split evenly.
- Leaves: per group instance (an SU), rail-optimized fabrics need
  ``rails x ceil(nodes / d)`` leaves (NIC *r* of every node to rail *r*'s leaf);
  plain Clos fabrics ``ceil(nodes x ports / d)``; in-rack ToRs a fixed number per rack.
- Two tiers: every leaf spreads its ``u`` uplinks evenly over all spines, so the spine
  count ``S`` is the smallest divisor of ``u`` that gives enough spine ports
  (``S * k >= leaves * u``). This reproduces NVIDIA's DGX SuperPOD tables (e.g. H100:
  4/8/16/16 spines for 1-4 SU; B300 XDR on Q3400: 18 spines at 4 SU, 36 at 8 SU).
- Three tiers: spines = ``ceil(leaf uplinks / d_spine)``; cores =
  ``ceil(spine uplinks / k_core)`` (B200 SuperPOD 16 SU: 128 leaves, 128 spines, 64 cores).
- Largest reach at these radices: 1 tier ``k``; 2 tiers ``d1 x k2``; 3 tiers
  ``d1 x d2 x k3`` endpoints (non-blocking: k, k^2/2, k^3/4).
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class TierSize:
    role: str
    radix: int
    down_ports: int  # per switch, available
    up_ports: int  # per switch
    switches: int  # per plane
    down_links: int  # links from the tier below (or nodes) into this tier, per plane
    ports_used: int  # per plane (down + up links landing on this tier)

    @property
    def ports_free(self) -> int:
        return self.switches * self.radix - self.ports_used


@dataclass(frozen=True)
class FatTree:
    tiers: tuple[TierSize, ...]
    endpoints: int  # per plane
    max_endpoints: int  # per plane, at these radices and oversubscriptions


class FabricSizeError(ValueError):
    """Raised with the tier and the numbers when a fabric cannot be built."""


def split_ports(radix: int, oversubscription: float, top: bool) -> tuple[int, int]:
    """(down, up) ports of one switch."""
    if top:
        return radix, 0
    down = math.floor(radix * oversubscription / (1 + oversubscription))
    return down, radix - down


def max_endpoints(radices: list[int], oversubs: list[float]) -> int:
    """Largest endpoint count the tiers can reach (1: k; 2: d1*k2; 3: d1*d2*k3)."""
    n = len(radices)
    downs = [split_ports(k, o, i == n - 1)[0] for i, (k, o) in enumerate(zip(radices, oversubs))]
    if n == 1:
        return radices[0]
    if n == 2:
        return downs[0] * radices[1]
    return downs[0] * downs[1] * radices[2]


def size_fat_tree(
    groups: list[tuple[int, int]],
    ports_per_node: int,
    kind: str,
    radices: list[int],
    oversubs: list[float],
    roles: list[str],
    tor_per_rack: tuple[int, int] | None = None,
    instances: list[int] | None = None,
) -> FatTree:
    """Switch and link counts of one plane.

    Parameters
    ----------
    groups : list of (nodes per group instance, instances)
        e.g. [(32, 3), (31, 1)] for a 4-SU DGX SuperPOD H100.
    ports_per_node : int
        Fabric ports per node in this plane (rails for rail-optimized fabrics).
    kind : "rail_optimized" | "clos" | "single_switch"
    radices, oversubs, roles : per tier, bottom up.
    tor_per_rack : (racks, ToRs per rack) for in-rack ToRs, else None.
    instances : per tier, bottom up, how many separate blocks the tier is built as
        (1: one block over the whole fabric; 8: one per instance of an 8-instance pod).
        The first and the top tier are 1.

    Examples
    --------
    NVIDIA DGX SuperPOD B200, 2 SU of 32 nodes, 8 rails, QM9700 (radix 64):

    >>> t = size_fat_tree([(32, 2)], 8, "rail_optimized", [64, 64], [1, 1], ["leaf", "spine"])
    >>> [(x.role, x.switches) for x in t.tiers]
    [('leaf', 16), ('spine', 8)]
    """
    n_tiers = len(radices)
    inst = list(instances or [1] * n_tiers)
    nodes = sum(n * c for n, c in groups)
    endpoints = nodes * ports_per_node
    reach = max_endpoints(radices, oversubs)
    if kind == "rail_optimized" and n_tiers == 1:
        reach = radices[0] * ports_per_node  # rail-only: each rail its own switch
        if sum(c for _, c in groups) > 1:
            raise FabricSizeError(f"tier 1 ({roles[0]}): a single tier cannot join "
                                  f"{sum(c for _, c in groups)} groups; add a spine tier")
    if endpoints > reach and tor_per_rack is None:
        raise FabricSizeError(
            f"{n_tiers} tier(s) of radix {radices} reach at most {reach:,} endpoint ports; the "
            f"design needs {endpoints:,} ({nodes:,} nodes x {ports_per_node})"
            + ("; add a tier" if n_tiers < 3 else "; use larger-radix switches"))
    d1, u1 = split_ports(radices[0], oversubs[0], n_tiers == 1)
    if tor_per_rack is not None:
        racks, per = tor_per_rack
        leaves = racks * per
        per_rack_ports = endpoints // racks if racks else 0
        used = math.ceil(per_rack_ports / per)
        if used > radices[0]:
            raise FabricSizeError(f"tier 1 ({roles[0]}): {used} ports per ToR needed "
                                  f"({per_rack_ports} per rack / {per} ToRs), radix is {radices[0]}")
        d1 = used
        u1 = 0 if n_tiers == 1 else min(radices[0] - used, math.ceil(used / oversubs[0]))
    elif kind == "rail_optimized":
        per_rail = [math.ceil(n / d1) for n, _ in groups]
        if n_tiers == 1 and any(p > 1 for p in per_rail):
            raise FabricSizeError(f"tier 1 ({roles[0]}): one rail of a group needs "
                                  f"{max(per_rail)} switches of radix {radices[0]}; a single tier "
                                  "cannot join them: add a spine tier")
        leaves = sum(ports_per_node * p * c for p, (_, c) in zip(per_rail, groups))
        used = max(math.ceil(n / p) for p, (n, _) in zip(per_rail, groups))
    else:
        leaves = sum(math.ceil(n * ports_per_node / d1) * c for n, c in groups)
        if n_tiers == 1 and leaves > 1:
            raise FabricSizeError(f"tier 1 ({roles[0]}): {endpoints} ports need {leaves} switches "
                                  f"of radix {radices[0]}; a single tier cannot join them")
        used = max(math.ceil(n * ports_per_node / math.ceil(n * ports_per_node / d1))
                   for n, _ in groups)
    if tor_per_rack is None and n_tiers > 1 and oversubs[0] > 1 and used < d1:
        # an over-subscribed leaf that is not full gets the uplinks its used ports need
        # at the ratio (32 nodes at 2:1: 16 uplinks, not the 22 of a full 42-port split)
        u1 = min(u1, math.ceil(used / oversubs[0]))
    tiers = [TierSize(roles[0], radices[0], d1, u1, leaves, endpoints,
                      endpoints + leaves * u1)]
    if n_tiers >= 2:
        up = leaves * u1
        k2 = radices[1]
        if n_tiers == 2:
            spines = _even_spread(up, u1, k2, roles[1])
            tiers.append(TierSize(roles[1], k2, k2, 0, spines, up, up))
        else:
            d2, u2 = split_ports(k2, oversubs[1], False)
            per = _per_instance(leaves, inst[1], roles) * u1  # uplinks of one instance
            spines = inst[1] * math.ceil(per / d2)
            core_links = spines * u2
            k3 = radices[2]
            cores = math.ceil(core_links / k3)
            tiers.append(TierSize(roles[1], k2, d2, u2, spines, up, up + core_links))
            tiers.append(TierSize(roles[2], k3, k3, 0, cores, core_links, core_links))
    return FatTree(tuple(tiers), endpoints, reach)


def _per_instance(lower: int, instances: int, roles: list[str]) -> int:
    """Switches of the tier below in one instance of a grouped tier (must divide)."""
    if lower % instances:
        raise FabricSizeError(f"tier 2 ({roles[1]}) is built per pod instance ({instances:,}), but the "
                              f"{lower:,} {roles[0]} switches do not split evenly over them; group the "
                              "tier by a pod whose instances hold the same racks")
    return lower // instances


def tier_ratios(oversubs: list[float]) -> list[float]:
    """Effective ratio of injection to the bandwidth a GPU gets above each tier.

    Above tier *t* a GPU's share of the uplinks is ``injection / (o_1 x ... x o_t)``,
    but no tier carries more than the GPU injects: the ratio is
    ``max(1, max over k <= t of o_1 x ... x o_k)``. Under-subscription (``o < 1``)
    therefore adds headroom for the tiers above without raising a GPU's rate (Meta: 1:2 at
    the rack switch, 7:1 above the pod -> 1, 3.5).

    >>> tier_ratios([0.5, 7.0])
    [1.0, 3.5]
    >>> tier_ratios([2.0, 1.0])
    [2.0, 2.0]
    """
    out, prod, worst = [], 1.0, 1.0
    for o in oversubs:
        prod *= o
        worst = max(worst, prod)
        out.append(worst)
    return out


def _even_spread(uplinks: int, per_leaf: int, radix: int, role: str) -> int:
    """Smallest spine count S dividing ``per_leaf`` with S * radix >= uplinks."""
    need = math.ceil(uplinks / radix)
    for s in range(max(need, 1), per_leaf + 1):
        if per_leaf % s == 0:
            return s
    raise FabricSizeError(f"tier 2 ({role}): {uplinks:,} uplinks need {need} switches of radix "
                          f"{radix}, more than the {per_leaf} uplinks per leaf can reach evenly; "
                          "add a tier")
