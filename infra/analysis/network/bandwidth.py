"""Per-GPU bandwidth: scale-up (NVLink) and scale-out (nominal vs effective), per tray type.

- Scale-up: links in use x per-link rate per direction, from the GPU type; domain size,
  bisection and hop counts (diameter, mean from the first GPU) from
  :mod:`infra.topology.scaleup`, which refuses any figure above what the links carry
  (per GPU <= declared links x rate; bisection <= half the GPUs x per-GPU). Rings and
  tori (TPU ICI, Trainium NeuronLink) join chips without switches, across servers and
  racks: per chip, the links of every dimension with more than one chip.
- Scale-out nominal: the sum of the NIC interfaces assigned to the GPU (scale-out or
  converged networks). Effective: its max-min fair share with every GPU and CPU driving
  all its interfaces at once (:mod:`infra.analysis.network.pcie`).
- Front end per tray: interfaces on front-end NICs plus converged interfaces driven by
  CPUs (AWS carries storage/VPC on the same Nitro cards), as the effective share they get
  while the GPUs drive scale-out at the same time (nominal: their line rates). On AWS's
  tray the shared 400G Nitro ports give 8 x 200 (Grace) + 200 (DPU) = 1.8 Tb/s front end
  and 4 x 400 Gb/s scale-out: 3.4 Tb/s, the physical port total.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from infra.analysis.network.pcie import TrayContention, tray_contention
from infra.models.resolve import ResolvedDesign
from infra.topology.scaleup import ScaleUpDomain, scale_up_domains

SCALE_OUT = ("scale_out", "converged")


@dataclass(frozen=True)
class TrayBandwidth:
    tray: str
    trays: int
    gpus_per_tray: int
    scale_up_domain_gpus: int
    scale_up_links_per_gpu: int
    scale_up_gbyte_s_per_gpu: float
    domain_bisection_gbyte_s: float
    scale_out_gbit_s_per_gpu_nominal: float  # of the worst-served GPU
    scale_out_gbit_s_per_gpu_effective: float  # of the worst-served GPU
    worst_gpu: str
    cpu_gbit_s_nominal: float  # per CPU, all networks (lowest CPU)
    cpu_gbit_s_effective: float
    front_end_gbit_s_per_tray: float  # effective, all flows at once
    front_end_gbit_s_per_tray_nominal: float
    pcie_max_oversubscription: float
    worst_link: str
    scale_up_topology: str = "none"  # switched | mesh | ring | torus | none
    scale_up_shape: str = ""  # ring / torus: chips per dimension, 16x20x28
    scale_up_diameter_hops: int = 0  # links crossed between the farthest two GPUs
    scale_up_mean_hops: float = 0.0  # links crossed, mean over GPU pairs


@dataclass(frozen=True)
class DesignBandwidth:
    trays: tuple[TrayBandwidth, ...]
    domains: tuple[ScaleUpDomain, ...]
    contention: dict[str, TrayContention]

    def worst(self) -> TrayBandwidth | None:
        return min(self.trays, key=lambda t: t.scale_out_gbit_s_per_gpu_effective, default=None)


def design_bandwidth(rd: ResolvedDesign) -> DesignBandwidth:
    """Per-tray-type bandwidth figures of ``rd`` (each tray type computed once)."""
    domains = scale_up_domains(rd)
    counts: Counter = rd.tray_counts()
    dom_of: dict[str, ScaleUpDomain] = {}
    slugs_of: dict[int, list[str]] = {}  # graph -> its trays' slugs: domains share graphs
    for d in domains:
        slugs = slugs_of.get(id(d.graph))
        if slugs is None:
            slugs = slugs_of[id(d.graph)] = [data["slug"] for _, data in d.graph.nodes(data=True)
                                             if data.get("kind") == "compute_tray"]
        for slug in slugs:
            prev = dom_of.get(slug)
            if prev is None or d.gpus > prev.gpus:
                dom_of[slug] = d
    rows = []
    cont = {}
    for tray in rd.tray_types():
        tc = tray_contention(tray, rd.catalog)
        cont[tray.slug] = tc
        rows.append(_row(tray.slug, counts[tray.slug], tc, dom_of[tray.slug], rd))
    return DesignBandwidth(tuple(rows), tuple(domains), cont)


def _row(slug: str, n: int, tc: TrayContention, dom: ScaleUpDomain, rd) -> TrayBandwidth:

    lay = rd.tray_layout(slug)
    gpus = [i.name for i in lay.of_kind("gpu")]
    cpus = [i.name for i in lay.of_kind("cpu")]
    per = tc.per_source(SCALE_OUT)
    gpu_bw = {g: per.get(g, (0.0, 0.0)) for g in gpus}
    worst_gpu = min(gpu_bw, key=lambda g: (gpu_bw[g][1], g)) if gpus else ""
    allnet = tc.per_source()
    cpu_bw = {c: allnet.get(c, (0.0, 0.0)) for c in cpus}
    worst_cpu = min(cpu_bw, key=lambda c: (cpu_bw[c][1], c)) if cpus else None
    fe_idx = [i for i, f in enumerate(tc.flows)
              if f.network == "front_end" or (f.network == "converged" and f.source in cpus)]
    fe = sum(tc.allocation[i] for i in fe_idx)
    fe_nominal = sum(tc.flows[i].demand_gbit_s for i in fe_idx)
    worst = tc.worst
    return TrayBandwidth(
        slug, n, len(gpus), dom.gpus, dom.links_per_gpu, dom.gbyte_s_per_gpu,
        dom.bisection_gbyte_s,
        gpu_bw[worst_gpu][0] if gpus else 0.0, gpu_bw[worst_gpu][1] if gpus else 0.0, worst_gpu,
        cpu_bw[worst_cpu][0] if worst_cpu else 0.0, cpu_bw[worst_cpu][1] if worst_cpu else 0.0,
        fe, fe_nominal, worst.oversubscription if worst else 0.0, worst.link if worst else "",
        dom.topology, "x".join(map(str, dom.shape)), dom.diameter_hops, round(dom.mean_hops, 4))


def bandwidth_metrics(bw: DesignBandwidth) -> dict[str, float | int]:
    worst = bw.worst()
    return {
        "scale_up_domains": sum(d.count for d in bw.domains),
        "scale_up_domain_gpus": max((d.gpus for d in bw.domains), default=0),
        "scale_up_gbyte_s_per_gpu": min((d.gbyte_s_per_gpu for d in bw.domains), default=0.0),
        "scale_up_bisection_gbyte_s": max((d.bisection_gbyte_s for d in bw.domains), default=0.0),
        "scale_out_gbit_s_per_gpu_nominal": worst.scale_out_gbit_s_per_gpu_nominal if worst else 0.0,
        "scale_out_gbit_s_per_gpu_effective": round(worst.scale_out_gbit_s_per_gpu_effective, 3)
        if worst else 0.0,
        "front_end_gbit_s_per_tray": min((t.front_end_gbit_s_per_tray for t in bw.trays), default=0.0),
        "pcie_max_oversubscription": round(max((t.pcie_max_oversubscription for t in bw.trays),
                                               default=0.0), 4),
    }
