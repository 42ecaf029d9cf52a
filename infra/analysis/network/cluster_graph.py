"""The whole cluster as one graph: every rack, tray, GPU, fabric switch and fabric link.

Per instance by nature, so it is built only for designs up to :data:`MAX_CLUSTER_GPUS`
GPUs (larger designs: the per-shape scopes of :mod:`infra.topology.export`).

- Nodes: ``cluster``; pod instances, racks and trays by design path (``su0``,
  ``su0/r3``, ``su0/r3/t5``); GPUs ``<tray>/<instance>`` (``su0/r3/t5/sc0.gpu1``);
  fabric switches by their cabling-plan names (``su0.rail2.leaf1``, ``spine7``).
  Containment is the ``parent`` attribute (the id of the enclosing node), never an
  edge; trays carry ``host`` (the node's host name) and ``u``.
- Edges: data links only, ``kind="fabric"``, with ``links`` (parallel links, e.g. two
  leaf uplinks to one spine) and ``gbit_s`` (links x link rate, per direction).
  NVLink inside domains is not listed here (``--scope domain`` draws one domain).

Examples
--------
>>> from infra.models.resolve import load_design
>>> g = cluster_graph(load_design("designs/dgx_h100_su.yaml"))
>>> g.number_of_nodes(), g.number_of_edges()  # 1 + 1 pod + 8 racks + 32 + 256 GPUs + 12 switches
(310, 288)
>>> g.nodes["su0/r0/t0"]["host"], g.edges["su0/r0/t0", "su0.rail0.leaf0"]["links"]
('r001n01', 1)
"""

from __future__ import annotations

import networkx as nx

from infra.analysis.network.attach import core_of, leaf_ports, spine_of
from infra.analysis.network.fabric import design_fabrics
from infra.analysis.layout.identity import DEFAULT_HOST_PATTERN, node_identities, rack_instances
from infra.errors import DesignError
from infra.models.resolve import ResolvedDesign

MAX_CLUSTER_GPUS = 4096


def cluster_graph(rd: ResolvedDesign, pattern: str = DEFAULT_HOST_PATTERN,
                  max_gpus: int = MAX_CLUSTER_GPUS) -> nx.Graph:
    """Graph of every instance of ``rd`` (see the module notes)."""
    gpus = sum(n * rd.tray_layout(s).count("gpu")
               for s, n in rd.tray_counts().items())
    if gpus > max_gpus:
        raise DesignError(f"{rd.file}: the cluster scope lists every GPU and switch, so it is "
                          f"limited to {max_gpus:,} GPUs; this design has {gpus:,}",
                          hint="use --scope fabric (aggregated) or domain / rack / tray:<slug>")
    g = nx.Graph(design=rd.name, scope="cluster")
    g.add_node("cluster", kind="cluster", label=rd.name)
    for rack in rack_instances(rd):
        parent = "cluster"
        for _, path in rack.pods:
            g.add_node(path, kind="pod", parent=parent)
            parent = path
        g.add_node(rack.path, kind="rack", slug=rd.layouts[rack.layout].rack.slug,
                   layout=rack.layout, parent=parent)
    ids = node_identities(rd, pattern)
    for n in ids:
        g.add_node(n.path, kind="compute_tray", slug=n.tray, host=n.name, u=n.u or 0,
                   parent=n.rack, domain=n.domain)
        for inst in rd.tray_layout(n.tray).of_kind("gpu"):
            g.add_node(f"{n.path}/{inst.name}", kind="gpu", slug=inst.part.slug, parent=n.path)
    for f in design_fabrics(rd):
        nodes = [n for n in ids if n.group(f.name) is not None]
        atts = leaf_ports(f, [(n.rack, n.group(f.name)) for n in nodes])
        rate = f.link_gbit_s
        leaves = []
        for n, att in zip(nodes, atts):
            for a in att:
                _switch(g, a.leaf, f.tiers[0])
                _link(g, n.path, a.leaf, rate)
                leaves.append(a.leaf)
        for leaf, _, spine, _ in spine_of(f, sorted(set(leaves))):
            _switch(g, spine, f.tiers[1])
            _link(g, leaf, spine, rate)
        for spine, _, core, _ in core_of(f):
            _switch(g, core, f.tiers[2])
            _link(g, spine, core, rate)
    return g


def _switch(g: nx.Graph, name: str, tier) -> None:
    if name not in g:
        g.add_node(name, kind=f"{tier.role}_switch", slug=tier.switch, fabric=tier.fabric,
                   parent="cluster")


def _link(g: nx.Graph, a: str, b: str, rate: float) -> None:
    if g.has_edge(a, b):
        g.edges[a, b]["links"] += 1
        g.edges[a, b]["gbit_s"] += rate
    else:
        g.add_edge(a, b, kind="fabric", links=1, gbit_s=rate)
