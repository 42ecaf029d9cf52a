"""Aggregate compute: GPUs, CPUs, HBM, peak dense and achievable FLOPS.

Assumptions
-----------
- Peak figures are the catalog's dense (no-sparsity) datasheet ceilings.
- Achievable BF16 = peak BF16 x measured MAMF efficiency (max achievable matmul FLOPS,
  stas00/ml-engineering); GPUs without a published MAMF are listed, not guessed.
- A precision is ``None`` for the design when any GPU's figure for it is unknown; 0
  when no GPU supports it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from infra.models.expand import expand_tray
from infra.models.parts import PRECISIONS, Gpu
from infra.models.resolve import ResolvedDesign, ResolvedLayout
from infra.units import gb_to_tb, tflops_to_pflops


@dataclass(frozen=True)
class ComputeSummary:
    """Compute figures of a set of GPUs/CPUs (a rack or the whole design)."""

    gpus: int
    cpus: int
    cpu_cores: int
    gpu_types: dict[str, int]
    hbm_tbyte: float | None
    hbm_tbyte_s: float | None
    peak_dense_pflops: dict[str, float | None]  # precision -> PFLOPS (int8: POPS)
    achievable_bf16_pflops: float | None  # None unless every GPU has a published MAMF
    gpus_without_mamf: dict[str, int] = field(default_factory=dict)


def gpu_cpu_counts(rd: ResolvedDesign, layouts: dict[str, int] | None = None) -> tuple[Counter, Counter]:
    """GPU and CPU slug -> count over ``layouts`` (layout -> racks; default the cluster)."""
    gpus: Counter = Counter()
    cpus: Counter = Counter()
    for lname, racks in (layouts or rd.rack_counts).items():
        for item in rd.layouts[lname].of_kind("compute_tray"):
            lay = expand_tray(item.part, rd.catalog)  # type: ignore[arg-type]
            n = racks * item.count
            for inst in lay.of_kind("gpu"):
                gpus[inst.part.slug] += n
            for inst in lay.of_kind("cpu"):
                cpus[inst.part.slug] += n
    return gpus, cpus


def summarize_compute(rd: ResolvedDesign, layouts: dict[str, int] | None = None) -> ComputeSummary:
    """Compute figures of the design (or of ``layouts``: layout name -> rack count)."""
    gpus, cpus = gpu_cpu_counts(rd, layouts)
    types = {s: rd.catalog.get(s) for s in gpus}
    return aggregate(gpus, types, sum(cpus.values()),
                     sum(rd.catalog.get(s).cores * n for s, n in cpus.items()))  # type: ignore[attr-defined]


def aggregate(gpus: Counter, types: dict[str, Gpu], cpus: int = 0, cores: int = 0) -> ComputeSummary:
    """Sum figures over ``gpus`` (slug -> count)."""
    peak: dict[str, float | None] = {}
    for prec in PRECISIONS:
        vals = [(getattr(types[s].peak_dense_tflops, prec), n) for s, n in gpus.items()]
        peak[prec] = (None if any(v is None for v, _ in vals)
                      else tflops_to_pflops(sum(v * n for v, n in vals)))
    hbm = [(types[s].hbm_gb, n) for s, n in gpus.items()]
    bw = [(types[s].hbm_tbyte_s, n) for s, n in gpus.items()]
    achievable = 0.0
    missing: dict[str, int] = {}
    for s, n in gpus.items():
        g = types[s]
        if g.mamf_bf16_tflops is None:
            missing[s] = n
        else:
            achievable += g.mamf_bf16_tflops * n
    return ComputeSummary(
        gpus=sum(gpus.values()),
        cpus=cpus,
        cpu_cores=cores,
        gpu_types=dict(gpus),
        hbm_tbyte=None if any(v is None for v, _ in hbm) else gb_to_tb(sum(v * n for v, n in hbm)),
        hbm_tbyte_s=None if any(v is None for v, _ in bw) else sum(v * n for v, n in bw),
        peak_dense_pflops=peak,
        # only when every GPU has a measured MAMF: a partial sum would read as the whole
        achievable_bf16_pflops=None if missing else tflops_to_pflops(achievable),
        gpus_without_mamf=missing,
    )


def layout_compute(rd: ResolvedDesign, layout: ResolvedLayout) -> ComputeSummary:
    """Compute figures of one rack of ``layout``."""
    return summarize_compute(rd, {layout.name: 1})
