"""From a step to a run: time, energy, goodput and cost of training a model on a design.

``train(analysis, model, tokens, ...)`` places the job (default: every GPU of the
design, rounded down to whole scale-up domains), takes the user's parallelism or
chooses the fastest that fits (:mod:`infra.analysis.perf.training`), then:

- tokens/s = tokens per step / step time; MFU = model FLOPs / (step time x GPUs x BF16
  dense peak) (the Llama 3 paper's convention), and for an FP8 run also against the FP8
  dense peak (an FP8 run can pass 100 % of the BF16 peak); TFLOPs per GPU = model FLOPs per GPU / step time;
- days = tokens / (tokens/s x goodput) / 86,400, goodput from the failure review
  (interruptions of a job of that size, Daly's checkpoint interval, restart time);
- GPU-hours = GPUs x days x 24; energy = the design's typical IT power x the job's share
  of its GPUs x hours (facility: x PUE);
- $ per run = GPU-hours x the design's TCO per GPU-hour (:mod:`infra.analysis.cost.tco`),
  $ per million tokens, where the design is priced (a lower bound if capex is).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from infra.analysis.perf.inputs import design_tiers, place_job
from infra.analysis.perf.model_flops import model_figures
from infra.analysis.perf.training import Chip, Step, choose, state_bytes_per_param, usable_gb
from infra.errors import InfeasibleDesignError, TopologyError



@dataclass
class TrainingRun:
    design: str
    model: str
    gpus: int
    precision: str
    tokens: float
    batch_tokens: int
    step: Step
    chosen: bool  # the parallelism was chosen (not given)
    candidates_tried: int
    tokens_per_s: float
    model_tflops_per_gpu: float
    mfu_fraction: float
    goodput_fraction: float
    days: float
    gpu_hours: float
    it_energy_mwh: float
    facility_energy_mwh: float
    usd_per_run: float | None
    usd_per_million_tokens: float | None
    cost_is_lower_bound: bool
    flops_per_token: float
    attention_flops_per_token: float
    assumptions: list[dict] = field(default_factory=list)
    it_kw: float = 0.0  # the job's share of the design's typical IT power
    pue: float = 1.0
    usd_per_gpu_hour: float | None = None
    peak_bf16_tflops: float = 0.0
    fp8_peak_ratio: float = 0.0  # FP8 / BF16 dense peak of the GPU (0: no FP8)

    @property
    def mfu_fp8_fraction(self) -> float | None:
        """MFU against the FP8 dense peak, for an FP8 run (None otherwise)."""
        if self.precision != "fp8" or not self.fp8_peak_ratio:
            return None
        return self.mfu_fraction / self.fp8_peak_ratio

    def as_dict(self) -> dict:
        s = self.step
        return {
            "design": self.design, "model": self.model, "gpus": self.gpus,
            "precision": self.precision, "tokens": self.tokens, "batch_tokens": self.batch_tokens,
            "parallelism": s.parallelism.text(), "parallelism_chosen": self.chosen,
            "micro_batches": s.micro_batches, "step_time_s": round(s.step_time_s, 4),
            "tokens_per_s": round(self.tokens_per_s, 1),
            "model_tflops_per_gpu": round(self.model_tflops_per_gpu, 1),
            "mfu_fraction": round(self.mfu_fraction, 4),
            "mfu_fp8_fraction": (None if self.mfu_fp8_fraction is None
                                 else round(self.mfu_fp8_fraction, 4)),
            "goodput_fraction": round(self.goodput_fraction, 4), "days": round(self.days, 2),
            "gpu_hours": round(self.gpu_hours), "it_energy_mwh": round(self.it_energy_mwh, 1),
            "facility_energy_mwh": round(self.facility_energy_mwh, 1),
            "usd_per_run": None if self.usd_per_run is None else round(self.usd_per_run),
            "usd_per_million_tokens": (None if self.usd_per_million_tokens is None
                                       else round(self.usd_per_million_tokens, 3)),
            "cost_is_lower_bound": self.cost_is_lower_bound,
            "memory_gb_per_gpu": round(s.memory_gb, 2),
            "memory": {k: round(v, 2) for k, v in s.memory.items()},
            "breakdown": {k: round(v, 4) for k, v in s.breakdown.items()},
            "flops_per_token": self.flops_per_token,
            "attention_flops_per_token": self.attention_flops_per_token,
            "it_kw": round(self.it_kw, 3), "pue": self.pue,
            "usd_per_gpu_hour": self.usd_per_gpu_hour,
            "peak_bf16_tflops_per_gpu": self.peak_bf16_tflops,
            "model_flops_per_gpu_per_step": s.model_flops_per_gpu,
            "tokens_per_step": round(self.tokens_per_s * s.step_time_s),
            "candidates_tried": self.candidates_tried,
            "assumptions": self.assumptions,
        }


def chip_of(gpu) -> tuple[Chip, str | None]:
    """The GPU's step-model figures, and a note when its achievable rate (MAMF) is a
    catalog estimate rather than a measurement."""
    peak = gpu.peak_dense_tflops.bf16
    if not peak:
        raise TopologyError(f"GPU {gpu.slug!r} has no BF16 peak in the catalog: cannot train",
                            hint="give peak_dense_tflops.bf16 in its catalog entry")
    ach = gpu.mamf_bf16_tflops
    if ach is None:
        raise TopologyError(f"GPU {gpu.slug!r} has no achievable BF16 rate (MAMF) in the "
                            "catalog: cannot time a training step",
                            hint="give mamf_bf16_tflops, a measurement or an estimate "
                                 "tagged `estimate` with its method")
    fp8 = gpu.peak_dense_tflops.fp8 or 0.0
    src = gpu.source_of("mamf_bf16_tflops")
    note = (f"{gpu.slug}: achievable BF16 {ach:,.1f} TF is an estimate ({src.title})"
            if src.tag == "estimate" else None)
    return Chip(gpu.hbm_gbyte or 0.0, peak, ach, fp8 / peak if fp8 else 0.0,
                gpu.hbm_tbyte_s or 0.0), note


def job_gpus(t, gpus: int | None) -> int:
    if gpus is None:
        return max(t.domain_gpus, t.gpus // t.domain_gpus * t.domain_gpus)
    if not 1 <= gpus <= t.gpus:
        raise TopologyError(f"a job of {gpus:,} GPUs does not fit: the design has {t.gpus:,}",
                            hint=f"give --gpus between 1 and {t.gpus:,}")
    return gpus


def train(analysis, arch, tokens: float, framework, gpus: int | None = None,
          precision: str = "bf16", given: dict | None = None,
          batch_tokens: int | None = None, rates=None, cost=None, capex=None) -> TrainingRun:
    """Time, energy and cost of training ``arch`` on ``tokens`` (see the module docstring).

    ``analysis``: a :class:`~infra.analysis.summary.DesignAnalysis`; ``arch`` a
    ``model`` catalog entry, ``framework`` a ``training_framework`` entry; ``given``:
    parallelism keys fixed by the user (:func:`~infra.analysis.perf.training.parse_parallelism`);
    ``rates``: a failure-rate table (default the shipped one); ``cost``: CostAssumptions;
    ``capex``: the capex to price the run with (default the analysis's, from the shipped
    price book; ``infra compare --prices`` passes the one its prices give).
    """
    rd = analysis.rd
    t = design_tiers(rd, analysis.bandwidth, analysis.fabrics)
    if t.model is None:
        raise TopologyError(f"no collective model for GPU {t.gpu!r}: communication cannot be "
                            "timed", hint="give the GPU's catalog entry a collective_model")
    if precision not in ("bf16", "fp8"):
        raise TopologyError(f"precision {precision!r}", hint="choose bf16 or fp8")
    gpu = rd.part(t.gpu)
    chip, note = chip_of(gpu)
    if precision == "fp8" and not chip.fp8_speedup:
        raise TopologyError(f"{t.gpu} has no FP8 peak in the catalog", hint="train in bf16")
    n = job_gpus(t, gpus)
    fig = model_figures(arch)
    batch = batch_tokens or arch.global_batch_tokens or framework.default_batch_tokens
    job = place_job(t, n)
    given = dict(given or {})
    _check_given(arch, given, n)
    best, smallest, tried = choose(t, arch, fig, framework, chip, n, batch, precision, job, given)
    if best is None:
        raise _no_fit(arch, fig, chip, framework, n, smallest, given)
    s = best
    tokens_step = s.micro_batches * s.parallelism.mb * s.parallelism.dp * fig.sequence_length
    tps = tokens_step / s.step_time_s
    tflops = s.model_flops_per_gpu / s.step_time_s / 1e12
    ckpt = fig.params * (framework.weight_bytes_per_param + framework.optimizer_bytes_per_param)
    good, good_note = _goodput(analysis, n, rates, ckpt)
    days = tokens / (tps * good) / 86_400
    hours = days * 24
    share = n / t.gpus
    it_kw = analysis.power.it_typical_kw * share
    usd, lower = _cost(analysis, cost, capex if capex is not None else analysis.capex)
    assumptions = _assumptions(arch, framework, batch, note, good_note, precision, given)
    return TrainingRun(
        rd.name, arch.slug, n, precision, tokens, batch, s, not _complete(given), tried, tps,
        tflops, tflops / chip.peak_bf16_tflops, good, days, n * hours, it_kw * hours / 1000,
        it_kw * analysis.power.pue * hours / 1000,
        None if usd is None else usd * n * hours,
        None if usd is None else usd * n * hours / (tokens / 1e6), lower,
        fig.flops_per_token, fig.attention_flops_per_token, assumptions, it_kw,
        analysis.power.pue, usd, chip.peak_bf16_tflops, chip.fp8_speedup)


def _check_given(arch, given: dict, gpus: int) -> None:
    """Keys a model or a job cannot take, named before any split is tried."""
    if given.get("pp", 1) > arch.layers:
        raise TopologyError(f"pp={given['pp']}: more pipeline stages than {arch.slug}'s "
                            f"{arch.layers} layers", hint=f"give pp of at most {arch.layers}")
    if given.get("pp", 1) * given.get("vpp", 1) > arch.layers:
        raise TopologyError(f"pp x vpp = {given.get('pp', 1) * given['vpp']}: more virtual "
                            f"stages than {arch.slug}'s {arch.layers} layers",
                            hint="give fewer interleaved stages (vpp)")
    ep = given.get("ep", 1)
    if ep > gpus:
        raise TopologyError(f"ep={ep} on a job of {gpus:,} GPUs",
                            hint="give an expert-parallel size of at most the job's GPUs")
    if ep > 1 and arch.moe is None:
        raise TopologyError(f"ep={ep}: {arch.slug} has no experts",
                            hint="leave ep out (or ep=1) for a dense model")
    if ep > 1 and arch.moe.experts % ep:
        raise TopologyError(f"ep={ep} does not divide {arch.slug}'s {arch.moe.experts} experts",
                            hint="give an expert-parallel size that divides the experts")
    if given.get("epo") and (arch.moe is None or ep == 1 and "ep" in given):
        raise TopologyError("epo=1 overlaps expert all-to-alls, which this job has none of",
                            hint="give epo=1 only for an MoE model with ep > 1")


def _complete(given: dict) -> bool:
    return all(k in given for k in ("tp", "pp", "cp"))


def _no_fit(arch, fig, chip, fw, n, smallest, given) -> InfeasibleDesignError:
    usable = usable_gb(chip, fw)
    if smallest is None:
        return InfeasibleDesignError(
            f"no parallelism of {arch.slug} fits {n:,} GPUs with "
            + (", ".join(f"{k}={v}" for k, v in given.items()) or "any split"),
            hint="check that tp x cp x pp divides the GPU count and the batch has a sequence "
                 "per data-parallel rank")
    mem = ", ".join(f"{k.replace('_', ' ')} {v:,.1f} GB" for k, v in smallest.memory.items())
    need_total = fig.params * state_bytes_per_param(fw) / 1e9
    return InfeasibleDesignError(
        f"{arch.slug} does not fit on {n:,} GPU{'s' if n > 1 else ''}: its smallest split "
        f"({smallest.parallelism.text()}) needs {smallest.memory_gb:,.1f} GB per GPU ({mem}); "
        f"each GPU has {usable:,.1f} GB usable ({chip.hbm_gb:,.1f} GB of HBM x "
        f"{fw.hbm_usable_fraction:g}); the model's weights, gradients and optimizer state "
        f"alone are {need_total:,.0f} GB",
        hint="give more GPUs (--gpus) or a design with more HBM per GPU")


def _goodput(analysis, n: int, rates, checkpoint_bytes: float = 0.0) -> tuple[float, str]:
    """Goodput of an ``n``-GPU job from the failure rates. Where the design reaches storage
    (its ``storage:`` entries), a checkpoint of ``checkpoint_bytes`` (weights and optimizer
    state) is written and, on a restart, read back at the storage's bound for ``n`` GPUs
    (the fastest storage all of them reach); otherwise the rate table's assumed write
    time and restart stand."""
    from infra.analysis.reliability.failures import failure_rows, geometry, job_storage, job_view
    from infra.models.rates import load_rates

    rates = rates or load_rates(design_rows=analysis.rd.design.failure_rates,
                                design_file=analysis.rd.file)
    geo = geometry(analysis)
    write_s, restart_min = rates.job.checkpoint_write_seconds, rates.job.restart_minutes
    where = ""
    store = job_storage(analysis, n) if checkpoint_bytes else None
    if store is not None:
        from infra.analysis.network.storage import checkpoint_seconds

        write_s = checkpoint_seconds(store, checkpoint_bytes, n)
        read_s = checkpoint_seconds(store, checkpoint_bytes, n, write=False)
        restart_min += read_s / 60
        where = (f" to storage {store.name!r} ({checkpoint_bytes / 1e12:,.2f} TB at "
                 f"{store.job_gbyte_s(n, True):,.0f} GB/s; read back in {read_s:,.0f} s on "
                 "restart)")
    view = job_view(failure_rows(analysis, rates), geo, n, write_s, restart_min)
    return view.goodput_fraction, (
        f"goodput {view.goodput_fraction:.3f}: {view.interruptions_per_day:.2f} interruptions "
        f"per day on {n:,} GPUs, checkpoint every {view.daly_interval_minutes:.0f} min "
        f"(Daly), write {view.checkpoint_write_seconds:,.3g} s{where}, restart "
        f"{view.restart_minutes:,.3g} min")


def _cost(analysis, cost, capex) -> tuple[float | None, bool]:
    """The design's TCO per GPU-hour on ``capex`` (as ``infra compare`` gives it) and
    whether it rests on a lower-bound capex."""
    from infra.analysis.cost.compare_metrics import design_tco
    from infra.analysis.cost.tco import CostAssumptions

    if capex is None or capex.priced_usd is None:
        return None, False
    tco = design_tco(analysis, capex, cost or CostAssumptions())
    return tco.usd_per_gpu_hour, bool(tco.capex_is_lower_bound)


def _assumptions(arch, fw, batch, chip_note, good_note, precision, given) -> list[dict]:
    rows = [{"item": "framework", "value": fw.name, "source": fw.slug},
            {"item": "tokens per step", "value": batch,
             "source": "model entry" if arch.global_batch_tokens else
             f"{fw.slug} default (assumption)"},
            {"item": "overlap (DP / TP / CP / EP hidden)",
             "value": f"{fw.dp_overlap_fraction:g} / {fw.tp_overlap_fraction:g} / "
                      f"{fw.cp_overlap_fraction:g} / {fw.ep_overlap_fraction:g}",
             "source": fw.slug},
            {"item": "HBM usable", "value": fw.hbm_usable_fraction, "source": fw.slug},
            {"item": "FLOPs per token", "value": "6 x active params + attention (PaLM)"
                                                 + (" + MTP" if arch.mtp_depth else ""),
             "source": "infra.analysis.perf.model_flops"},
            {"item": "goodput", "value": good_note, "source": "failure review (catalogs/rates)"},
            {"item": "energy", "value": "typical IT power x the job's share of the design's "
                                        "GPUs; facility x PUE", "source": "power model"}]
    if precision == "fp8":
        rows.append({"item": "FP8", "value": "matmuls at MAMF x FP8/BF16 dense peak; attention "
                                             "in BF16", "source": "assumption"})
    if arch.moe is not None:
        rows.append({"item": "MoE layers",
                     "value": f"each MoE layer adds {fw.moe_overhead_fraction:g} x its "
                              "time at BF16 (calibrated on one DeepSeek-V3 GB200 run; the "
                              "held-out MoE "
                              "runs and their errors: docs/guides/training.md; read MoE on "
                              "DGX B200 as optimistic)",
                     "source": fw.slug})
    if precision == "fp8" and not fw.fp8_output_layer:
        rows.append({"item": "output head", "value": "BF16 GEMMs in an FP8 run",
                     "source": fw.slug})
    if chip_note:
        rows.append({"item": "achievable FLOPS", "value": chip_note, "source": "assumption"})
    if given:
        rows.append({"item": "parallelism given", "value": ", ".join(
            f"{k}={v}" for k, v in given.items()), "source": "user"})
    return rows


__all__ = ["TrainingRun", "chip_of", "job_gpus", "train"]
