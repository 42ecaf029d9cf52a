"""Which GPUs one failure takes down, node by node, for the failure-domain diagram.

:mod:`infra.analysis.reliability.blast_radius` counts; this module names the nodes, with the same
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

from infra.analysis.reliability.blast_radius import domain_failure, tray_component_failure
from infra.errors import DesignError, did_you_mean
from infra.topology.scaleup import ScaleUpDomain
from infra.topology.tray import tray_graph

DOMAIN_KINDS = ("gpu", "nvlink_switch_chip", "nvlink_switch_tray", "nvlink_backplane", "rack")
NODE_KINDS = ("compute_tray", "superchip", "cpu")  # the tray is one node
TRAY_KINDS = ("nic", "pcie_switch")  # degrade or cut GPUs inside one tray
RACK_KINDS = ("power_shelf", "pdu", "cooling_unit")  # take the rack down unless N+1
FABRIC_KINDS = ("tor_switch", "leaf_switch", "spine_switch", "core_switch", "optic", "cable",
                "plane")


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
    if kind == "scale_up_link":  # one link of a switchless mesh / ring / torus: its ends degrade
        dom = next(d for d in domains if d.topology in ("mesh", "ring", "torus"))
        edges = [(u, v, d) for u, v, d in sorted(dom.graph.edges(data=True))
                 if d.get("kind") == "nvlink"]
        most = max(d["links"] for _, _, d in edges)  # the blast row's worst link
        ends = next((u, v) for u, v, d in edges if d["links"] == most)
        kept = row["degraded_bandwidth_fraction"]
        return FailureView(kind, "domain", (), (), tuple(sorted(ends)), (dom.gpus,), dom,
                           kept_fraction={e: kept for e in ends}, blast=row, note=row["note"])
    if kind in FABRIC_KINDS:  # degrades GPUs across domains: shown by the blast figures
        return FailureView(kind, "fabric", (), (), (), (dom.gpus,), dom, blast=row,
                           note=row["note"])
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
    """(lost, degraded, partitions, kept fraction per degraded GPU) of failing ``failed``
    (:func:`infra.analysis.reliability.blast_radius.domain_failure`)."""
    f = domain_failure(dom, failed, mode)
    return f.lost, f.degraded, f.partitions, f.kept


def _tray_failure(analysis, kind: str, row: dict) -> FailureView:
    """A NIC or PCIe switch inside the worst-hit tray type."""
    cat = analysis.rd.catalog
    best = None
    for tray in analysis.rd.tray_types():
        g = tray_graph(tray, cat)
        for name in sorted(n for n, d in g.nodes(data=True) if d["kind"] == kind):
            lost, frac = tray_component_failure(tray, cat, name)
            key = (len(lost), len(frac), -min(frac.values(), default=1.0))
            if best is None or key > best[0]:
                best = (key, tray.slug, name, lost, frac)
    if best is None:
        raise DesignError(f"--highlight {kind!r}: no compute tray has one")
    _, slug, name, lost, frac = best
    return FailureView(kind, "tray", (name,), tuple(lost), tuple(sorted(frac)), (), None, slug,
                       frac, row, row["note"])
