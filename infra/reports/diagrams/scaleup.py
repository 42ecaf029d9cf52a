"""Scale-up domains: racks, compute trays, switch trays, NVLink cable carriers.

Drawn from :func:`infra.topology.views.domain_view` (GPUs folded into trays, chips into
switch trays), left to right: trays -> rack cartridge -> switch trays -> cross-rack
cables -> the other rack. Edge labels: NVLink links and GB/s per direction.
"""

from __future__ import annotations

import networkx as nx

from infra.reports.diagrams import style
from infra.reports.diagrams.base import Diagram, file_stem, natural
from infra.reports.diagrams.style import esc, num
from infra.topology.views import domain_view

# left-to-right order of kinds inside the first rack; the second rack mirrors it
RANK = {"gpu": 0, "compute_tray": 0, "nvlink_backplane": 1, "nvlink_switch_chip": 2,
        "nvlink_switch_tray": 2}


def domain_diagrams(analysis) -> list[Diagram]:
    """One diagram per distinct NVLink graph (GPU-only 'domains' are skipped).

    Domains of different layouts or pods that share one NVLink graph (same rack type,
    switch and compute trays) are drawn once, titled with how many domains and which
    layouts it stands for, so a hall of 1,000 layouts draws a handful of diagrams.
    """
    groups: dict[int, list] = {}
    for dom in analysis.bandwidth.domains:
        if dom.topology != "none":
            groups.setdefault(id(dom.graph), []).append(dom)
    out = []
    for doms in groups.values():
        dom = doms[0]
        if len(doms) == 1:
            out.append(domain_diagram(dom, states=None, title=None))
            continue
        names = ", ".join(d.name for d in doms[:3]) + (", ..." if len(doms) > 3 else "")
        head = (f"Scale-up domain shape shared by {len(doms)} domain groups ({names}): "
                f"{dom.gpus} GPUs x {sum(d.count for d in doms)} domain(s), "
                f"{dom.links_per_gpu} links = {num(dom.gbyte_s_per_gpu, 'GB/s')} per GPU per "
                f"direction, {dom.topology}")
        d = domain_diagram(dom, states=None, title=head)
        out.append(Diagram(file_stem(f"scaleup_{dom.name}_and_{len(doms) - 1}_more"), head,
                           d.source))
    return out


def node_label(n: str, d: dict) -> str:
    kind = d.get("kind", "")
    lines = [f"<b>{esc(n)}</b>", esc(style.label(kind))]
    if d.get("slug"):
        lines.append(f'<font point-size="8">{esc(d["slug"])}</font>')
    if kind == "compute_tray" and d.get("gpus"):
        lines.append(f"{d['gpus']} GPUs")
    if kind == "nvlink_switch_tray" and d.get("chips"):
        lines.append(f"{d['chips']} switch chips")
    if n == "xrack":
        lines = ["<b>xrack</b>", "cross-rack NVLink cables"]
    return "<" + "<br/>".join(lines) + ">"


def side(n: str, d: dict) -> int:
    """0 for the first rack (and tray domains), 1 for the second rack."""
    return 1 if d.get("rack") == "r1" or n.startswith("r1.") else 0


def rank(n: str, d: dict) -> int:
    if n == "xrack":
        return 3
    r = RANK.get(d.get("kind", ""), 1)
    return 6 - r if side(n, d) else r


