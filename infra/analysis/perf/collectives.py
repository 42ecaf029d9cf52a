"""Predicted collective performance of a design: one row per (op, job size, message size).

The library's choice is modelled as NCCL makes it: every (algorithm, protocol) of
:func:`infra.analysis.perf.algorithms.candidates` gets ``time = latency + bytes / algbw``
and the fastest wins. Rows report what nccl-tests would print for the same call:
``algbw = size / time`` and ``busbw = algbw x F`` (latency included), so a row compares
directly with a measured nccl-tests row of the same op, GPU count and size (nccl-tests'
size: the per-rank buffer of all-reduce and broadcast, the whole gathered buffer of
all-gather, reduce-scatter and all-to-all).

Examples
--------
>>> from infra.models.resolve import load_design
>>> rows = collectives(load_design("designs/gb200_nvl72.yaml"), ops=("all_reduce",),
...                    gpus=(72,), sizes=(8 * 2**30,))
>>> r = rows[0]
>>> r.algorithm, r.protocol, round(r.busbw_gbyte_s)
('NVLS', 'Simple', 845)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace

from infra.analysis.perf.algorithms import (
    ALGORITHMS,
    OPS,
    Candidate,
    bus_factor,
    candidates,
    job_bandwidth,
)
from infra.analysis.perf.inputs import DesignTiers, Placement, design_tiers, place_job
from infra.errors import TopologyError
from infra.models.resolve import ResolvedDesign

MIB = 2**20
DEFAULT_SIZES = tuple(MIB * 4**k for k in range(8))  # 1 MiB .. 16 GiB in powers of 4


@dataclass(frozen=True)
class CollectiveRow:
    """One prediction (the JSON row of ``infra collectives``)."""

    op: str
    gpus: int
    nodes: int
    size_bytes: int
    algorithm: str
    protocol: str
    busbw_gbyte_s: float
    algbw_gbyte_s: float
    time_s: float
    bottleneck: str
    placement: str

    def as_dict(self) -> dict:
        return asdict(self)


def default_job_sizes(t: DesignTiers) -> tuple[int, ...]:
    """8 GPUs, one domain, two domains, the whole design (distinct, within the design)."""
    sizes = [8, t.domain_gpus, 2 * t.domain_gpus, t.gpus]
    return tuple(sorted({s for s in sizes if 2 <= s <= t.gpus}))


def predict(t: DesignTiers, op: str, pl: Placement, size: int,
            algorithms: frozenset[str] | None = None) -> CollectiveRow:
    """The fastest (algorithm, protocol) for one call, as nccl-tests would report it."""
    m = t.model
    if m is None:
        raise TopologyError(f"no collective model for GPU {t.gpu!r}",
                            hint="give the GPU's catalog entry a collective_model "
                                 "(catalogs/collectives lists them)")
    bw = job_bandwidth(t, m, pl)
    cands = candidates(op, t, m, pl, bw, algorithms)
    if not cands:
        raise TopologyError(f"none of the algorithms {sorted(algorithms or ())} applies to "
                            f"{op} on {pl.gpus} GPUs over {pl.nodes} node(s)",
                            hint=f"choose among {', '.join(ALGORITHMS)}")
    best, time_us = _fastest(cands, size, op, pl.gpus)
    algbw = size / (time_us * 1e3) if time_us > 0 else float("inf")
    why = best.bottleneck
    if best.latency_us > size / (1e3 * (best.busbw_gbyte_s / bus_factor(op, pl.gpus))):
        why = f"latency ({best.latency_us:.1f} us per call)"
    return CollectiveRow(op, pl.gpus, pl.nodes, size, best.algorithm, best.protocol,
                         round(algbw * bus_factor(op, pl.gpus), 3), round(algbw, 3),
                         time_us / 1e6, why, pl.describe())


def _fastest(cands: Sequence[Candidate], size: int, op: str, n: int) -> tuple[Candidate, float]:
    f = bus_factor(op, n)
    best, best_t = cands[0], float("inf")
    for c in cands:
        t = c.latency_us + size / (1e3 * c.busbw_gbyte_s / f)
        if t < best_t:
            best, best_t = c, t
    return best, best_t


def collectives(rd: ResolvedDesign, ops: Iterable[str] = OPS, gpus: Iterable[int] = (),
                sizes: Iterable[int] = DEFAULT_SIZES,
                algorithms: Iterable[str] | None = None,
                partition: int | None = None) -> list[CollectiveRow]:
    """Predict ``ops`` for jobs of ``gpus`` GPUs (default: :func:`default_job_sizes`) and
    message ``sizes`` (bytes) on ``rd``; one row per combination, in that order.

    Parameters
    ----------
    rd : ResolvedDesign
    ops : op names (:data:`~infra.analysis.perf.algorithms.OPS`)
    gpus : job sizes in GPUs; each is placed with :func:`~infra.analysis.perf.inputs.place_job`
    sizes : message sizes in bytes (nccl-tests' size column)
    algorithms : restrict the choice (as ``NCCL_ALGO`` does), e.g. ``{"Ring", "Tree"}``
    partition : GPUs per NVLink partition when the domains are split (an NVL72 rack run as
        NVL8 partitions, IMEX channels); default: whole domains

    Returns
    -------
    list of CollectiveRow
    """
    t = design_tiers(rd)
    if partition is not None:
        if partition < 1 or t.domain_gpus % partition:
            raise TopologyError(f"a partition of {partition} GPUs does not divide the "
                                f"{t.domain_gpus}-GPU scale-up domain",
                                hint=f"give a divisor of {t.domain_gpus}")
        t = replace(t, domain_gpus=partition, domains=t.domains * (t.domain_gpus // partition))
    ops = tuple(ops)
    for op in ops:
        if op not in OPS:
            raise TopologyError(f"unknown collective {op!r}", hint=f"choose among {', '.join(OPS)}")
    algos = frozenset(algorithms) if algorithms else None
    if algos and not algos <= set(ALGORITHMS):
        raise TopologyError(f"unknown algorithm(s) {sorted(algos - set(ALGORITHMS))}",
                            hint=f"choose among {', '.join(ALGORITHMS)}")
    jobs = tuple(gpus) or default_job_sizes(t)
    placements = [place_job(t, g) for g in jobs]
    sizes = tuple(sizes)
    return [predict(t, op, pl, s, algos) for op in ops for pl in placements for s in sizes]


def key_figures(rd: ResolvedDesign, bandwidth=None, fabrics=None) -> dict[str, float | None]:
    """All-reduce busbw at 8 GiB within one domain and across the whole design (GB/s);
    None where the GPU has no collective model or the job is a single GPU
    (``bandwidth``, ``fabrics``: as :func:`~infra.analysis.perf.inputs.design_tiers`)."""
    t = design_tiers(rd, bandwidth, fabrics)
    out: dict[str, float | None] = {"allreduce_busbw_8gib_domain_gbyte_s": None,
                                    "allreduce_busbw_8gib_design_gbyte_s": None}
    if t.model is None:
        return out
    for key, g in (("allreduce_busbw_8gib_domain_gbyte_s", t.domain_gpus),
                   ("allreduce_busbw_8gib_design_gbyte_s", t.gpus)):
        if g >= 2:
            out[key] = predict(t, "all_reduce", place_job(t, g), 8 * 2**30).busbw_gbyte_s
    return out


__all__ = ["DEFAULT_SIZES", "CollectiveRow", "collectives", "default_job_sizes", "key_figures",
           "predict"]
