"""Catalog type for a collective library's cost model on one GPU architecture.

One entry per (library, architecture), e.g. ``nccl-sm90`` (NCCL on Hopper): the
efficiency factors and latencies :mod:`infra.analysis.perf` uses to predict all-reduce,
all-gather, reduce-scatter, all-to-all and broadcast from a design. Every figure is a
catalog figure with its source (NCCL's ``tuning.cc`` constants, maintainers' statements,
published nccl-tests runs), never a constant in code. A GPU names its model with
``collective_model:``.
"""

# No ``from __future__ import annotations`` (see infra/models/parts.py).

from typing import Annotated, Literal

from pydantic import Field

from infra.models.base import NonNegFloat, PosFloat, Strict
from infra.models.parts import Part

Fraction = Annotated[float, Field(gt=0, le=1.0)]
Latency3 = Annotated[list[NonNegFloat], Field(min_length=3, max_length=3)]
Bw3 = Annotated[list[PosFloat], Field(min_length=3, max_length=3)]


class AlgoLatencies(Strict):
    """Latency in microseconds per protocol ``[LL, LL128, Simple]`` for each algorithm
    (NCCL's ``baseLat`` / ``hwLat`` rows); unset: the algorithm has no such term."""

    ring: Latency3 | None = Field(None, description="Ring [LL, LL128, Simple], microseconds.")
    tree: Latency3 | None = Field(None, description="Tree [LL, LL128, Simple], microseconds.")
    nvls: Latency3 | None = Field(None, description="NVLS [LL, LL128, Simple], microseconds.")
    nvls_tree: Latency3 | None = Field(None, description="NVLSTree [LL, LL128, Simple], microseconds.")
    collnet: Latency3 | None = Field(None, description="CollNet (direct) [LL, LL128, Simple], microseconds.")
    pat: Latency3 | None = Field(None, description="PAT [LL, LL128, Simple], microseconds.")


class CollectiveModel(Part):
    """A collective library's cost model for one GPU architecture."""

    kind: Literal["collective_model"] = "collective_model"
    library: Literal["NCCL", "RCCL", "HCCL"] = Field(
        description="The collective library this model stands for.")
    architecture: str = Field(description="The GPU architecture, as the library names it (SM90, gfx942).")
    scale_up_link_gbyte_s: PosFloat = Field(
        description="Effective bandwidth of one scale-up link per direction in GB/s, as the library "
                    "budgets it (NCCL SM90_NVLINK_BW 20.6 of 25 GB/s line rate): protocol overhead "
                    "included.")
    nvls_busbw_per_line: PosFloat | None = Field(
        None, description="NVLink SHARP (NVLS) all-reduce bus bandwidth as a multiple of the GPU's "
                          "scale-up line rate (links x link line rate); unset: no NVLS on this "
                          "architecture.")
    net_efficiency: Fraction = Field(
        description="Share of a NIC's line rate the library's network transport achieves (NCCL: "
                    "46-48 of 50 GB/s per 400G NIC).")
    tree_efficiency: Fraction = Field(
        description="Tree all-reduce bandwidth factor (NCCL tuning.cc: Tree Simple x 0.92).")
    collnet_efficiency: Fraction = Field(
        description="CollNet (in-network reduction, SHARP) bandwidth factor (NCCL: x 0.85 on SM90+).")
    pat_efficiency: Fraction = Field(
        description="PAT (all-gather / reduce-scatter with one GPU per node) factor (NCCL: x 0.75).")
    ll128_efficiency: Fraction = Field(
        description="LL128 protocol bandwidth as a share of Simple (NCCL tuning.cc: 0.92).")
    ll_max_gbyte_s: Bw3 = Field(
        description="LL protocol bandwidth ceiling in GB/s for [1 node, 2 nodes, more nodes] "
                    "(NCCL llMaxBws); LL runs at most half of Simple's bandwidth.")
    net_overhead_us: NonNegFloat = Field(
        description="Per-step network overhead in microseconds (NCCL_NET_OVERHEAD: 1 on Intel and "
                    "ARM hosts, 2 on AMD), tripled for Simple.")
    base_latency_us: AlgoLatencies = Field(
        description="Base latency of each algorithm per protocol (NCCL baseLat).")
    nvlink_latency_us: AlgoLatencies = Field(
        description="Per-step latency over the scale-up links (NCCL hwLat[NVLINK]).")
    net_latency_us: AlgoLatencies = Field(
        description="Per-step latency over the network (NCCL hwLat[NET]).")


__all__ = ["AlgoLatencies", "CollectiveModel"]
