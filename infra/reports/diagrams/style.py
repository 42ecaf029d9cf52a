"""The one style table for every diagram: shape and colours per node kind and state.

Colours are ColorBrewer pastels (print and colour-blind friendly enough to tell kinds
apart; states use saturated red/orange so a fault stands out). Change a look here and
every diagram follows.
"""

from __future__ import annotations

FONT = "Helvetica"  # layout metrics; the SVG names metric-compatible fallbacks (FONT_STACK)
FONT_STACK = "Helvetica, Arial, 'Liberation Sans', 'Nimbus Sans', 'Nimbus Sans L', sans-serif"
TITLE_CHARS = 100  # titles wrap at this many characters (never wider than the drawing)

# kind -> (shape, fill colour, short label)
KINDS: dict[str, tuple[str, str, str]] = {
    "rack": ("box3d", "#f0f0f0", "rack"),
    "compute_tray": ("box", "#9ecae1", "compute tray"),
    "nvlink_switch_tray": ("box", "#fdae6b", "NVLink switch tray"),
    "nvlink_switch_chip": ("box", "#fdd0a2", "NVLink switch chip"),
    "nvlink_backplane": ("cylinder", "#bcbddc", "NVLink cables"),
    "network_switch": ("box", "#a1d99b", "network switch"),
    "rack_unit": ("box", "#c7e9c0", "rack unit"),
    "power_shelf": ("box", "#fee391", "power shelf"),
    "pdu": ("box", "#fee391", "PDU"),
    "cooling_unit": ("box", "#c6dbef", "cooling unit"),
    "gpu": ("box", "#74c476", "GPU"),
    "cpu": ("box", "#6baed6", "CPU"),
    "superchip": ("box", "#deebf7", "superchip"),
    "c2c": ("ellipse", "#dadaeb", "NVLink-C2C"),
    "pcie_switch": ("box", "#d9d9d9", "PCIe switch"),
    "nic": ("box", "#fcbba1", "NIC"),
    "tier": ("box", "#a1d99b", "switch group (tier)"),
    "endpoints": ("box", "#74c476", "GPUs"),
    "empty": ("box", "#ffffff", "free U"),
}
DEFAULT = ("box", "#ffffff", "")

# state -> (fill colour, border colour, font colour)
STATES: dict[str, tuple[str, str, str]] = {
    "failed": ("#cb181d", "#67000d", "#ffffff"),
    "lost": ("#fc9272", "#cb181d", "#000000"),
    "degraded": ("#fed976", "#fd8d3c", "#000000"),
    "ok": ("#ffffff", "#000000", "#000000"),
}
# a state is told by its border and marker text as well as its colour (colour-blind safe)
STATE_MARKS: dict[str, dict[str, str]] = {
    "failed": {"style": "filled,diagonals,bold", "peripheries": "2"},
    "lost": {"style": "filled,dashed,bold"},
    "degraded": {"style": "filled,dotted,bold"},
}
STATE_TEXT = {"failed": "FAILED", "lost": "LOST", "degraded": "DEGRADED"}
EDGE = {"color": "#525252", "fontsize": "9", "fontname": FONT}
EDGE_HOT = {"color": "#cb181d", "penwidth": "2.5", "fontcolor": "#cb181d"}  # over-subscribed
EDGE_DEAD = {"color": "#cb181d", "style": "dashed"}  # carried by a failed component
GRAPH = {"fontname": FONT, "fontsize": "12", "labelloc": "t", "nodesep": "0.25",
         "ranksep": "0.6", "pad": "0.2"}
NODE = {"fontname": FONT, "fontsize": "10", "style": "filled", "penwidth": "1"}


def shape(kind: str) -> str:
    return KINDS.get(kind, DEFAULT)[0]


def fill(kind: str) -> str:
    return KINDS.get(kind, DEFAULT)[1]


def label(kind: str) -> str:
    return KINDS.get(kind, DEFAULT)[2] or kind.replace("_", " ")


def node_attrs(kind: str, state: str | None = None) -> dict[str, str]:
    """Graphviz node attributes for ``kind``, overridden by a fault ``state``."""
    attrs = {"shape": shape(kind), "fillcolor": fill(kind)}
    if state and state != "ok":
        f, border, font = STATES[state]
        attrs.update(fillcolor=f, color=border, fontcolor=font, penwidth="2",
                     **STATE_MARKS.get(state, {}))
        if attrs["shape"] != "box":  # Graphviz draws diagonals (corner marks) on boxes only
            attrs["style"] = attrs.get("style", "filled").replace(",diagonals", "")
    return attrs


def title_lines(title: str, width: int = TITLE_CHARS) -> list[str]:
    """The title wrapped at ``width`` characters (a long title never widens a drawing)."""
    import textwrap

    return textwrap.wrap(str(title), width) or [""]


def graph_label(title: str, kinds: list[str] = (), states: list[str] = (),
                edges: list[tuple[str, str]] = ()) -> str:
    """HTML-like graph label: the wrapped title over a legend of the kinds, states and
    edge styles the drawing uses (swatches in rows of four)."""
    head = "<br/>".join(f"<b>{esc(t)}</b>" for t in title_lines(title))
    items = [(fill(k), "#000000", label(k), "") for k in dict.fromkeys(kinds)]
    items += [(STATES[s][0], STATES[s][1], f"{STATE_TEXT[s]} ({s})",
               STATE_MARKS.get(s, {}).get("style", "")) for s in dict.fromkeys(states)]
    cells = [f'<td bgcolor="{f}" border="1" color="{b}" width="14">'
             f'{"&#9587;" if "diagonals" in sty else " "}</td><td align="left">{esc(t)}</td>'
             for f, b, t, sty in items]
    cells += [f'<td width="14"><font color="{c}"><b>&#8212;</b></font></td>'
              f'<td align="left">{esc(t)}</td>' for c, t in edges]
    rows = ["<tr>" + "".join(cells[i:i + 4]) + "</tr>" for i in range(0, len(cells), 4)]
    legend = ""
    if rows:
        legend = ('<tr><td align="left"><table border="0" cellborder="0" cellspacing="2" '
                  'cellpadding="1"><tr><td align="left" colspan="8"><i>Legend</i></td></tr>'
                  + "".join(rows) + "</table></td></tr>")
    return (f'<<table border="0" cellborder="0" cellspacing="0"><tr><td>{head}</td></tr>'
            f"{legend}</table>>")


def esc(text: object) -> str:
    """Escape text for an HTML-like label."""
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def num(x: float | None, unit: str = "", nd: int = 1) -> str:
    """``1,800 GB/s``; ``?`` when unknown (never a made-up zero)."""
    if x is None:
        return f"? {unit}".strip()
    text = f"{x:,.{nd}f}".rstrip("0").rstrip(".") if nd else f"{x:,.0f}"
    return f"{text} {unit}".strip()


def svg_font_stack(svg: str) -> str:
    """Replace Graphviz's ``Helvetica,sans-Serif`` by metric-compatible fallbacks, so text
    laid out with Helvetica metrics stays inside its boxes where Helvetica is missing.

    Examples
    --------
    >>> "Arial, &apos;Liberation Sans&apos;" in svg_font_stack('font-family="Helvetica,sans-Serif"')
    True
    """
    stack = FONT_STACK.replace("'", "&apos;")
    return svg.replace('font-family="Helvetica,sans-Serif"', f'font-family="{stack}"')
