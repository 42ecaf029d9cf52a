"""GraphML for networkx, yEd, Gephi: every element labelled and weighted, stable bytes.

Rules
-----
- Scopes: ``fabric`` (default; the aggregated fabric, one node per switch group),
  ``fabric:<name>``, ``cluster`` (every rack, tray, GPU, fabric switch and link; designs
  up to :data:`~infra.analysis.network.cluster_graph.MAX_CLUSTER_GPUS` GPUs), ``domain``,
  ``rack``, ``tray:<slug>``.
- Containment is the node attribute ``parent`` (the enclosing node's id), never an
  edge: every edge is a data link (fabric, NVLink, PCIe, C2C).
- Every node has ``label`` (host name, or name, or id) and ``weight`` = the GPUs it
  holds (a GPU 1, a tray its GPUs, a switch 0); every edge has ``label`` (its kind and
  link count) and ``weight`` = its bandwidth in Gb/s per direction (NVLink and C2C
  GB/s x 8); ``weight_unit`` in the graph data says so.
- Graph data: ``design``, ``source``, ``scope``, ``generator``, ``weight_unit``.
- Nodes and edges are written in natural-sorted id order and ``None`` values dropped,
  so reruns are byte-identical.

Examples
--------
>>> import io, networkx as nx
>>> from infra.models.resolve import load_design
>>> ex = graphml_export(load_design("designs/dgx_h100_su.yaml"), "cluster")
>>> g = nx.read_graphml(io.StringIO(ex.files[0].text))
>>> g.graph["scope"], g.nodes["su0/r0/t0"]["weight"], g.edges["su0/r0/t0", "su0.rail0.leaf0"]["weight"]
('cluster', 8, 400.0)
"""

from __future__ import annotations

import io

import networkx as nx

from infra.analysis.network.schedtopo import natural_key
from infra.exports.common import Export, ExportError, ExportFile, one_line
from infra.models.resolve import ResolvedDesign
from infra.units import gbyte_to_gbit

WEIGHT_UNIT = "nodes: GPUs held; edges: Gb/s per direction"


def graphml_export(rd: ResolvedDesign, scope: str = "fabric") -> Export:
    """One GraphML file of ``scope``, checked by reading it back."""
    if scope == "cluster":
        from infra.analysis.network.cluster_graph import cluster_graph

        g = cluster_graph(rd)
    else:
        from infra.analysis.network.fabric import design_fabrics
        from infra.topology.export import scoped_graph

        if scope.split(":")[0] == "fabric" and not design_fabrics(rd):
            raise ExportError(f"{rd.file}: design {rd.name!r} has no fabric, so --scope "
                              f"{scope} has nothing to draw",
                              hint="add a 'fabrics:' section, or use --scope domain, rack or "
                                   "cluster")
        g = scoped_graph(rd, scope)
    h = normalise(g, {"design": one_line(rd.name), "source": one_line(rd.file.name),
                      "scope": scope})  # XML holds no control characters
    buf = io.BytesIO()
    nx.write_graphml(h, buf)
    text = buf.getvalue().decode()
    check_graphml(text, h)
    name = scope.replace(":", "_")
    return Export("graphml", (ExportFile(f"graphml/{rd.file.stem}.{name}.graphml", text),))


def normalise(g: nx.Graph, meta: dict[str, str]) -> nx.Graph:
    """A copy of ``g`` with containment as ``parent``, labels, weights, scalar values."""
    parent: dict[str, str] = {n: d["parent"] for n, d in g.nodes(data=True) if d.get("parent")}
    data_edges = []
    for a, b, d in g.edges(data=True):
        if d.get("kind") == "contains":
            child, up = (b, a) if str(b).startswith(f"{a}.") or len(str(a)) < len(str(b)) else (a, b)
            parent[child] = up
        else:
            data_edges.append((a, b, d))
    gpus = {n: 1 if d.get("kind") == "gpu" else 0 for n, d in g.nodes(data=True)}
    for n in [n for n in g if gpus[n]]:
        seen = set()
        p = parent.get(n)
        while p is not None and p not in seen and p in gpus:
            seen.add(p)
            gpus[p] += 1
            p = parent.get(p)
    h = nx.Graph(**meta, generator="infra export", weight_unit=WEIGHT_UNIT,
                 **{k: _scalar(v) for k, v in sorted(g.graph.items()) if k not in meta})
    for n in sorted(g, key=lambda x: natural_key(str(x))):
        d = {k: _scalar(v) for k, v in g.nodes[n].items() if v is not None}
        d["label"] = _text(str(d.get("label") or d.get("host") or n))
        d["weight"] = gpus[n]
        if n in parent:
            d["parent"] = _text(str(parent[n]))
        h.add_node(_text(str(n)), **dict(sorted(d.items())))
    for a, b, d in sorted(data_edges, key=lambda e: (natural_key(str(min(e[0], e[1]))),
                                                      natural_key(str(max(e[0], e[1]))))):
        e = {k: _scalar(v) for k, v in d.items() if v is not None}
        e["weight"] = float(e["gbit_s"]) if "gbit_s" in e else (
            gbyte_to_gbit(float(e["gbyte_s"])) if "gbyte_s" in e else 0.0)
        e["label"] = f"{e.get('kind', 'link')} x{e.get('links', 1)}"
        x, y = sorted((_text(str(a)), _text(str(b))), key=natural_key)
        h.add_edge(x, y, **dict(sorted(e.items())))
    return h


def _scalar(v):
    if isinstance(v, (list, tuple, set)):
        return _text(",".join(str(x) for x in v))
    if isinstance(v, dict):
        return _text(",".join(f"{k}={x}" for k, x in sorted(v.items())))
    return _text(v) if isinstance(v, str) else v


def _text(s: str) -> str:
    """``s`` as XML text: XML 1.0 holds no control characters, so a name carrying one
    (a design ``name: "x\\e[31m"``) is written with escapes (:func:`one_line`)."""
    return s if s.isprintable() else one_line(s)


def check_graphml(text: str, expected: nx.Graph) -> None:
    """Read ``text`` back and compare counts and required attributes with ``expected``."""
    g = nx.read_graphml(io.StringIO(text))
    if (g.number_of_nodes(), g.number_of_edges()) != (expected.number_of_nodes(),
                                                      expected.number_of_edges()):
        raise ExportError(f"graphml read back with {g.number_of_nodes()} nodes, "
                          f"{g.number_of_edges()} edges; wrote {expected.number_of_nodes()}, "
                          f"{expected.number_of_edges()}")
    for kind, items in (("node", g.nodes(data=True)), ("edge", g.edges(data=True))):
        for *ident, d in items:
            missing = {"label", "weight"} - set(d)
            if missing:
                raise ExportError(f"graphml {kind} {ident}: missing {sorted(missing)}")
            if d.get("kind") == "contains":
                raise ExportError(f"graphml edge {ident}: containment must be 'parent', not an edge")
