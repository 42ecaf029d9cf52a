"""Two-tier scale-up wiring (L1 chips in compute racks, L2 chips in switch-only racks)
and the cut across the L2 tier, for :mod:`infra.topology.scaleup`."""

from __future__ import annotations

import math
from collections import Counter

import networkx as nx

from infra.errors import TopologyError
from infra.models.parts import NvlinkSwitchChip


def tier_wire(rd, g, t1: list[str], t2: list[str], p1: NvlinkSwitchChip, p2, per_rack: int) -> int:
    """Wire every L1 chip's uplinks into its plane of L2 chips; returns the uplink count.

    Planes: ``k = gcd(L1 chips per rack, L2 chips)``; L1 chip *j* of every compute rack
    (``t1`` lists them rack by rack) joins plane ``j mod k``, whose ``L2 / k`` chips
    take its uplinks round-robin, rotated from chip to chip so every L2 chip gets an
    even share. Every GPU reaches every plane through its own rack's chips, so each
    plane is a non-blocking two-level Clos and the domain keeps the bisection of its
    access links (DGX GH200: 6 planes of 12 L2 chips, 2 links from each of 32 chassis).
    """
    if not t1 or not t2:
        raise TopologyError("a two-tier NVLink domain needs switch trays in its compute racks (L1) "
                            "and in its switch-only racks (L2)", file=str(rd.file))
    free = min(p1.ports - local(g, c) for c in t1)
    per = min(free, len(t2) * p2.ports // len(t1))
    if per <= 0:
        raise TopologyError(f"L1 switch chips ({p1.slug}) have no port left for L2: the GPUs of "
                            "their rack use all of them", file=str(rd.file),
                            hint="use racks with fewer GPUs per L1 chip (e.g. NVL36) or more L1 trays")
    g.add_node("xrack", kind="nvlink_backplane")
    k = math.gcd(per_rack, len(t2))
    planes = [t2[p * len(t2) // k:(p + 1) * len(t2) // k] for p in range(k)]
    used: Counter = Counter()
    for i, c in enumerate(t1):
        plane = planes[(i % per_rack) % k]
        m, q = len(plane), (i // per_rack) * (per_rack // k) + (i % per_rack) // k
        for j in range(min(per, m)):
            n = per // m + (1 if j < per % m else 0)
            c2 = plane[(q * per + j) % m]
            g.add_edge(c, c2, kind="nvlink", links=n, gbyte_s=n * min(p1.port_gbyte_s, p2.port_gbyte_s),
                       via="xrack")
            used[c2] += n
    worst = max(used.values())
    if worst > p2.ports:
        raise TopologyError(f"L2 switch chip needs {worst} ports, {p2.slug} has {p2.ports}",
                            file=str(rd.file), hint="add L2 switch trays")
    return per * len(t1)


def l2_cut(g, l1_by_rack: list[list[str]]) -> float:
    """GB/s per direction across the L2 tier when the compute racks split into halves.

    Each L2 chip sits on the side that leaves the fewer of its uplinks cut: the cut is
    the sum over L2 chips of ``min(links from the first half of the racks, links from
    the second)`` (half of all uplinks when every L2 chip hears both halves equally, as
    DGX GH200's 32/32 per chip). An odd number of racks splits the middle rack's GPUs: a
    networkx min cut of that split (once per shape).
    """
    if len(l1_by_rack) % 2:
        return _split_cut(g)
    half = {c for cs in l1_by_rack[:len(l1_by_rack) // 2] for c in cs}
    low = {c for cs in l1_by_rack for c in cs}
    sides: dict[str, list[float]] = {}
    for u, v, d in g.edges(data=True):
        if d.get("via") == "xrack" and (u in low) != (v in low):
            c1, c2 = (u, v) if u in low else (v, u)
            sides.setdefault(c2, [0.0, 0.0])[0 if c1 in half else 1] += d["gbyte_s"]
    return sum(min(a, b) for a, b in sides.values())


def _split_cut(g) -> float:
    """Min cut between the first and the second half of the domain's GPUs (rack order)."""
    gpus = sorted((n for n, k in g.nodes(data="kind") if k == "gpu"),
                  key=lambda n: (int(g.nodes[n]["rack"][1:]), n))
    h = nx.Graph()
    h.add_edges_from((u, v, {"capacity": d["gbyte_s"]}) for u, v, d in g.edges(data=True)
                     if d.get("kind") == "nvlink")
    h.add_edges_from(("_a", n) for n in gpus[:len(gpus) // 2])
    h.add_edges_from((n, "_b") for n in gpus[len(gpus) // 2:])
    return nx.minimum_cut_value(h, "_a", "_b")


def local(g, chip: str) -> int:
    return sum(d["links"] for _, _, d in g.edges(chip, data=True) if d.get("kind") == "nvlink")
