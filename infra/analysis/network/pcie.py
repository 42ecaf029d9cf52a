"""PCIe contention inside a tray type: capacity vs line-rate demand of every link.

Model
-----
- Every GPU and CPU drives every NIC interface assigned to it at line rate, all at
  once, in one direction (the worst case of a collective or a storage burst).
- A PCIe link carries ``pcie_usable_gbyte_s(gen, lanes)`` per direction: raw rate x
  line coding (128b/130b for Gen3-5; 236/256 FLIT payload for Gen6) x TLP efficiency
  with 256-byte payloads (256/280 for Gen3-5, 256/272 for Gen6); PCI-SIG base
  specification arithmetic, see :mod:`infra.units`. Generation is the lower of the
  two ends (a Gen6 B200 on a Gen5 switch runs Gen5).
- NVLink-C2C of one CPU (450 GB/s per direction) is shared by that CPU's GPUs.
- Interfaces that share a NIC's physical port share the port's rate.
- Flows get a max-min fair share of every link, port and their own line rate
  (progressive filling), which is what a switch's round-robin arbitration tends to.

Complexity: O(F x R) per filling round, F flows and R resources of one tray type;
computed once per tray type whatever the cluster size.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from infra.models.catalog_types import Catalog
from infra.models.parts import Nic
from infra.models.systems import ComputeTray
from infra.topology.tray import Flow, tray_flows, tray_graph
from infra.units import gbyte_to_gbit


@dataclass(frozen=True)
class LinkLoad:
    """One PCIe/C2C link or NIC port of a tray type under full load."""

    tray: str
    link: str  # "a -- b" or "<nic>.<port>"
    kind: str  # pcie | c2c | nic_port
    gen: int | None
    lanes: int | None
    capacity_gbit_s: float
    demand_gbit_s: float
    allocated_gbit_s: float
    users: tuple[str, ...]  # the GPUs/CPUs and NICs whose flows cross it

    @property
    def oversubscription(self) -> float:
        return self.demand_gbit_s / self.capacity_gbit_s if self.capacity_gbit_s else 0.0


@dataclass(frozen=True)
class TrayContention:
    tray: str
    flows: tuple[Flow, ...]
    allocation: dict[int, float]  # flow index -> Gb/s
    links: tuple[LinkLoad, ...]

    @property
    def worst(self) -> LinkLoad | None:
        return max(self.links, key=lambda l: l.oversubscription, default=None)

    def per_source(self, networks: tuple[str, ...] | None = None) -> dict[str, tuple[float, float]]:
        """source -> (nominal, effective) Gb/s over flows of ``networks``."""
        out: dict[str, list[float]] = {}
        for i, f in enumerate(self.flows):
            if networks and f.network not in networks:
                continue
            acc = out.setdefault(f.source, [0.0, 0.0])
            acc[0] += f.demand_gbit_s
            acc[1] += self.allocation[i]
        return {k: (v[0], v[1]) for k, v in out.items()}


def max_min_fair(demands: list[float], uses: list[list[str]], capacity: dict[str, float]) -> list[float]:
    """Max-min fair rates by progressive filling.

    Parameters
    ----------
    demands : list of float
        Each flow's own cap (its line rate).
    uses : list of list of str
        The resources each flow crosses.
    capacity : dict
        Resource -> capacity, same unit as ``demands``.

    Returns
    -------
    list of float : the rate of each flow.

    Examples
    --------
    Two flows share a 10-unit link; one is capped at 3 by its own demand:

    >>> max_min_fair([3, 100], [["l"], ["l"]], {"l": 10})
    [3.0, 7.0]
    """
    rate = [0.0] * len(demands)
    active = {i for i, d in enumerate(demands) if d > 0}
    eps = 1e-9
    while active:
        inc = min(demands[i] - rate[i] for i in active)
        for r, cap in capacity.items():
            n = sum(1 for i in active if r in uses[i])
            if n:
                used = sum(rate[i] for i in range(len(rate)) if r in uses[i])
                inc = min(inc, (cap - used) / n)
        inc = max(inc, 0.0)
        for i in active:
            rate[i] += inc
        saturated = {r for r, cap in capacity.items()
                     if sum(rate[i] for i in range(len(rate)) if r in uses[i]) >= cap - eps}
        active = {i for i in active
                  if rate[i] < demands[i] - eps and not saturated.intersection(uses[i])}
    return [round(r, 9) for r in rate]


# catalog -> {(id(tray), failed parts): (tray, contention)}; dropped with the catalog
_CONTENTION: "weakref.WeakKeyDictionary[Catalog, dict]" = weakref.WeakKeyDictionary()


def tray_contention(tray: ComputeTray, catalog: Catalog, exclude: frozenset[str] = frozenset()) -> TrayContention:
    """Load every link of ``tray`` with all flows at once.

    ``exclude`` removes failed components (NICs, PCIe switches) before loading, for the
    blast-radius analysis. A pure function of the tray type and the catalog: computed once
    per (catalog, tray, exclude) and kept on the catalog, so designs that share a catalog
    (a synthesis's candidates, a sweep's scenarios) share it (``bench_synthesis``: about a
    third of a candidate's analysis).
    """
    memo = _CONTENTION.setdefault(catalog, {})
    key = (id(tray), exclude)
    hit = memo.get(key)
    if hit is None or hit[0] is not tray:  # the entry holds the tray: an id is never reused
        hit = memo[key] = (tray, _tray_contention(tray, catalog, exclude))
    return hit[1]


def _tray_contention(tray: ComputeTray, catalog: Catalog, exclude: frozenset[str]) -> TrayContention:
    g = tray_graph(tray, catalog)
    flows = [f for f in tray_flows(tray, catalog)
             if f.nic not in exclude and not any(n in exclude for e in f.edges for n in e)]
    capacity: dict[str, float] = {}
    meta: dict[str, tuple] = {}
    for a, b, d in g.edges(data=True):
        if d["kind"] in ("pcie", "c2c") and a not in exclude and b not in exclude:
            key = _key(a, b)
            capacity[key] = gbyte_to_gbit(d["gbyte_s"])
            meta[key] = (d["kind"], d.get("gen"), d.get("lanes"))
    for n, d in g.nodes(data=True):
        if d["kind"] == "nic" and n not in exclude:
            nic: Nic = catalog.get(d["slug"])  # type: ignore[assignment]
            for p in nic.ports:
                capacity[f"{n}.{p.name}"] = p.gbit_s
                meta[f"{n}.{p.name}"] = ("nic_port", None, None)
    uses = [[_key(a, b) for a, b in f.edges] + [f.port] for f in flows]
    rates = max_min_fair([f.demand_gbit_s for f in flows], uses, capacity)
    links = []
    for key, cap in capacity.items():
        idx = [i for i, u in enumerate(uses) if key in u]
        kind, gen, lanes = meta[key]
        users = sorted({flows[i].source for i in idx} | {flows[i].nic for i in idx})
        links.append(LinkLoad(tray.slug, key, kind, gen, lanes, cap,
                              sum(flows[i].demand_gbit_s for i in idx),
                              sum(rates[i] for i in idx), tuple(users)))
    links.sort(key=lambda l: (-l.oversubscription, l.link))
    return TrayContention(tray.slug, tuple(flows), dict(enumerate(rates)), tuple(links))


def _key(a: str, b: str) -> str:
    return " -- ".join(sorted((a, b)))
