"""What a failure does to the GPUs: the one value the NVLink-domain failures
(:mod:`~infra.analysis.reliability.blast_radius`) and the fabric failures
(:mod:`~infra.analysis.reliability.fabric_blast`) both produce. A leaf module, so
that neither of those two imports the other's caller (issue 32, item 4)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Effect:
    lost: int
    degraded: int
    fraction: float | None  # bandwidth kept by the worst degraded GPU
    partitions: tuple[int, ...]
