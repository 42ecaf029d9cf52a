"""Which GPUs one failure takes down, node by node, for the failure-domain diagram.

:mod:`infra.analysis.blast_radius` counts; this module names the nodes, with the same
semantics (NVLink partition mode, two-rack domains, a tray is one node, NIC/PCIe switch
failures degrade scale-out share), so a diagram can colour what is lost and what is
degraded. ``tests/test_reports.py`` checks that the counts here equal the blast table's.

Example
-------
The NVL36x2 selling point, one rack's NVLink cable cartridge failing::

    [r0: 36 GPUs]==(r0.backplane FAILED)   [r1: 36 GPUs]  -> 36 lost, 36 keep a partition

>>> from infra.analysis.summary import analyze_file
>>> v = failure_view(analyze_file("designs/aws_nvl36x2.yaml"), "nvlink_backplane")
>>> v.failed, len(v.lost), v.partitions
(('r0.backplane',), 36, (36,))
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import networkx as nx

from infra.analysis.bandwidth import SCALE_OUT
from infra.analysis.pcie import tray_contention
from infra.errors import DesignError, did_you_mean
from infra.topology.scaleup import ScaleUpDomain
from infra.topology.tray import tray_graph

DOMAIN_KINDS = ("gpu", "nvlink_switch_chip", "nvlink_switch_tray", "nvlink_backplane", "rack")
NODE_KINDS = ("compute_tray", "superchip", "cpu")  # the tray is one node
TRAY_KINDS = ("nic", "pcie_switch")  # degrade or cut GPUs inside one tray
RACK_KINDS = ("power_shelf", "pdu", "cooling_unit")  # take the rack down unless N+1


@dataclass(frozen=True)
class FailureView:
    """One failed component and its effect, by node name.

    ``scope`` is ``domain`` (names are nodes of ``domain.graph``) or ``tray`` (names are
    instances of ``tray``'s PCIe graph).
    """

    kind: str
    scope: str
    failed: tuple[str, ...]
    lost: tuple[str, ...]  # GPUs that can no longer run in a job
    degraded: tuple[str, ...]  # GPUs that run with less bandwidth
    partitions: tuple[int, ...]  # healthy NVLink partitions left in the domain
    domain: ScaleUpDomain | None = None
    tray: str | None = None
    kept_fraction: dict[str, float] = field(default_factory=dict)  # degraded GPU -> share kept
    blast: dict | None = None  # the matching blast-radius row (whole-cluster figures)
    note: str = ""

    def unit_status(self, unit_of: dict[str, str]) -> dict[str, tuple[int, int]]:
        """unit -> (GPUs lost, GPUs degraded), folding GPU nodes with ``unit_of``."""
        out: dict[str, list[int]] = {}
        for i, names in enumerate((self.lost, self.degraded)):
            for n in names:
                out.setdefault(unit_of.get(n, n), [0, 0])[i] += 1
        return {k: (v[0], v[1]) for k, v in out.items()}


def highlight_kinds(analysis) -> list[str]:
    """Component kinds ``--highlight`` accepts for this design (those in its blast table)."""
    return list(dict.fromkeys(b.component_kind for b in analysis.blast))


def failure_view(analysis, kind: str) -> FailureView:
    """Fail one representative ``kind`` component of ``analysis`` (a DesignAnalysis)."""
    kinds = highlight_kinds(analysis)
    if kind not in kinds:
        raise DesignError(f"--highlight {kind!r}: no such component in this design",
                          hint=did_you_mean(kind, kinds) or f"one of: {', '.join(kinds)}")
    row = next(asdict(b) for b in analysis.blast if b.component_kind == kind)
    mode = analysis.rd.design.assumptions.nvlink_partition_mode
    domains = sorted(analysis.bandwidth.domains, key=lambda d: (-d.gpus, d.name))
    if kind in TRAY_KINDS:
        return _tray_failure(analysis, kind, row)
    dom = domains[0]
    g = dom.graph
    racks = sorted(n for n, d in g.nodes(data=True) if d["kind"] == "rack")
    if kind in ("rack",) + RACK_KINDS and row["gpus_lost"] >= dom.gpus:
        failed = racks or _first_tray(g)  # the whole domain (and maybe more, see ``blast``)
    elif kind in DOMAIN_KINDS:
        nodes = sorted(n for n, d in g.nodes(data=True) if d["kind"] == kind)
        pick = [n for n in nodes if n.endswith(".backplane")] or nodes
        failed = pick[:1] or _first_tray(g)
    elif kind in RACK_KINDS:
        failed = (racks[:1] or _first_tray(g)) if row["gpus_lost"] else []
    else:
        failed = _first_tray(g)
    lost, degraded, parts, frac = affected_gpus(dom, set(failed), mode)
    return FailureView(kind, "domain", tuple(failed), lost, degraded, parts, dom,
                       kept_fraction=frac, blast=row, note=row["note"])


def _first_tray(g: nx.Graph) -> list[str]:
    return sorted(n for n, d in g.nodes(data=True) if d["kind"] == "compute_tray")[:1]


def affected_gpus(dom: ScaleUpDomain, failed: set[str], mode: str):
    """(lost, degraded, partitions, kept fraction per degraded GPU) of failing ``failed``.

    Same rules as :func:`infra.analysis.blast_radius.domain_effect`.
    """
    g = dom.graph
    dead = {n for n in g if any(n == f or n.startswith(f + ".") for f in failed)}
    gpus = sorted(n for n, d in g.nodes(data=True) if d["kind"] == "gpu")
    alive = [n for n in gpus if n not in dead]
    if dom.topology in ("none", "mesh"):
        parts = tuple(1 for _ in alive) if dom.topology == "none" else ((len(alive),) if alive else ())
        return tuple(n for n in gpus if n in dead), (), parts, {}

    def ok(u: str, v: str, d: dict) -> bool:
        return (d.get("kind") == "nvlink" and u not in dead and v not in dead
                and d.get("via") not in dead)

    links = {n: sum(d["links"] for u, v, d in g.edges(n, data=True) if ok(u, v, d)) for n in alive}
    full = dom.links_per_gpu
    if mode == "full_bandwidth":
        healthy = {n for n in alive if links[n] == full}
        cross = [ok(u, v, d) for u, v, d in g.edges(data=True) if d.get("via") == "xrack"]
        if cross and not all(cross):
            parts = tuple(p for p in (sum(1 for n in healthy if g.nodes[n]["rack"] == r)
                                      for r in ("r0", "r1")) if p)
        else:
            parts = (len(healthy),) if healthy else ()
        return tuple(n for n in gpus if n not in healthy), (), parts, {}
    usable = {n for n in alive if links[n] > 0}
    sub = nx.Graph()
    sub.add_nodes_from(usable)
    sub.add_edges_from((u, v) for u, v, d in g.edges(data=True) if ok(u, v, d))
    parts = tuple(sorted((len(c & usable) for c in nx.connected_components(sub) if c & usable),
                         reverse=True))
    deg = sorted(n for n in usable if links[n] < full)
    return (tuple(n for n in gpus if n not in usable), tuple(deg), parts,
            {n: links[n] / full for n in deg})


def _tray_failure(analysis, kind: str, row: dict) -> FailureView:
    """A NIC or PCIe switch inside the worst-hit tray type."""
    cat = analysis.rd.catalog
    best = None
    for tray in analysis.rd.tray_types():
        g = tray_graph(tray, cat)
        gpus = sorted(n for n, d in g.nodes(data=True) if d["kind"] == "gpu")
        base = tray_contention(tray, cat).per_source(SCALE_OUT)
        for name in sorted(n for n, d in g.nodes(data=True) if d["kind"] == kind):
            lost = _cut_off(g, name, gpus)
            after = tray_contention(tray, cat, frozenset({name})).per_source(SCALE_OUT)
            frac = {x: after.get(x, (0.0, 0.0))[1] / base[x][1] for x in gpus
                    if x not in lost and x in base and base[x][1] > 0}
            frac = {x: f for x, f in frac.items() if f < 1 - 1e-9}
            key = (len(lost), len(frac), -min(frac.values(), default=1.0))
            if best is None or key > best[0]:
                best = (key, tray.slug, name, lost, frac)
    if best is None:
        raise DesignError(f"--highlight {kind!r}: no compute tray has one")
    _, slug, name, lost, frac = best
    return FailureView(kind, "tray", (name,), tuple(lost), tuple(sorted(frac)), (), None, slug,
                       frac, row, row["note"])


def _cut_off(g: nx.Graph, failed: str, gpus: list[str]) -> list[str]:
    keep = nx.subgraph_view(g, filter_node=lambda n: n != failed and g.nodes[n]["kind"] != "nic",
                            filter_edge=lambda a, b: g.edges[a, b]["kind"] != "contains")
    cpus = [n for n, d in g.nodes(data=True) if d["kind"] == "cpu"]
    return [x for x in gpus if not any(nx.has_path(keep, x, c) for c in cpus)]
