"""Tray internals: CPUs, GPUs, PCIe switches, NICs and their logical interfaces.

Every PCIe link is labelled generation x lanes and usable GB/s per direction; links and
NIC ports whose line-rate demand exceeds capacity (the PCIe contention analysis,
:mod:`infra.analysis.network.pcie`) are drawn red with demand / capacity.
"""

from __future__ import annotations

from infra.reports.diagrams import style
from infra.reports.diagrams.base import Diagram, file_stem
from infra.reports.diagrams.style import esc, num
from infra.topology.tray import tray_graph

ORDER = {"cpu": 0, "c2c": 1, "gpu": 2, "pcie_switch": 3, "nic": 4}


def tray_diagrams(analysis) -> list[Diagram]:
    """One diagram per compute tray type of the design."""
    return [tray_diagram(analysis, t.slug) for t in analysis.rd.tray_types()]


def tray_diagram(analysis, slug: str, states: dict[str, str] | None = None,
                 title: str | None = None, extra: dict[str, str] | None = None) -> Diagram:
    import graphviz

    cat = analysis.rd.catalog
    tray = cat.get(slug)
    g = tray_graph(tray, cat)
    tc = analysis.bandwidth.contention[slug]
    states, extra = states or {}, extra or {}
    loads = {l.link: l for l in tc.links}
    hot = {k for k, l in loads.items() if l.oversubscription > 1 + 1e-9}
    head = title or (f"Tray internals {slug}: PCIe / NVLink-C2C per direction; red = "
                     "over-subscribed with every GPU and CPU driving its NIC interfaces at line rate")
    kinds = sorted({d["kind"] for _, d in g.nodes(data=True)} - {"nvlink_switch_chip"},
                   key=lambda k: (ORDER.get(k, 5), k))  # ties by name, not set order
    edges = [(style.EDGE["color"], "PCIe gen x lanes, GB/s per direction")]
    if hot:
        edges.append((style.EDGE_HOT["color"], "over-subscribed: demand / capacity"))
    label = style.graph_label(head, kinds, sorted(set(states.values()) - {"ok"}), edges)
    # left to right, so each CPU / superchip group with its switches and NICs is one row
    dg = graphviz.Digraph(file_stem(f"tray_{slug}"),
                          graph_attr={**style.GRAPH, "rankdir": "LR", "label": label},
                          node_attr=style.NODE, edge_attr={**style.EDGE, "dir": "none"})
    supers = sorted(n for n, d in g.nodes(data=True) if d["kind"] == "superchip")
    inside = {m for s in supers for m in g.neighbors(s) if g.edges[s, m]["kind"] == "contains"}
    inside |= {n for n, d in g.nodes(data=True) if d["kind"] == "c2c" and n.split(".")[0] in supers}
    for s in supers:
        with dg.subgraph(name=f"cluster_{s}") as c:
            c.attr(label=esc(f"{s}: {g.nodes[s]['slug']}"), style="rounded,filled",
                   fillcolor=style.fill("superchip"), color="#9ecae1")
            for n in sorted(m for m in inside if m.startswith(s + ".")):
                _node(c, g, n, states, extra)
    for n in sorted(g):
        kind = g.nodes[n]["kind"]
        if n in inside or kind in ("superchip", "nvlink_switch_chip"):  # chips: scale-up diagram
            continue
        if kind == "nic":
            dg.node(n, f"<{_nic_table(n, g.nodes[n], cat, tc, loads, hot, states)}>",
                    shape="plain", style="solid")
        else:
            _node(dg, g, n, states, extra)
    for a, b, d in sorted(g.edges(data=True)):
        if d["kind"] == "contains":
            continue
        if ORDER.get(g.nodes[a]["kind"], 5) > ORDER.get(g.nodes[b]["kind"], 5):
            a, b = b, a
        key = " -- ".join(sorted((a, b)))
        if d["kind"] == "c2c":
            text = f"C2C {num(d['gbyte_s'], 'GB/s', 0)}"
        elif d["kind"] == "on_die":  # ports on the GPU's own die (Gaudi 3): no PCIe
            text = "on die"
        else:
            text = f"Gen{d['gen']} x{d['lanes']}\n{num(d['gbyte_s'], 'GB/s')}"
        attrs = {}
        if key in hot:
            l = loads[key]
            text += f"\n{num(l.demand_gbit_s, '', 0)} / {num(l.capacity_gbit_s, 'Gb/s', 0)} = {l.oversubscription:.2f}x"
            attrs = dict(style.EDGE_HOT)
        if states.get(a) == "failed" or states.get(b) == "failed":
            attrs.update(style.EDGE_DEAD)
        head_port = d.get("host_link") if g.nodes[b]["kind"] == "nic" and d.get("host_link") else None
        dg.edge(a, f"{b}:{head_port}" if head_port else b, text, **attrs)
    return Diagram(dg.name, head, dg.source)


