"""The scale-out fabric as an aggregated graph joined to the tray types.

One node per *switch group* (the leaves of one rail of one group type; all spines of a
plane; all cores of a plane) with a ``count`` attribute, and one node per tray type;
edges carry ``links`` (count) and ``gbit_s`` (count x link rate, per direction). A
100k-GPU fabric stays a few dozen nodes.
"""

from __future__ import annotations

import networkx as nx

from infra.analysis.network.fabric import FabricResult


def fabric_graph(f: FabricResult, tray_slugs: list[str]) -> nx.Graph:
    """Aggregated graph of fabric ``f``, attached to ``tray_slugs`` (the nodes' types).

    Examples
    --------
    >>> from infra.analysis.summary import analyze_file
    >>> a = analyze_file("designs/dgx_h100_su.yaml")
    >>> g = fabric_graph(a.fabrics[0], ["nvidia-dgx-h100"])
    >>> g.nodes["compute.rail0.leaf"]["count"], g.edges["compute.rail0.leaf", "compute.spine"]["links"]
    (1, 32)
    """
    g = nx.Graph(fabric=f.name)
    rate = f.link_gbit_s
    tiers = f.tree.tiers
    rails = f.ports_per_node // f.planes if f.spec.kind == "rail_optimized" else 1
    leaves_per_rail = tiers[0].switches // rails
    node_ports = tiers[0].down_links // rails
    for p in range(f.planes):
        pre = f"{f.name}." + (f"plane{p}." if f.planes > 1 else "")
        for slug in tray_slugs:
            g.add_node(f"tray:{slug}", kind="compute_tray", slug=slug, count=f.nodes)
        for r in range(rails):
            leaf = f"{pre}rail{r}.leaf" if rails > 1 else f"{pre}{tiers[0].role}"
            g.add_node(leaf, kind=f"{tiers[0].role}_switch_group", count=leaves_per_rail,
                       slug=f.tiers[0].switch)
            for slug in tray_slugs:
                g.add_edge(f"tray:{slug}", leaf, kind="fabric", links=node_ports,
                           gbit_s=node_ports * rate)
            if len(tiers) > 1:
                up = leaves_per_rail * tiers[0].up_ports
                g.add_node(f"{pre}spine", kind="spine_switch_group", count=tiers[1].switches,
                           slug=f.tiers[1].switch)
                if f.tiers[1].blocks > 1:  # built per pod: its spines in that many blocks
                    g.nodes[f"{pre}spine"]["blocks"] = f.tiers[1].blocks
                g.add_edge(leaf, f"{pre}spine", kind="fabric", links=up, gbit_s=up * rate)
        if len(tiers) > 2:
            g.add_node(f"{pre}core", kind="core_switch_group", count=tiers[2].switches,
                       slug=f.tiers[2].switch)
            g.add_edge(f"{pre}spine", f"{pre}core", kind="fabric", links=tiers[2].down_links,
                       gbit_s=tiers[2].down_links * rate)
    return g
