"""The PCIe / NVLink-C2C tree inside one tray type, as a networkx graph.

Built once per tray *type* from its template (:func:`infra.models.expand.expand_tray`).
Attribute names: :mod:`infra.topology.attrs`.

Example
-------
NVIDIA's GB200 tray, one half::

    [sc0.gpu0]--+                       +--[nic0]  (CX-7, Gen5 x16)
                +--(sc0.c2c0)--[sc0.cpu0]--+--[nic1]
    [sc0.gpu1]--+   450 GB/s/dir          +--[dpu0]

>>> from infra.models.catalog import load_catalog
>>> cat = load_catalog()
>>> g = tray_graph(cat.get("nvidia-gb200-compute-tray"), cat)
>>> round(g.edges["sc0.cpu0", "nic0"]["gbyte_s"], 2)
57.61
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from infra.errors import TopologyError
from infra.models.catalog import Catalog
from infra.models.expand import TrayLayout, expand_tray
from infra.models.parts import Nic
from infra.models.systems import ComputeTray
from infra.units import pcie_usable_gbyte_s


def tray_graph(tray: ComputeTray, catalog: Catalog) -> nx.Graph:
    """Graph of ``tray``'s components and PCIe/C2C links (cached per tray type)."""
    cache: dict = catalog.__dict__.setdefault("_tray_graphs", {})
    if tray.slug not in cache:
        cache[tray.slug] = _build(expand_tray(tray, catalog))
    return cache[tray.slug]


def _build(lay: TrayLayout) -> nx.Graph:
    g = nx.Graph(tray=lay.tray.slug)
    for inst in lay.instances.values():
        attrs = {"kind": inst.kind, "slug": inst.part.slug}
        if inst.kind == "nic":
            attrs["network"] = inst.component.network or "scale_out"
        g.add_node(inst.name, **attrs)
        if inst.parent:
            g.add_edge(inst.parent, inst.name, kind="contains")
    for grp in lay.c2c:
        hub = grp.cpu.replace(".cpu", ".c2c")
        g.add_node(hub, kind="c2c")
        g.add_edge(hub, grp.cpu, kind="c2c", gbyte_s=grp.gbyte_s)
        for gpu in grp.gpus:
            g.add_edge(gpu, hub, kind="c2c", gbyte_s=grp.gbyte_s)
    for asg in lay.assignments:  # ports on a GPU's own die: no PCIe between them
        if getattr(lay.instances[asg.nic].part, "integrated", False) and asg.to != asg.nic:
            g.add_edge(asg.to, asg.nic, kind="on_die")
    for link in lay.links:
        a, b = link.a.instance.name, link.b.instance.name
        host_link = link.a.host_link or link.b.host_link
        g.add_edge(a, b, kind="pcie", gen=link.gen, lanes=link.lanes,
                   gbyte_s=pcie_usable_gbyte_s(link.gen, link.lanes), host_link=host_link)
    return g


@dataclass(frozen=True)
class Flow:
    """Traffic one GPU or CPU drives into one NIC interface at line rate."""

    source: str  # GPU/CPU instance
    nic: str
    interface: str
    network: str
    demand_gbit_s: float
    edges: tuple[tuple[str, str], ...]  # the PCIe/C2C path, in order
    port: str  # "<nic>.<port>" shared by interfaces on the same physical port


def tray_flows(tray: ComputeTray, catalog: Catalog) -> list[Flow]:
    """One flow per NIC interface assigned to a GPU/CPU, along its PCIe/C2C path.

    The path runs from the source to the NIC's host link named by the interface,
    never through another NIC; ``contains`` edges are not traversed. An integrated NIC
    (ports on the GPU's die, Gaudi 3) is reached over one ``on_die`` edge that no other
    flow shares.
    """
    lay = expand_tray(tray, catalog)
    g = tray_graph(tray, catalog)
    nics = {n for n, d in g.nodes(data=True) if d["kind"] == "nic"}
    transit = nx.subgraph_view(
        g, filter_node=lambda n: n not in nics,
        filter_edge=lambda a, b: g.edges[a, b]["kind"] != "contains")
    flows = []
    for a in lay.assignments:
        if a.to == a.nic:
            continue  # unassigned interface: no host drives it
        nic: Nic = lay.instances[a.nic].part  # type: ignore[assignment]
        iface = next(i for i in nic.interfaces if i.name == a.interface)
        if nic.integrated:  # the GPU drives its own ports: only the port limits the flow
            flows.append(Flow(a.to, a.nic, iface.name, g.nodes[a.nic]["network"], iface.gbit_s,
                              ((a.to, a.nic),), f"{a.nic}.{iface.port}"))
            continue
        entry = [nb for nb in g.neighbors(a.nic)
                 if g.edges[a.nic, nb].get("host_link") in (iface.host_link, None)
                 and g.edges[a.nic, nb]["kind"] == "pcie"]
        try:
            path = nx.shortest_path(transit, a.to, entry[0])
        except nx.NetworkXNoPath:
            raise TopologyError(f"tray {tray.slug!r}: no PCIe/C2C path from {a.to} to {a.nic} "
                                f"(interface {iface.name})", file=str(catalog.files.get(tray.slug)),
                                path="links", hint=f"link {a.nic}@{iface.host_link} to a switch "
                                "or CPU that reaches it") from None
        nodes = path + [a.nic]
        edges = tuple(zip(nodes, nodes[1:]))
        flows.append(Flow(a.to, a.nic, iface.name, g.nodes[a.nic]["network"], iface.gbit_s,
                          edges, f"{a.nic}.{iface.port}"))
    return flows
