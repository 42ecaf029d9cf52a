"""Scale-out fabric overview, collapsed by hierarchy: tray types -> rails/planes -> tiers.

Drawn from the aggregated fabric graph (:func:`infra.topology.fabric_graph.fabric_graph`):
one node per switch group (the leaves of one rail, all spines, all cores of a plane) with
its switch count, one node per tray type with its node count, and edges labelled with
link counts and bandwidth. The drawing has a few dozen nodes whatever the cluster size.
"""

from __future__ import annotations

from infra.reports.diagrams import style
from infra.reports.diagrams.base import Diagram, natural
from infra.reports.diagrams.style import esc


def fabric_diagrams(analysis) -> list[Diagram]:
    """One overview per fabric of the design (none when it has no fabric)."""
    from infra.topology.fabric_graph import fabric_graph

    out = []
    for f in analysis.fabrics:
        g = fabric_graph(f, sorted(analysis.rd.tray_counts()))
        out.append(_draw(f, g, analysis.rd.name))
    return out


def _draw(f, g, design: str) -> Diagram:
    import graphviz

    head = (f"Fabric '{f.name}' of {design}: {f.spec.kind.replace('_', '-')}, "
            f"{len(f.tiers)} tier(s), {f.planes} plane(s), {f.gpus:,} GPUs, "
            f"bisection {f.bisection_tbit_s:,.1f} Tb/s")
    d = graphviz.Digraph(f"fabric_{f.name}",
                         graph_attr={**style.GRAPH, "rankdir": "BT", "label": style.graph_label(
                             head, ["compute_tray", "tier"],
                             edges=[(style.EDGE["color"], "links x port speed, total Tb/s")])},
                         node_attr=style.NODE, edge_attr={**style.EDGE, "dir": "none"})
    for n, a in sorted(g.nodes(data=True), key=lambda x: natural(x[0])):
        if a["kind"] == "compute_tray":
            text = f"<<b>{esc(a['slug'])}</b><br/>{a['count']:,} nodes x {f.ports_per_node} ports>"
            d.node(_id(n), text, **style.node_attrs("compute_tray"))
        else:
            role = a["kind"].replace("_switch_group", "")
            text = (f"<<b>{esc(n.split('.', 1)[-1])}</b><br/>{a['count']:,} x {esc(a['slug'])}"
                    f"<br/>({role})>")
            d.node(_id(n), text, **style.node_attrs("tier"))
    for u, v, a in sorted(g.edges(data=True), key=lambda e: (natural(e[0]), natural(e[1]))):
        lo, hi = (u, v) if g.nodes[u]["kind"] == "compute_tray" or "spine" in v and "core" not in u else (v, u)
        d.edge(_id(lo), _id(hi), f"{a['links']:,} x {f.link_gbit_s:g}G\n{a['gbit_s'] / 1000:,.1f} Tb/s")
    return Diagram(f"fabric_{f.name}", head, d.source)


def _id(name: str) -> str:
    """A DOT node id (':' would start a port name)."""
    return name.replace(":", "__")
