"""Rack elevations, NetBox-style: one rack per distinct layout, front and rear faces.

Each drawing names the rack instances built from the layout (as in the cabling plan and
the scale-up diagrams), shows every U from the top (U1 at the bottom, free U labelled),
the front face with each unit's kind, slug and power, the rear face (full-depth units
seen from behind, and what is mounted at the back: NVLink cable cartridge, busbar,
manifolds, 0U PDUs), and a footer with kW, weight and U used / free per rack.
"""

from __future__ import annotations

from infra.analysis.layout.elevation import RackElevation, rack_elevations
from infra.analysis.layout.placement import network_elevations
from infra.analysis.layout.rack_faces import RackFaces, network_faces, rack_faces
from infra.reports.diagrams import style
from infra.reports.diagrams.base import Diagram
from infra.reports.diagrams.style import esc, num

ROW_PX = 16
PER_ROW = 2  # layouts side by side before wrapping to the next row
PER_PAGE = 10  # layouts per drawing (about 150 kB of DOT, 0.1 s to render as SVG)
SHOW_NAMES = 8  # instance names listed in full up to this many
REAR_FILL = "#eeeeee"


def rack_elevation_diagrams(analysis, per_page: int | None = PER_PAGE,
                            build: int | None = None) -> list[Diagram]:
    """The distinct rack layouts, front and rear, ``per_page`` layouts per drawing.

    A hall of 1,000 layouts gives 100 drawings of 10 racks (``rack_elevations_p001``
    ...), each rendered on its own, rather than one 15 MB graph that takes a minute to
    lay out; a design of up to ``per_page`` layouts keeps its one ``rack_elevations``.
    Each layout's drawing names the rack instances built from it. ``build``: draw only
    the first ``build`` pages; the others come back named, with no DOT text (``source``
    ``""``), for a workbook that embeds at most the first page.
    """
    faces = {f.layout: f for f in rack_faces(analysis.rd)}
    elevations = [e for e in rack_elevations(analysis.rd, analysis.power) if e.layout in faces]
    network = network_elevations(analysis.rd)  # counted from templates, not placed
    faces.update((f.layout, f) for f in network_faces(network))
    elevations += network
    kinds = sorted({s.kind for e in elevations for s in e.slots}
                   | {r.kind for f in faces.values() for r in f.rear})
    n = per_page or max(1, len(elevations))
    pages = [elevations[i:i + n] for i in range(0, len(elevations), n)] or [[]]
    if len(pages) == 1:
        return [_page(analysis, pages[0], faces, kinds, "rack_elevations", "Rack elevations", "")]
    out = []
    for k, page in enumerate(pages):
        first = k * n + 1
        span = f"layouts {first:,}-{first + len(page) - 1:,} of {len(elevations):,}"
        name, title = f"rack_elevations_p{k + 1:03d}", f"Rack elevations, {span}"
        out.append(_page(analysis, page, faces, kinds, name, title, f" ({span})")
                   if build is None or k < build else Diagram(name, title, ""))
    return out


def _page(analysis, elevations: list, faces: dict, kinds: list, name: str, title: str,
          span: str) -> Diagram:
    import graphviz

    label = style.graph_label(f"Rack elevations of {analysis.rd.name}{span}: one drawing per "
                              "distinct rack layout, front and rear; U1 at the bottom",
                              kinds + ["empty"])
    g = graphviz.Digraph("rack_elevations", graph_attr={**style.GRAPH, "rankdir": "TB",
                                                        "nodesep": "0.5", "label": label},
                         node_attr={"fontname": style.FONT, "shape": "plain", "fontsize": "10"},
                         edge_attr={"style": "invis"})
    rows = [elevations[i:i + PER_ROW] for i in range(0, len(elevations), PER_ROW)]
    for r, row in enumerate(rows):
        with g.subgraph(name=f"row{r}") as sub:
            sub.attr(rank="same")
            for e in row:
                sub.node(_node(e, faces), f"<{rack_table(e, faces[e.layout])}>")
        if r:
            g.edge(_node(rows[r - 1][0], faces), _node(row[0], faces))
    return Diagram(name, title, g.source)


def _node(e: RackElevation, faces: dict) -> str:
    """The DOT node of a layout (network racks: by their switches, no ':' or spaces)."""
    if faces[e.layout].names.first:
        return f"rack_{e.layout}"
    return "netrack_" + "_".join(f"{s.position_u}_{s.slug}" for s in e.slots)


