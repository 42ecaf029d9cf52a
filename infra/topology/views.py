"""Collapsed views of topology graphs, small enough to draw.

A GB200 NVL72 domain graph has 72 GPUs x 18 switch chips = 1,296 NVLink edges; drawn as
is it is unreadable (the mingrammer/diagrams failure mode past ~80 nodes). The view
folds GPUs into their compute tray and switch chips into their switch tray, and routes
every NVLink edge through the physical carrier it depends on (a rack's cable cartridge
``<rack>.backplane`` or the cross-rack cable set ``xrack``)::

    [r0.t0]==72 links==(r0.backplane)==144 links==[r0.s0]==72 links==(xrack)==[r1.s0]

Tray-level domains (an HGX baseboard) are already small and keep GPU-to-chip edges.
"""

from __future__ import annotations

import weakref

import networkx as nx

UNIT_KINDS = ("compute_tray", "nvlink_switch_tray")
_VIEWS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # graph -> its frozen view


def domain_view(g: nx.Graph) -> nx.Graph:
    """Collapse a scale-up domain graph (:mod:`infra.topology.scaleup`) for drawing.

    Returns
    -------
    networkx.Graph
        Nodes keep ``kind``, ``slug`` and ``rack``; a unit node gets ``gpus`` (GPUs
        folded into it) and ``chips``. NVLink edges carry ``links`` and ``gbyte_s``
        (per direction) summed over the folded edges, and ``via``. The view is built
        once per graph (domain graphs do not change after they are built) and frozen
        (``nx.freeze``): copy it to change it.

    Examples
    --------
    >>> from infra.models.resolve import load_design
    >>> from infra.topology.scaleup import scale_up_domains
    >>> v = domain_view(scale_up_domains(load_design("designs/aws_nvl36x2.yaml"))[0].graph)
    >>> v.edges["r0.t0", "r0.backplane"]["links"], v.edges["r0.s0", "xrack"]["links"]
    (72, 72)
    """
    view = _VIEWS.get(g)
    if view is None:
        view = _VIEWS[g] = nx.freeze(_collapse(g))
    return view


def _collapse(g: nx.Graph) -> nx.Graph:
    racked = any(d.get("kind") == "rack" for _, d in g.nodes(data=True))
    unit = {n: _unit(g, n) if racked else n for n in g}
    v = nx.Graph()
    for n, d in sorted(g.nodes(data=True)):
        u = unit[n]
        if u == n:
            v.add_node(n, **{k: d[k] for k in ("kind", "slug", "rack") if k in d},
                       gpus=0, chips=0)
    for n, d in g.nodes(data=True):
        if unit[n] != n and d.get("kind") == "gpu":
            v.nodes[unit[n]]["gpus"] += 1
        elif unit[n] != n and d.get("kind") == "nvlink_switch_chip":
            v.nodes[unit[n]]["chips"] += 1
        elif unit[n] == n and d.get("kind") == "gpu":
            v.nodes[n]["gpus"] = 1
    for a, b, d in sorted(g.edges(data=True)):
        if d.get("kind") == "contains":
            if racked and g.nodes[a]["kind"] == "rack" and unit[b] == b:
                v.add_edge(a, b, kind="contains")
            continue
        if d.get("kind") != "nvlink":
            continue
        via = d.get("via")
        pairs = [(unit[a], via), (via, unit[b])] if racked and via in v else [(unit[a], unit[b])]
        for x, y in pairs:
            if v.has_edge(x, y):
                e = v.edges[x, y]
                e["links"] += d["links"]
                e["gbyte_s"] += d["gbyte_s"]
            else:
                v.add_edge(x, y, kind="nvlink", links=d["links"], gbyte_s=d["gbyte_s"], via=via)
    return v


def _unit(g: nx.Graph, n: str) -> str:
    if g.nodes[n].get("kind") not in ("gpu", "nvlink_switch_chip"):
        return n
    for m in g.neighbors(n):
        if g.edges[n, m].get("kind") == "contains" and g.nodes[m].get("kind") in UNIT_KINDS:
            return m
    return n