def domain_diagram(dom, states: dict[str, str] | None, title: str | None,
                   extra: dict[str, str] | None = None, dead_via: set[str] | None = None) -> Diagram:
    """The collapsed domain; ``states`` colours nodes (failed/lost/degraded)."""
    import graphviz

    v = domain_view(dom.graph)
    states = states or {}
    extra = extra or {}
    dead_via = dead_via or set()
    head = title or (f"Scale-up domain {dom.name}: {dom.gpus} GPUs x {dom.count} domain(s), "
                     f"{dom.links_per_gpu} links = {num(dom.gbyte_s_per_gpu, 'GB/s')} per GPU "
                     f"per direction, {dom.topology}")
    racks = sorted(n for n, d in v.nodes(data=True) if d.get("kind") == "rack")
    kinds = sorted({d.get("kind", "") for _, d in v.nodes(data=True)} - {"rack", ""},
                   key=lambda k: (RANK.get(k, 1), k))  # ties by name: never set order
    edges = [(style.EDGE["color"], "NVLink: links, GB/s per direction")]
    if dead_via:
        edges.append((style.EDGE_DEAD["color"], "dashed: carried by the failed part"))
    label = style.graph_label(head, kinds, sorted(set(states.values()) & set(style.STATES) - {"ok"}),
                              edges)
    g = graphviz.Graph(file_stem(f"scaleup_{dom.name}"),
                       graph_attr={**style.GRAPH, "rankdir": "LR", "label": label,
                                   "newrank": "true"},
                       node_attr=style.NODE, edge_attr=style.EDGE)
    if not racks:
        g.node("matrix", f"<{_matrix(v, states, extra)}>", shape="plain", style="solid")
        return Diagram(g.name, head, g.source)
    drawn = [n for n, d in v.nodes(data=True) if d.get("kind") != "rack"]
    by_rack: dict[str, list[str]] = {}
    for n in drawn:
        d = v.nodes[n]
        key = d.get("rack") or (n.split(".")[0] if n.split(".")[0] in racks else "")
        by_rack.setdefault(key, []).append(n)
    for r in sorted(by_rack):
        target = g
        ctx = None
        if r:
            slug = dom.graph.nodes[r].get("slug", "")
            ctx = g.subgraph(name=f"cluster_{r}")
            target = ctx.__enter__()
            target.attr(label=esc(f"rack {r} ({slug})") + _state_suffix(states.get(r)),
                        style="rounded,filled",
                        fillcolor=style.STATES["lost"][0] if states.get(r) == "failed" else "#f7f7f7",
                        color="#969696")
        for n in sorted(by_rack[r], key=natural):
            d = v.nodes[n]
            lab = node_label(n, d)
            if n in extra:
                lab = lab[:-1] + "<br/>" + extra[n] + ">"
            if states.get(n) in style.STATE_TEXT:
                lab = lab[:-1] + f"<br/><b>{style.STATE_TEXT[states[n]]}</b>>"
            target.node(n, lab, **style.node_attrs(d.get("kind", ""), states.get(n)))
        if ctx is not None:
            ctx.__exit__(None, None, None)
    for a, b, d in sorted(v.edges(data=True), key=lambda e: (natural(e[0]), natural(e[1]))):
        if d.get("kind") != "nvlink":
            continue
        if rank(a, v.nodes[a]) > rank(b, v.nodes[b]):
            a, b = b, a
        attrs = dict(style.EDGE_DEAD) if (d.get("via") in dead_via or a in dead_via
                                          or b in dead_via) else {}
        g.edge(a, b, f"{d['links']} links\n{num(d['gbyte_s'], 'GB/s', 0)}", **attrs)
    return Diagram(g.name, head, g.source)


def _matrix(v: nx.Graph, states: dict[str, str], extra: dict[str, str]) -> str:
    """GPU x switch-chip (or GPU x GPU for a mesh) table of NVLink links and GB/s.

    A baseboard's complete bipartite wiring (8 x 4 edges) drawn as lines is a tangle.
    """
    gpus = sorted(n for n, d in v.nodes(data=True) if d.get("kind") == "gpu")
    chips = sorted(n for n, d in v.nodes(data=True) if d.get("kind") == "nvlink_switch_chip")
    cols = chips or gpus
    carrier = sorted({d.get("via", "") for _, _, d in v.edges(data=True) if d.get("via")})

    def head(n: str) -> str:
        d = v.nodes[n]
        kind = d.get("kind", "")
        f, _, font = style.STATES.get(states.get(n, "ok"), style.STATES["ok"])
        bg = f if states.get(n, "ok") != "ok" else style.fill(kind)
        more = f"<br/>{extra[n]}" if n in extra else ""
        return (f'<td bgcolor="{bg}"><font color="{font}"><b>{esc(n)}</b><br/>'
                f'<font point-size="8">{esc(d.get("slug", ""))}</font>{more}</font></td>')

    rows = [f'<tr><td bgcolor="#f0f0f0">NVLink links<br/>(GB/s per direction)<br/>'
            f'<font point-size="8">via {esc(", ".join(carrier))}</font></td>'
            + "".join(head(c) for c in cols) + "</tr>"]
    for gpu in gpus:
        cells = []
        for c in cols:
            if c != gpu and v.has_edge(gpu, c):
                d = v.edges[gpu, c]
                cells.append(f"<td>{d['links']}<br/>({num(d['gbyte_s'], '', 0)})</td>")
            else:
                cells.append('<td bgcolor="#f7f7f7"> </td>')
        rows.append("<tr>" + head(gpu) + "".join(cells) + "</tr>")
    return ('<table border="0" cellborder="1" cellspacing="0" cellpadding="4">'
            + "".join(rows) + "</table>")


def _state_suffix(state: str | None) -> str:
    return "  [FAILED]" if state == "failed" else ""


def unit_of(dom) -> dict[str, str]:
    """GPU node -> the node it is drawn in (its tray in rack domains)."""
    v_nodes = set(domain_view(dom.graph))
    return {n: (d.get("tray") if d.get("tray") in v_nodes else n)
            for n, d in dom.graph.nodes(data=True) if d.get("kind") == "gpu"}


__all__ = ["domain_diagram", "domain_diagrams", "nx", "unit_of"]