def _names(f: RackFaces) -> str:
    """``a, b, c`` up to SHOW_NAMES names, else ``first 4, ..., last (N racks)``; network
    racks by count, with where the cabling plan puts them."""
    if not f.names.first:
        return f"{f.names.shown()}; cabling plan names: <SU>/n<k>, network/n<k>"
    return f.names.shown(SHOW_NAMES)


def rack_table(e: RackElevation, f: RackFaces) -> str:
    """HTML table: U | front | rear | one column per rear-mounted item."""
    strips = list(f.rear)
    ncol = 3 + len(strips)
    cdu = [(it.bottom_u, it.top_u) for it in strips  # a CDU of unknown height in the free U
           if it.kind == "cooling_unit" and "height unpublished" in it.label]
    head = (f"<b>{esc(e.layout)}</b>: {e.racks:,} rack(s) of {esc(e.rack_type)}, {e.u_height}U"
            f"<br/>{esc(_names(f))}")
    rows = [f'<tr><td colspan="{ncol}" bgcolor="#f0f0f0">{head}</td></tr>',
            '<tr><td bgcolor="#e0e0e0"><font point-size="8">U</font></td><td><b>front</b></td>'
            '<td><b>rear</b></td>'
            + "".join('<td><font point-size="7">rear<br/>mount</font></td>' for _ in strips)
            + "</tr>"]
    by_top = {s.position_u + int(round(s.height_u)) - 1: s for s in e.slots
              if s.position_u is not None}
    covered = e.u_height + 1
    tray = 0  # compute trays are t0, t1, ... from the top, as in identity and the cabling plan
    for u in range(e.u_height, 0, -1):
        cells = [f'<td width="28" bgcolor="#e0e0e0"><font point-size="8">U{u}</font></td>']
        s = by_top.get(u)
        if s is not None:
            h = int(round(s.height_u))
            name = None
            if s.kind == "compute_tray":
                name, tray = f"t{tray}", tray + 1
            cells += [_front(s, h, name), f'<td rowspan="{h}" bgcolor="{REAR_FILL}" width="120" '
                                    f'align="left"><font point-size="8">rear of '
                                    f'{esc(style.label(s.kind))}</font></td>']
            covered = u - h + 1
        elif u < covered:
            free = "free" if not any(lo <= u <= hi for lo, hi in cdu) else \
                "free, or the in-rack CDU (its height is unpublished)"
            cells += [f'<td width="300" height="{ROW_PX}" align="left"><font point-size="8" '
                      f'color="#969696">{free}</font></td>', '<td width="120"> </td>']
        for it in strips:
            if u == it.top_u:
                cells.append(f'<td rowspan="{it.top_u - it.bottom_u + 1}" width="56" '
                             f'bgcolor="{style.fill(it.kind)}"><font point-size="7">'
                             f'{_stack(style.label(it.kind) + ": " + it.slug if it.slug else it.label)}'
                             '</font></td>')
            elif not it.bottom_u <= u <= it.top_u:
                cells.append('<td width="56"> </td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    foot = (f"per rack: IT {num(e.it_kw, 'kW')} (liquid {num(e.liquid_kw, 'kW')}, air "
            f"{num(e.air_kw, 'kW')}); weight {_kg(f.weight_kg)}; "
            f"{num(f.used_u, 'U', 0)} used, {num(f.free_u, 'U', 0)} free of {e.u_height}U")
    rows.append(f'<tr><td colspan="{ncol}" bgcolor="#f0f0f0" align="left">{esc(foot)}</td></tr>')
    return ('<table border="0" cellborder="1" cellspacing="0" cellpadding="2">'
            + "".join(rows) + "</table>")


def _front(s, h: int, name: str | None = None) -> str:
    kw = "" if s.power_w == 0 else f"  {num(None if s.power_w is None else s.power_w / 1000, 'kW', 2)}"
    role = f" ({esc(s.role)})" if s.role else ""
    text = f"{esc(style.label(s.kind))}{role}: {esc(s.slug)}{kw}"
    if name:
        text = f"<b>{esc(name)}</b> {text}"
    return (f'<td rowspan="{h}" bgcolor="{style.fill(s.kind)}" width="300" '
            f'height="{ROW_PX * h}" align="left">{text}</td>')


def _stack(label: str) -> str:
    """A long label broken into short lines for a narrow rear-mount column."""
    import textwrap

    return "<br/>".join(esc(t) for t in textwrap.wrap(label, 12, break_on_hyphens=True,
                                                       break_long_words=False))


def _kg(kg: float | None) -> str:
    return "unknown (not in the catalog)" if kg is None else num(kg, "kg", 0)
