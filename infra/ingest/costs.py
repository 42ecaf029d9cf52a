"""What an as-built deviation costs, computed with the design's own analyses.

PCIe: the tray type's max-min fair contention model (:mod:`infra.analysis.network.pcie`) is run
again with the degraded link at its observed generation and width, so the figure is
the same model the design report uses (usable rate: :func:`infra.units.pcie_usable_gbyte_s`).

Examples
--------
DGX H100, GPU 3 trained at Gen4 x16 instead of Gen5 x16 (usable: 16 GT/s x 16 lanes x
128/130 = 252.1 Gb/s after line coding, x 256/280 TLP efficiency = 230.5 Gb/s
usable, below the 400 Gb/s NIC):

>>> from infra.models.catalog import load_catalog
>>> cat = load_catalog()
>>> before, after = nic_path_gbit_s(cat.get("nvidia-dgx-h100"), cat, "gpu3", 4, 16)
>>> before, round(after, 1)
(400.0, 230.5)
"""

from __future__ import annotations

from infra.analysis.network.bandwidth import SCALE_OUT
from infra.analysis.network.pcie import max_min_fair
from infra.models.catalog import Catalog
from infra.models.parts import Nic
from infra.models.systems import ComputeTray
from infra.topology.tray import tray_flows, tray_graph
from infra.units import gbyte_to_gbit, pcie_usable_gbyte_s


def gpu_pcie_links(tray: ComputeTray, catalog: Catalog, gpu: str) -> list[tuple[str, str, dict]]:
    """The design's PCIe links at ``gpu`` (empty for a GPU on NVLink-C2C only)."""
    g = tray_graph(tray, catalog)
    return [(gpu, nb, g.edges[gpu, nb]) for nb in g.neighbors(gpu)
            if g.edges[gpu, nb]["kind"] == "pcie"] if gpu in g else []


def nic_path_gbit_s(tray: ComputeTray, catalog: Catalog, gpu: str, gen: int, lanes: int) -> tuple[float, float]:
    """Scale-out Gb/s ``gpu`` gets with every flow of the tray at once: (as designed,
    with ``gpu``'s PCIe links at ``gen`` x ``lanes``)."""
    return (_scale_out(tray, catalog, gpu, None), _scale_out(tray, catalog, gpu, (gen, lanes)))


def _scale_out(tray: ComputeTray, catalog: Catalog, gpu: str, degraded: tuple[int, int] | None) -> float:
    g = tray_graph(tray, catalog)
    flows = tray_flows(tray, catalog)
    capacity: dict[str, float] = {}
    for a, b, d in g.edges(data=True):
        if d["kind"] not in ("pcie", "c2c"):
            continue
        gbyte_s = d["gbyte_s"]
        if degraded and d["kind"] == "pcie" and gpu in (a, b):
            gbyte_s = pcie_usable_gbyte_s(min(degraded[0], d["gen"]), min(degraded[1], d["lanes"]))
        capacity[_key(a, b)] = gbyte_to_gbit(gbyte_s)
    for n, d in g.nodes(data=True):
        if d["kind"] == "nic":
            nic: Nic = catalog.get(d["slug"])  # type: ignore[assignment]
            for p in nic.ports:
                capacity[f"{n}.{p.name}"] = p.gbit_s
    uses = [[_key(a, b) for a, b in f.edges] + [f.port] for f in flows]
    rates = max_min_fair([f.demand_gbit_s for f in flows], uses, capacity)
    return sum(r for f, r in zip(flows, rates) if f.source == gpu and f.network in SCALE_OUT)


def _key(a: str, b: str) -> str:
    return " -- ".join(sorted((a, b)))
