"""The one style table for every diagram: shape and colours per node kind and state.

Colours are ColorBrewer pastels (print and colour-blind friendly enough to tell kinds
apart; states use saturated red/orange so a fault stands out). Change a look here and
every diagram follows.
"""

from __future__ import annotations

FONT = "Helvetica"

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
    "tier": ("box", "#a1d99b", "tier"),
    "endpoints": ("box", "#74c476", "GPUs"),
    "empty": ("box", "#ffffff", "empty"),
}
DEFAULT = ("box", "#ffffff", "")

# state -> (fill colour, border colour, font colour)
STATES: dict[str, tuple[str, str, str]] = {
    "failed": ("#cb181d", "#67000d", "#ffffff"),
    "lost": ("#fc9272", "#cb181d", "#000000"),
    "degraded": ("#fed976", "#fd8d3c", "#000000"),
    "ok": ("#ffffff", "#000000", "#000000"),
}
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
        attrs.update(fillcolor=f, color=border, fontcolor=font, penwidth="2")
    return attrs


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
