"""Training figures of a design option in ``infra compare --train SLUG --tokens T``.

Each design option trains the model on all of its GPUs (whole scale-up domains) with the
parallelism the chooser finds (:mod:`infra.analysis.perf.training_run`); the figures join
the comparison under a "training" section, ranked lowest-first (days, GPU-hours, MWh:
plain ranking; dollars follow the capex scope rule of the other cost metrics).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

TRAIN_RANKED = ("train_days", "train_gpu_hours", "train_facility_energy_mwh")
TRAIN_COST = ("train_usd_per_run", "train_usd_per_million_tokens")
DEFAULT_FRAMEWORK = "megatron-lm"  # the training_framework catalog entry used unless named


@dataclass(frozen=True)
class TrainSpec:
    """What to train: a ``model`` catalog slug, tokens, precision, framework."""

    model: str
    tokens: float
    precision: str = "bf16"
    framework: str = DEFAULT_FRAMEWORK


def train_metrics(da, spec: TrainSpec, cost=None, capex=None) -> dict[str, Any]:
    """The option's training figures (``train_*`` metrics); a model that does not fit
    gives its reason instead of figures. ``capex``: the option's capex as the comparison
    prices it (its ``--prices``), so the run's dollars follow the same prices."""
    from infra.analysis.perf.training_run import train
    from infra.errors import InfraError

    # the slugs were checked against the catalog before any option was analysed
    arch = da.rd.part(spec.model, "model")
    fw = da.rd.part(spec.framework, "training_framework")
    try:
        r = train(da, arch, spec.tokens, fw, precision=spec.precision, cost=cost, capex=capex)
    except InfraError as exc:
        return {"train_model": spec.model, "train_note": str(exc).split(" (")[0][:200]}
    return {"train_model": spec.model, "train_tokens": spec.tokens, "train_gpus": r.gpus,
            "train_parallelism": r.step.parallelism.text(),
            "train_mfu_fraction": round(r.mfu_fraction, 4),
            "train_tokens_per_s": round(r.tokens_per_s),
            "train_goodput_fraction": round(r.goodput_fraction, 4),
            "train_days": round(r.days, 2), "train_gpu_hours": round(r.gpu_hours),
            "train_facility_energy_mwh": round(r.facility_energy_mwh, 1),
            "train_usd_per_run": None if r.usd_per_run is None else round(r.usd_per_run),
            "train_usd_per_million_tokens": (None if r.usd_per_million_tokens is None
                                             else round(r.usd_per_million_tokens, 3))}


def train_rank(metric: str, values: dict[str, Any]) -> str | None:
    """The ranking cell of a plain-ranked training metric (None: not one of them)."""
    if metric not in TRAIN_RANKED:
        return None
    known = {k: v for k, v in values.items() if isinstance(v, (int, float))}
    if len(known) < 2:
        return ""
    return f"lowest: {min(known, key=known.get)}"


__all__ = ["DEFAULT_FRAMEWORK", "TRAIN_COST", "TRAIN_RANKED", "TrainSpec", "train_metrics", "train_rank"]
