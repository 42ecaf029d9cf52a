"""Rack elevations: every rack layout's front view by U, like NetBox's elevations."""

from __future__ import annotations

from infra.analysis.elevation import RackElevation, rack_elevations
from infra.reports.diagrams import Diagram, style
from infra.reports.diagrams.style import esc, num

ROW_PX = 16


def rack_elevations_diagram(analysis) -> Diagram:
    """One diagram with every rack layout side by side, kW and liquid/air heat per rack."""
    import graphviz

    g = graphviz.Graph("rack_elevations", graph_attr={**style.GRAPH, "rankdir": "LR",
                                                      "nodesep": "0.5",
                                                      "label": esc(f"Rack elevations: {analysis.rd.name}")},
                       node_attr={"fontname": style.FONT, "shape": "plain"})
    for e in rack_elevations(analysis.rd, analysis.power):
        g.node(f"rack_{e.layout}", f"<{_rack_table(e)}>")
    return Diagram("rack_elevations", "Rack elevations", g.source)


def _rack_table(e: RackElevation) -> str:
    head = (f"<b>{esc(e.layout)}</b> x {e.racks}<br/>{esc(e.rack_type)}, {e.u_height}U "
            f"({num(e.used_u, 'U', 0)} used)<br/>IT {num(e.it_kw, 'kW')} per rack: "
            f"liquid {num(e.liquid_kw, 'kW')}, air {num(e.air_kw, 'kW')}")
    rows = [f'<tr><td colspan="2" bgcolor="#f0f0f0">{head}</td></tr>']
    by_top = {}
    for s in e.slots:
        if s.position_u is not None:
            by_top[s.position_u + int(round(s.height_u)) - 1] = s
    u = e.u_height
    covered_until = u + 1
    while u >= 1:
        s = by_top.get(u)
        cell = ""
        if s is not None:
            h = int(round(s.height_u))
            kw = "" if s.power_w == 0 else f"  {num(None if s.power_w is None else s.power_w / 1000, 'kW', 2)}"
            role = f" ({esc(s.role)})" if s.role else ""
            text = f"{esc(style.label(s.kind))}{role}: {esc(s.slug)}{kw}"
            cell = (f'<td rowspan="{h}" bgcolor="{style.fill(s.kind)}" width="330" '
                    f'height="{ROW_PX * h}" align="left">{text}</td>')
            covered_until = u - h + 1
        elif u < covered_until:
            cell = f'<td bgcolor="#ffffff" width="330" height="{ROW_PX}"> </td>'
        rows.append(f'<tr><td width="28" bgcolor="#e0e0e0"><font point-size="8">U{u}</font></td>{cell}</tr>')
        u -= 1
    zero = [s for s in e.slots if s.position_u is None]
    if zero:
        names = sorted({f"{sum(1 for z in zero if z.slug == s.slug)} x {style.label(s.kind)}: {s.slug}"
                        for s in zero})
        rows.append(f'<tr><td colspan="2" align="left">0U / beside the rack: '
                    f'{"<br/>".join(esc(n) for n in names)}</td></tr>')
    return ('<table border="0" cellborder="1" cellspacing="0" cellpadding="2">'
            + "".join(rows) + "</table>")
