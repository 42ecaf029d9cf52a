"""What the collective model reads from a design: the tiers a job's traffic crosses.

:func:`design_tiers` reads the resolved design once (its scale-up domains, the per-GPU
scale-out share after PCIe contention, the scale-out fabric's tiers) and
:func:`place_job` places a job on it the way a topology-aware scheduler does (Slurm's
block/tree plugins, as ``infra export slurm`` writes them): fill a scale-up domain
first, then the nodes under one leaf, then a spine pod, then the rest.

NCCL's "node" is the scale-up domain: the GPUs one NVLink fabric joins (an HGX
baseboard, an NVL72 rack, an NVL36x2 rack pair: NCCL's MNNVL treats the whole domain as
one node). A GPU without a scale-up domain is a node of its own.

Placement rules (stated here, used by every prediction):
- GPUs per NCCL node ``ppn = min(gpus, domain GPUs)``; nodes ``ceil(gpus / ppn)``.
- Fabric nodes (servers, trays) ``ceil(gpus / GPUs per tray)``. Nodes under one leaf:
  a rail leaf's down ports (rail-optimised: one port per node per rail), a ToR's rack, or
  a Clos leaf's down ports / ports per node. A three-tier fabric's spine pod spans
  ``leaf nodes x spine down ports``; two tiers: one spine layer over everything.
- The job's network share per GPU is divided by the oversubscription of every tier
  below the highest it crosses (leaf 2:1 halves what crosses the spines).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from infra.errors import TopologyError
from infra.models.perf_parts import CollectiveModel
from infra.models.resolve import ResolvedDesign

SCALE_OUT = ("scale_out", "converged")


@dataclass(frozen=True)
class FabricTier:
    role: str
    oversubscription: float
    in_network_reduction: bool


@dataclass(frozen=True)
class DesignTiers:
    """The figures of one design the collective model needs (computed once)."""

    design: str
    gpus: int
    gpu: str  # slug
    model: CollectiveModel | None
    domain_gpus: int
    domains: int
    scale_up_topology: str  # switched | mesh | ring | torus | none
    links_per_gpu: int
    link_line_gbyte_s: float  # per link, per direction
    gpus_per_node: int  # per fabric node (tray, server)
    net_gbit_s_nominal: float  # per GPU
    net_gbit_s_effective: float  # per GPU, after PCIe contention
    nic_gbit_s: float  # the largest single NIC interface a GPU drives
    fabric: str | None
    fabric_kind: str | None
    tiers: tuple[FabricTier, ...]
    nodes_per_leaf: int | None
    nodes_per_pod: int | None
    rails: int

    @property
    def up_line_gbyte_s(self) -> float:
        return self.links_per_gpu * self.link_line_gbyte_s


@dataclass(frozen=True)
class Placement:
    """Where a job of ``gpus`` GPUs lands."""

    gpus: int
    ppn: int  # GPUs per NCCL node (scale-up domain share)
    nodes: int  # NCCL nodes (domains) spanned
    fabric_nodes: int  # servers / trays spanned
    leaves: int  # first-tier switches spanned (0: no fabric crossed)
    top_tier: str  # none | leaf | spine | core: the highest fabric tier the job crosses
    oversubscription: float  # product of the oversubscriptions below top_tier

    def describe(self) -> str:
        parts = [f"{self.nodes} domain{'s' if self.nodes > 1 else ''} of {self.ppn} GPUs"]
        if self.top_tier != "none":
            parts.append(f"{self.leaves} leaf switch{'es' if self.leaves > 1 else ''}")
            if self.top_tier in ("spine", "core"):
                parts.append(f"through the {self.top_tier} tier")
        return ", ".join(parts)


def design_tiers(rd: ResolvedDesign, bandwidth=None, fabrics=None) -> DesignTiers:
    """Read the figures the collective model needs from ``rd`` (cached on the design).

    ``bandwidth`` (:func:`~infra.analysis.network.bandwidth.design_bandwidth`) and
    ``fabrics`` (:func:`~infra.analysis.network.fabric.design_fabrics`), when the caller
    has them already (``infra design``), are used instead of being computed again."""
    cached = rd.__dict__.get("_perf_tiers")
    if cached is None:
        cached = rd.__dict__["_perf_tiers"] = _tiers(rd, bandwidth, fabrics)
    return cached


def _tiers(rd: ResolvedDesign, bw, fabrics) -> DesignTiers:
    from infra.analysis.network.bandwidth import design_bandwidth
    from infra.analysis.network.fabric import design_fabrics

    bw = bw if bw is not None else design_bandwidth(rd)
    if not bw.domains:
        raise TopologyError("the design has no GPUs; collectives need at least one",
                            file=str(rd.file), path=("racks",))
    dom = max(bw.domains, key=lambda d: (d.gpus, d.count))
    gpu = dom.gpu
    model = None
    if gpu.collective_model:
        model = rd.part(gpu.collective_model, "collective_model")  # type: ignore[assignment]
    worst = bw.worst()
    tray_gpus = worst.gpus_per_tray if worst else 1
    nic = _largest_interface(bw, worst.tray if worst else None, worst.worst_gpu if worst else "")
    fabrics = [f for f in (fabrics if fabrics is not None else design_fabrics(rd))
               if set(f.spec.networks) & set(SCALE_OUT)]
    f = max(fabrics, key=lambda x: x.gpus, default=None)
    tiers: tuple[FabricTier, ...] = ()
    leaf = pod = None
    rails = 0
    if f is not None:
        tiers = tuple(FabricTier(t.role, t.oversubscription, bool(getattr(
            rd.part(t.switch), "in_network_reduction", False))) for t in f.spec.tiers)
        leaf, pod, rails = _reach(rd, f)
    up = gpu.scale_up
    topology = dom.topology if dom.gpus > 1 else "none"
    return DesignTiers(
        rd.name, sum(d.gpus * d.count for d in bw.domains), gpu.slug, model,  # type: ignore[arg-type]
        dom.gpus, dom.count, topology, dom.links_per_gpu if up else 0,
        up.link_gbyte_s if up else 0.0, tray_gpus or 1,
        worst.scale_out_gbit_s_per_gpu_nominal if worst else 0.0,
        worst.scale_out_gbit_s_per_gpu_effective if worst else 0.0, nic,
        f.name if f else None, f.spec.kind if f else None, tiers, leaf, pod, rails)


def _largest_interface(bw, tray: str | None, gpu: str) -> float:
    tc = bw.contention.get(tray) if tray else None
    if tc is None:
        return 0.0
    return max((fl.demand_gbit_s for fl in tc.flows
                if fl.source == gpu and fl.network in SCALE_OUT), default=0.0)


def _reach(rd: ResolvedDesign, f) -> tuple[int, int | None, int]:
    """(nodes under one leaf, nodes under one spine pod or None for "all", rails)."""
    t = f.tree.tiers
    per_plane = max(1, f.ports_per_node // f.planes)
    if f.spec.tiers[0].switches_per_rack:
        racks = max(1, sum(n for name, n in rd.rack_counts.items()
                           if rd.layouts[name].count("compute_tray")))
        leaf = max(1, math.ceil(f.nodes / racks))
        rails = 1
    elif f.spec.kind == "rail_optimized":
        leaf, rails = max(1, t[0].down_ports), per_plane * f.planes
    else:
        leaf, rails = max(1, t[0].down_ports // per_plane), 1
    pod = (f.pod_nodes() or leaf * t[1].down_ports) if len(t) == 3 else None
    return leaf, pod, rails


def place_job(t: DesignTiers, gpus: int) -> Placement:
    """Place a job of ``gpus`` GPUs on the design (see the module's rules).

    Examples
    --------
    >>> from infra.models.resolve import load_design
    >>> t = design_tiers(load_design("designs/dgx_h100_su.yaml"))
    >>> p = place_job(t, 64)
    >>> p.ppn, p.nodes, p.top_tier
    (8, 8, 'leaf')
    >>> place_job(t, 256).top_tier
    'leaf'
    """
    if gpus < 1 or gpus > t.gpus:
        raise TopologyError(f"a job of {gpus:,} GPUs does not fit: the design has {t.gpus:,}",
                            hint=f"give --gpus between 2 and {t.gpus:,}")
    ppn = min(gpus, t.domain_gpus) if t.scale_up_topology != "none" else 1
    nodes = math.ceil(gpus / ppn)
    fabric_nodes = math.ceil(gpus / t.gpus_per_node)
    if nodes == 1 or not t.tiers:
        return Placement(gpus, ppn, nodes, fabric_nodes, 0, "none", 1.0)
    leaf = t.nodes_per_leaf or fabric_nodes
    # the rails a job touches: every rail, except a job inside one server (one per GPU)
    rails = max(1, t.rails) if fabric_nodes > 1 else max(1, min(t.rails, gpus))
    leaves = math.ceil(fabric_nodes / leaf) * rails
    if fabric_nodes <= leaf or len(t.tiers) == 1:
        return Placement(gpus, ppn, nodes, fabric_nodes, leaves, "leaf", 1.0)
    # what a GPU gets above each tier: under-subscription (ratio < 1) adds headroom for
    # the tiers above, never more than the GPU injects (fat_tree.tier_ratios)
    from infra.analysis.network.fat_tree import tier_ratios  # not on the JSON path's imports

    ratios = tier_ratios([x.oversubscription for x in t.tiers])
    if len(t.tiers) == 2 or fabric_nodes <= (t.nodes_per_pod or fabric_nodes):
        return Placement(gpus, ppn, nodes, fabric_nodes, leaves, "spine", ratios[0])
    return Placement(gpus, ppn, nodes, fabric_nodes, leaves, "core", ratios[1])


__all__ = ["DesignTiers", "FabricTier", "Placement", "design_tiers", "place_job"]
