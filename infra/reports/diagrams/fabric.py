"""Scale-out fabric overview, collapsed by hierarchy: GPUs -> tier 1 -> tier 2 -> ...

Drawn from the ``fabric`` table when the analysis has one (one row per tier, bottom-up:
``tier``, ``switches``, ``links``, ...). Every tier is one node with its counts, so the
drawing has as many nodes as tiers whatever the cluster size (100k GPUs included).
Each row's link/cable columns label the edge to the tier below it (the first tier's,
the edge to the GPUs). Without a ``fabric`` table no diagram is drawn.
"""

from __future__ import annotations

from infra.reports.diagrams import Diagram, style
from infra.reports.diagrams.style import esc

EDGE_WORDS = ("link", "cable", "optic")
NAME_KEYS = ("tier", "name", "level")


def fabric_diagram(data: dict) -> Diagram | None:
    rows = data.get("tables", {}).get("fabric")
    if not rows:
        return None
    import graphviz

    head = f"Scale-out fabric: {data['design']['name']}"
    g = graphviz.Digraph("fabric", graph_attr={**style.GRAPH, "rankdir": "BT", "label": esc(head)},
                         node_attr=style.NODE, edge_attr={**style.EDGE, "dir": "none"})
    gpus = data.get("metrics", {}).get("gpus")
    g.node("gpus", f"<<b>GPUs</b><br/>{gpus:,}>" if isinstance(gpus, int) else "GPUs",
           **style.node_attrs("endpoints"))
    below = "gpus"
    for i, row in enumerate(rows):
        name = next((str(row[k]) for k in NAME_KEYS if row.get(k) not in (None, "")), f"tier {i + 1}")
        node = f"tier{i}"
        lines = [f"<b>{esc(name)}</b>"] + [f"{esc(k)}: {esc(_fmt(v))}" for k, v in row.items()
                                           if k not in NAME_KEYS and not _is_edge(k) and v not in (None, "")]
        g.node(node, "<" + "<br/>".join(lines) + ">", **style.node_attrs("tier"))
        label = "\n".join(f"{k}: {_fmt(v)}" for k, v in row.items() if _is_edge(k) and v not in (None, ""))
        g.edge(below, node, label)
        below = node
    return Diagram("fabric", head, g.source)


def _is_edge(key: str) -> bool:
    return any(w in key for w in EDGE_WORDS)


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:,.2f}".rstrip("0").rstrip(".")
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)
