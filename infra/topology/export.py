"""Pick a graph of a design by scope and serialise it (GraphML or node-link JSON)."""

from __future__ import annotations

import io
import json

import networkx as nx

from infra.errors import DesignError, did_you_mean
from infra.models.resolve import ResolvedDesign
from infra.topology.scaleup import scale_up_domains
from infra.topology.tray import tray_graph

SCOPES = "rack | domain | fabric[:<name>] | tray:<tray slug>"


def scoped_graph(rd: ResolvedDesign, scope: str) -> nx.Graph:
    """The graph of one ``scope``: ``domain`` (largest scale-up domain), ``rack`` (its
    first rack) or ``tray:<slug>`` (a tray type's PCIe/C2C tree)."""
    if scope.startswith("tray:"):
        slug = scope.split(":", 1)[1]
        trays = {t.slug: t for t in rd.tray_types()}
        if slug not in trays:
            raise DesignError(f"the design has no tray type {slug!r}",
                              hint=did_you_mean(slug, trays) + f"; trays: {sorted(trays)}")
        return tray_graph(trays[slug], rd.catalog)
    if scope == "fabric" or scope.startswith("fabric:"):
        return _fabric(rd, scope.partition(":")[2])
    domains = scale_up_domains(rd)
    if not domains:
        raise DesignError("the design has no GPUs, so no scale-up domain")
    dom = max(domains, key=lambda d: d.gpus)
    if scope == "domain":
        return dom.graph
    if scope == "rack":
        if dom.scope == "rack":
            return ordered_subgraph(dom.graph, [n for n in dom.graph
                                                if n == "r0" or n.startswith("r0.")])
        return _rack_of_trays(rd, dom)
    raise DesignError(f"unknown scope {scope!r}", hint=f"use {SCOPES}")


def ordered_subgraph(g: nx.Graph, keep: list) -> nx.Graph:
    """The subgraph of ``g`` induced by ``keep``, nodes in ``keep``'s order and edges in
    ``g``'s: ``nx.Graph.subgraph`` iterates a set, so its order (and the GraphML key ids
    that follow it) changed with ``PYTHONHASHSEED``.

    Examples
    --------
    >>> g = nx.path_graph(["a", "b", "c", "d"])
    >>> h = ordered_subgraph(g, ["c", "b", "a"])
    >>> list(h), list(h.edges)
    (['c', 'b', 'a'], [('c', 'b'), ('b', 'a')])
    """
    wanted = set(keep)
    h = g.__class__()
    h.graph.update(g.graph)
    h.add_nodes_from((n, dict(g.nodes[n])) for n in keep)
    h.add_edges_from((u, v, dict(d)) for u, v, d in g.edges(keep, data=True)
                     if u in wanted and v in wanted)
    return h


def _rack_of_trays(rd: ResolvedDesign, dom) -> nx.Graph:
    """First rack of a design whose domains are trays: trays joined to the rack node."""
    lname = next(n for n, c in rd.rack_counts.items() if rd.layouts[n].count("compute_tray"))
    lay = rd.layouts[lname]
    g = nx.Graph()
    g.add_node("r0", kind="rack", slug=lay.rack.slug)
    i = 0
    for item in lay.of_kind("compute_tray"):
        for _ in range(item.count):
            sub = nx.relabel_nodes(dom.graph, lambda n: n.replace("t0", f"r0.t{i}", 1))
            g.update(sub)
            g.add_edge("r0", f"r0.t{i}", kind="contains")
            i += 1
    return g


def _clean(g: nx.Graph) -> nx.Graph:
    h = g.copy()
    for _, d in h.nodes(data=True):
        for k in [k for k, v in d.items() if v is None]:
            del d[k]
    for _, _, d in h.edges(data=True):
        for k in [k for k, v in d.items() if v is None]:
            del d[k]
    return h


def to_graphml(g: nx.Graph) -> str:
    buf = io.BytesIO()
    nx.write_graphml(_clean(g), buf)
    return buf.getvalue().decode()


def to_json(g: nx.Graph) -> str:
    return json.dumps(nx.node_link_data(_clean(g), edges="edges"), indent=1) + "\n"


def _fabric(rd: ResolvedDesign, name: str) -> nx.Graph:
    from infra.analysis.network.fabric import design_fabrics
    from infra.topology.fabric_graph import fabric_graph

    fabrics = {f.name: f for f in design_fabrics(rd)}
    if not fabrics:
        raise DesignError("the design has no fabrics", hint="add a 'fabrics:' section")
    f = fabrics.get(name) if name else next(iter(fabrics.values()))
    if f is None:
        raise DesignError(f"no fabric {name!r}", hint=f"fabrics: {sorted(fabrics)}")
    return fabric_graph(f, sorted(rd.tray_counts()))
