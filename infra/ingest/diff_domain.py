"""Domain checks: one NVLink clique per design domain, one chassis per design rack.

A clique is an NVLink partition (``clusterUuid.cliqueId``, the value GPU Feature
Discovery labels ``nvidia.com/gpu.clique``); a design domain split into several cliques
cannot run one job across it. Only rack-scope domains (NVL72, NVL36x2) are checked:
HGX baseboards report an all-zero cluster UUID, which means "no multi-node fabric",
not a fault (interop-formats.md §6.4).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from infra.ingest.findings import Finding
from infra.ingest.model import BuiltNode
from infra.ingest.slots import DesignNode


@dataclass(frozen=True, slots=True)
class NodeSummary:
    """What the domain checks keep of a node once its own checks are done: its NVLink
    cliques with their GPU counts, its chassis serial (when one) and its first dump."""

    cliques: tuple[tuple[tuple[str, int | None], int], ...]
    chassis: str | None
    source: str

    @classmethod
    def of(cls, node: BuiltNode) -> "NodeSummary":
        cliques = Counter(g.clique for g in node.gpus if g.clique is not None)
        serials = {g.chassis_serial for g in node.gpus if g.chassis_serial}
        return cls(tuple(cliques.items()), serials.pop() if len(serials) == 1 else None,
                   node.files[0] if node.files else "")


def domain_findings(pairs: list[tuple[DesignNode, NodeSummary | BuiltNode]],
                    domain_gpus: dict[str, int]) -> list[Finding]:
    """Clique and chassis findings; ``domain_gpus``: design GPUs per domain id."""
    pairs = [(dn, s if isinstance(s, NodeSummary) else NodeSummary.of(s)) for dn, s in pairs]
    out: list[Finding] = []
    domains: dict[str, list[tuple[DesignNode, NodeSummary]]] = {}
    for dn, node in pairs:
        if dn.domain_scope == "rack":
            domains.setdefault(dn.domain, []).append((dn, node))
    for dom, members in domains.items():
        out += _clique(dom, members, domain_gpus[dom])
    racks: dict[str, list[tuple[DesignNode, NodeSummary]]] = {}
    for dn, node in pairs:
        racks.setdefault(dn.rack, []).append((dn, node))
    for rack, members in racks.items():
        out += _chassis(rack, members)
    return out


def _clique(dom: str, members, design_gpus: int) -> list[Finding]:
    cliques: Counter = Counter()
    hosts: dict[tuple, list[str]] = {}
    for dn, node in members:
        for clique, n in node.cliques:
            cliques[clique] += n
            hosts.setdefault(clique, [])
            if dn.host not in hosts[clique]:
                hosts[clique].append(dn.host)
    if len(cliques) < 2:
        return []
    sizes = sorted(cliques.values(), reverse=True)
    seen = sum(sizes)
    parts = []
    for (cluster, clique), n in sorted(cliques.items(), key=lambda kv: (-kv[1], str(kv[0]))):
        h = hosts[(cluster, clique)]
        parts.append(f"{cluster}.{clique}: {n} GPUs on {h[0]}..{h[-1]}" if len(h) > 1
                     else f"{cluster}.{clique}: {n} GPUs on {h[0]}")
    sizes_txt = " and ".join(str(s) for s in sizes) if len(sizes) < 4 else ", ".join(map(str, sizes))
    dn0 = members[0][0]
    cost = (f"domain {dom} has {len(sizes)} cliques of {sizes_txt}: largest NVLink job "
            f"{sizes[0]} GPUs instead of {design_gpus}")
    if seen < design_gpus:
        cost += f" ({seen} of {design_gpus} GPUs reported a clique)"
    return [Finding("error", "clique-split", dn0.rack, None, None, None, None,
                    f"one NVLink clique of {design_gpus} GPUs", "; ".join(parts), cost,
                    members[0][1].source.rsplit("/", 2)[0])]


def _chassis(rack: str, members) -> list[Finding]:
    serials: dict[str, str] = {}
    for dn, node in members:
        if node.chassis:
            serials[dn.host] = node.chassis
    if len(set(serials.values())) < 2:
        return []
    common, n = Counter(serials.values()).most_common(1)[0]
    if n <= len(serials) / 2:
        return []  # no majority: cannot tell which trays are out of place
    out = []
    for dn, node in members:
        got = serials.get(dn.host)
        if got and got != common:
            out.append(Finding("warning", "chassis-mismatch", dn.rack, dn.u, dn.host, None, None,
                               f"chassis serial {common} (as {n} other trays of rack {rack})",
                               f"chassis serial {got}",
                               "the host sits in another rack than its name and the design say: "
                               "its NVLink domain and power feed differ from the plan",
                               node.source))
    return out