def _node(target, g, n: str, states: dict, extra: dict) -> None:
    d = g.nodes[n]
    kind = d["kind"]
    lines = [f"<b>{esc(n)}</b>", esc(style.label(kind))]
    if d.get("slug"):
        lines.append(f'<font point-size="8">{esc(d["slug"])}</font>')
    if n in extra:
        lines.append(extra[n])
    if states.get(n) in style.STATE_TEXT:
        lines.append(f"<b>{style.STATE_TEXT[states[n]]}</b>")
    if kind == "c2c":
        lines = ["NVLink-C2C"]
    target.node(n, "<" + "<br/>".join(lines) + ">", **style.node_attrs(kind, states.get(n)))


def _nic_table(n: str, d: dict, cat, tc, loads, hot, states) -> str:
    nic = cat.get(d["slug"])
    state = states.get(n, "ok")
    bg = style.STATES[state][0] if state != "ok" else style.fill("nic")
    font = style.STATES[state][2]
    rows = [f'<tr><td colspan="3" bgcolor="{bg}"><font color="{font}"><b>{esc(n)}</b> '
            f'{esc(nic.role.upper())} ({esc(d.get("network", ""))})<br/>'
            f'<font point-size="8">{esc(nic.slug)}</font>'
            f'{"  [FAILED]" if state == "failed" else ""}</font></td></tr>']
    for h in nic.host_links:
        rows.append(f'<tr><td port="{esc(h.name)}" colspan="3" bgcolor="#fee0d2">host link '
                    f'{esc(h.name)}: Gen{h.gen} x{h.lanes}</td></tr>')
    flows = {f.interface: (i, f) for i, f in enumerate(tc.flows) if f.nic == n}
    for i in nic.interfaces:
        hit = flows.get(i.name)
        who = (f"by {esc(hit[1].source)}: gets {num(tc.allocation[hit[0]], '', 0)}" if hit
               else "unassigned")
        rows.append(f"<tr><td>{esc(i.name)} (port {esc(i.port)})</td><td>{num(i.gbit_s, 'Gb/s', 0)}</td>"
                    f"<td>{who}</td></tr>")
    for p in nic.ports:
        key = f"{n}.{p.name}"
        if key in hot:
            l = loads[key]
            rows.append(f'<tr><td colspan="3"><font color="#cb181d">port {esc(p.name)} '
                        f"{num(p.gbit_s, 'Gb/s', 0)}: demand {num(l.demand_gbit_s, '', 0)} = "
                        f"{l.oversubscription:.2f}x</font></td></tr>")
        else:
            rows.append(f'<tr><td colspan="3">port {esc(p.name)} {num(p.gbit_s, "Gb/s", 0)}</td></tr>')
    return ('<table border="0" cellborder="1" cellspacing="0" cellpadding="2" bgcolor="white">'
            + "".join(rows) + "</table>")
