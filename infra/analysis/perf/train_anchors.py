"""Published training runs the step model is checked against (``docs/guides/training.md``
quotes :func:`anchor_rows`; ``tests/test_training.py`` holds the targets).

``role``:

- *calibration*: the Llama 3 paper's Table 4 (issue 25's golden cases, the published
  parallelism given). The framework's one compute-efficiency constant
  (``catalogs/training/megatron-lm.yaml``) is the value that puts these three runs' errors
  at a geometric mean of zero (:func:`calibrate_compute_efficiency`), rounded to 0.01.
- *held out*: nothing in the catalog was set from it. NVIDIA's own published Megatron
  runs (NeMo 24.07 and Megatron-Bridge 25.09 and 25.11 performance summaries: DGX H100,
  DGX B200, DGX GB200, DGX GB300, with GBS, MBS, sequence, TP/PP/CP/VP and FSDP as
  published; recompute chosen; 25.11 rows only where 25.09 lacks the configuration), and
  the Llama 3.1 model cards' whole-run GPU-hours. The issue's target is
  within 25 %.
- *goodput check*: the whole 405B run on a calibration run's configuration: its step time
  is calibrated, so only the run-level figures (goodput from the failure rates) are
  tested by it.
- *MoE calibration*: the framework's MoE overhead (time an MoE layer adds, as a share of
  its time at BF16) is the value that reproduces NVIDIA's DeepSeek-V3 run on 256 GB200
  (:func:`calibrate_moe_overhead`), rounded to 0.01: the issue's MoE model on its
  headline design, run with the plainest MoE configuration (NCCL all-to-all, tokens
  dropped at capacity 1.0 so experts are balanced, no all-to-all overlap).
- *MoE held out*: the other MoE runs of the same NVIDIA tables (DeepSeek-V3 on H100 and
  B200, Qwen3-30B-A3B and Qwen3-235B-A22B on GB200, B200 and H100), nothing set from them.
- *outside*: shown, not a target: a run whose job (GPUs, parallelism, batch) is not
  published, so a gap measures the operator's choices as much as the hardware.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from infra.models.starter import DESIGNS_DIR as DESIGNS  # the shipped designs

NEMO = ("NVIDIA NeMo performance summary, NeMo 24.07, DGX-H100, FP8 "
        "(github.com/NVIDIA/NeMo docs/source/performance/performance_summary.md)")
MBRIDGE = ("NVIDIA Megatron-Bridge performance summary, NeMo 25.09 container, FP8 "
           "(github.com/NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md)")


@dataclass(frozen=True)
class Anchor:
    name: str
    design: str
    model: str
    gpus: int
    parallelism: str
    sequence_length: int | None
    tokens: float
    figure: str  # model_tflops_per_gpu | gpu_hours | tokens_per_s_per_gpu
    published: float
    source: str
    role: str
    precision: str = "bf16"
    batch_sequences: int | None = None  # global batch (sequences); None: the model's


MBRIDGE_2511 = ("NVIDIA Megatron-Bridge performance summary, NeMo 25.11 container "
                "(github.com/NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md)")


def _nv(name, design, model, gpus, gbs, seq, par, tps, source=MBRIDGE, role="held out",
        precision="fp8"):
    return Anchor(name, design, model, gpus, par, seq, 1e12, "tokens_per_s_per_gpu", tps,
                  source, role, precision, gbs)


ANCHORS = (
    Anchor("Llama 3 405B, 8,192 H100", "llama3_h100_16k", "llama-3-405b", 8192,
           "tp=8,cp=1,pp=16", None, 15.6e12, "model_tflops_per_gpu", 430,
           "Llama 3 paper (arXiv 2407.21783) Table 4", "calibration"),
    Anchor("Llama 3 405B, 16,384 H100", "llama3_h100_16k", "llama-3-405b", 16384,
           "tp=8,cp=1,pp=16", None, 15.6e12, "model_tflops_per_gpu", 400,
           "Llama 3 paper Table 4", "calibration"),
    Anchor("Llama 3 405B, 16,384 H100, 128K context", "llama3_h100_16k", "llama-3-405b", 16384,
           "tp=8,cp=16,pp=16", 131072, 15.6e12, "model_tflops_per_gpu", 380,
           "Llama 3 paper Table 4", "calibration"),
    _nv("Llama 3 8B, 8 H100, FP8 (NeMo 24.07)", "dgx_h100_superpod", "llama-3-8b", 8, 128, 8192,
        "tp=1,pp=1,cp=2,mb=1,fsdp=0", 12036, NEMO),
    _nv("Llama 3 70B, 64 H100, FP8 (NeMo 24.07)", "dgx_h100_superpod", "llama-3-70b", 64, 128,
        8192, "tp=4,pp=4,cp=2,vpp=5,mb=1,fsdp=0", 1533, NEMO),
    _nv("GPT-3 175B, 128 H100, FP8 (NeMo 24.07)", "dgx_h100_superpod", "gpt-3-175b", 128, 256,
        2048, "tp=4,pp=8,cp=1,vpp=6,mb=1,fsdp=0", 726, NEMO),
    _nv("GPT-3 175B, 512 H100, FP8 (NeMo 24.07)", "dgx_h100_superpod", "gpt-3-175b", 512, 2048,
        2048, "tp=4,pp=8,cp=1,vpp=6,mb=2,fsdp=0", 782, NEMO),
    _nv("Llama 3 8B, 8 H100, FP8 (NeMo 25.09)", "dgx_h100_superpod", "llama-3-8b", 8, 128, 8192,
        "tp=1,pp=1,cp=1,mb=1,fsdp=1", 14079),
    _nv("Llama 3 70B, 64 H100, FP8 (NeMo 25.09)", "dgx_h100_superpod", "llama-3-70b", 64, 128,
        8192, "tp=4,pp=8,cp=1,vpp=5,mb=1,fsdp=0", 1619),
    _nv("Llama 3.1 405B, 1,024 H100, FP8 (NeMo 25.09)", "llama3_h100_16k", "llama-3-405b", 1024,
        512, 8192, "tp=8,pp=8,cp=2,vpp=8,mb=1,fsdp=0", 302),
    _nv("Llama 3 8B, 8 B200, FP8 (NeMo 25.09)", "dgx_b200_su", "llama-3-8b", 8, 128, 8192,
        "tp=1,pp=1,cp=1,mb=2,fsdp=0", 29994),
    _nv("Llama 3.1 405B, 128 B200, FP8 (NeMo 25.09)", "dgx_b200_su", "llama-3-405b", 128, 64,
        8192, "tp=4,pp=8,cp=2,vpp=8,mb=1,fsdp=0", 664),
    _nv("Llama 3 8B, 8 GB200, FP8 (NeMo 25.09)", "gb200_nvl72_576", "llama-3-8b", 8, 128, 8192,
        "tp=1,pp=1,cp=1,mb=2,fsdp=0", 31357),
    _nv("Llama 3 70B, 64 GB200, FP8 (NeMo 25.09)", "gb200_nvl72_576", "llama-3-70b", 64, 128,
        8192, "tp=1,pp=1,cp=1,mb=2,fsdp=1", 3986),
    _nv("Llama 3.1 405B, 128 GB200, FP8 (NeMo 25.09)", "gb200_nvl72_576", "llama-3-405b", 128,
        64, 8192, "tp=2,pp=1,cp=1,mb=1,fsdp=1", 729),
    # the 25.11 container's rows whose configuration the 25.09 table does not already hold:
    # DGX-GB300 (Blackwell Ultra, a fourth GPU generation) and two new GB200 splits
    _nv("Llama 3 8B, 8 GB300, FP8 (NeMo 25.11)", "gb300_nvl72", "llama-3-8b", 8, 128, 8192,
        "tp=1,pp=1,cp=1,mb=2,fsdp=0", 37556, MBRIDGE_2511),
    _nv("Llama 3 70B, 64 GB300, FP8 (NeMo 25.11)", "gb300_nvl72", "llama-3-70b", 64, 256, 8192,
        "tp=1,pp=1,cp=1,mb=2,fsdp=1", 4520, MBRIDGE_2511),
    _nv("Llama 3.1 405B, 256 GB300, FP8 (NeMo 25.11)", "gb300_nvl72_x4", "llama-3-405b", 256,
        1536, 8192, "tp=2,pp=8,cp=2,vpp=4,mb=1,fsdp=0", 999, MBRIDGE_2511),
    _nv("Llama 3 70B, 64 GB200, GBS 256, FP8 (NeMo 25.11)", "gb200_nvl72_576", "llama-3-70b", 64,
        256, 8192, "tp=1,pp=1,cp=1,mb=2,fsdp=1", 4312, MBRIDGE_2511),
    _nv("Llama 3.1 405B, 256 GB200, FP8 (NeMo 25.11)", "gb200_nvl72_576", "llama-3-405b", 256,
        1536, 8192, "tp=4,pp=16,cp=1,vpp=4,mb=1,fsdp=0", 813, MBRIDGE_2511),
    # MoE: NVIDIA's Megatron-Bridge 25.09 rows, configuration as published (DeepSeek-V3's
    # H100 run overlaps its all-to-alls with another micro-batch, epo=1, as its recipe sets
    # overlap_moe_expert_parallel_comm; B200 and GB200 runs drop tokens at capacity 1.0)
    _nv("DeepSeek-V3, 256 GB200, FP8 (NeMo 25.09)", "gb200_nvl72_576", "deepseek-v3", 256, 2048,
        4096, "tp=1,pp=4,cp=1,vpp=4,ep=64,mb=1,fsdp=0", 3454, MBRIDGE + ", token drop",
        "MoE calibration"),
    _nv("DeepSeek-V3, 1,024 H100, FP8 (NeMo 25.09)", "llama3_h100_16k", "deepseek-v3", 1024,
        8192, 4096, "tp=2,pp=8,cp=1,vpp=4,ep=64,mb=1,fsdp=0,epo=1", 1297, MBRIDGE + ", dropless",
        "MoE held out"),
    _nv("DeepSeek-V3, 256 B200, FP8 (NeMo 25.09)", "dgx_b200_su", "deepseek-v3", 256, 2048,
        4096, "tp=1,pp=16,cp=1,vpp=1,ep=8,mb=1,fsdp=0", 2265, MBRIDGE + ", token drop",
        "MoE held out"),
    _nv("Qwen3-30B-A3B, 8 GB200, FP8 (NeMo 25.09)", "gb200_nvl72_576", "qwen3-30b-a3b", 8, 512,
        4096, "tp=1,pp=1,cp=1,vpp=1,ep=8,mb=4,fsdp=0", 22775, MBRIDGE, "MoE held out"),
    _nv("Qwen3-235B-A22B, 64 GB200, FP8 (NeMo 25.09)", "gb200_nvl72_576", "qwen3-235b-a22b", 64,
        1024, 4096, "tp=2,pp=1,cp=1,vpp=1,ep=64,mb=1,fsdp=0", 4452, MBRIDGE, "MoE held out"),
    _nv("Qwen3-30B-A3B, 8 B200, FP8 (NeMo 25.09)", "dgx_b200_su", "qwen3-30b-a3b", 8, 512, 4096,
        "tp=1,pp=1,cp=1,vpp=1,ep=8,mb=1,fsdp=0", 18066, MBRIDGE, "MoE held out"),
    _nv("Qwen3-235B-A22B, 64 B200, FP8 (NeMo 25.09)", "dgx_b200_su", "qwen3-235b-a22b", 64, 1024,
        4096, "tp=1,pp=8,cp=1,vpp=2,ep=8,mb=1,fsdp=0", 4104, MBRIDGE, "MoE held out"),
    _nv("Qwen3-30B-A3B, 16 H100, FP8 (NeMo 25.09)", "dgx_h100_superpod", "qwen3-30b-a3b", 16, 512,
        4096, "tp=1,pp=2,cp=1,vpp=24,ep=8,mb=2,fsdp=0", 10494, MBRIDGE, "MoE held out"),
    _nv("Qwen3-235B-A22B, 256 H100, FP8 (NeMo 25.09)", "llama3_h100_16k", "qwen3-235b-a22b", 256,
        2048, 4096, "tp=2,pp=8,cp=1,vpp=4,ep=32,mb=1,fsdp=0", 1204, MBRIDGE, "MoE held out"),
    # 25.11 MoE rows (force-balanced, dropless) of configurations 25.09 does not hold
    _nv("Qwen3-30B-A3B, 8 GB300, MXFP8 (NeMo 25.11)", "gb300_nvl72", "qwen3-30b-a3b", 8, 512,
        4096, "tp=1,pp=1,cp=1,vpp=1,ep=8,mb=4,fsdp=0", 28934, MBRIDGE_2511, "MoE held out"),
    _nv("Qwen3-235B-A22B, 256 GB300, BF16 (NeMo 25.11)", "gb300_nvl72_x4", "qwen3-235b-a22b",
        256, 8192, 4096, "tp=1,pp=4,cp=1,vpp=12,ep=16,mb=2,fsdp=0", 6131, MBRIDGE_2511,
        "MoE held out", "bf16"),
    _nv("Qwen3-235B-A22B, 256 GB200, BF16 (NeMo 25.11)", "gb200_nvl72_576", "qwen3-235b-a22b",
        256, 8192, 4096, "tp=1,pp=8,cp=1,vpp=3,ep=32,mb=1,fsdp=0", 4916, MBRIDGE_2511,
        "MoE held out", "bf16"),
    Anchor("DeepSeek-V3 pre-training, whole run (GPU-hours)", "llama3_h100_16k", "deepseek-v3",
           2048, "tp=1,pp=16,cp=1,ep=64,epo=1", 4096, 14.8e12, "gpu_hours", 2.664e6,
           "DeepSeek-V3 technical report (arXiv 2412.19437) Table 1: pre-training 2,664K H800 "
           "GPU-hours for 14.8T tokens on 2,048 H800 (section 3.1), 16-way PP, 64-way EP over "
           "8 nodes, ZeRO-1 DP (3.2), DualPipe overlapping the all-to-alls with computation "
           "(epo=1), batch 15,360 sequences of 4,096 (4.2); H800 timed as the H100 design's "
           "GPUs (same FP8/BF16 rates, NVLink 400 GB/s against 900)", "MoE held out", "fp8", 15360),
    Anchor("Llama 3.1 405B, whole run (GPU-hours)", "llama3_h100_16k", "llama-3-405b", 16384,
           "tp=8,cp=1,pp=16", None, 15.6e12, "gpu_hours", 30.84e6,
           "Llama 3.1 model card: 30.84M H100 GPU-hours; 15.6T tokens, 16,384 GPUs, "
           "Table 4's split (paper)", "goodput check"),
    Anchor("Llama 3.1 70B, whole run (GPU-hours)", "llama3_h100_16k", "llama-3-70b", 16384,
           "", None, 15e12, "gpu_hours", 7.0e6,
           "Llama 3.1 model card: 7.0M H100 GPU-hours; job size and parallelism not "
           "published (chosen here on 16,384 GPUs)", "outside"),
    Anchor("Llama 3.1 8B, whole run (GPU-hours)", "llama3_h100_16k", "llama-3-8b", 16384,
           "", None, 15e12, "gpu_hours", 1.46e6,
           "Llama 3.1 model card: 1.46M H100 GPU-hours; job size and parallelism not "
           "published (chosen here on 16,384 GPUs)", "outside"),
)


def predict(a: Anchor, framework=None) -> float:
    """The model's figure for ``a`` (``framework``: a ``training_framework`` entry to use
    instead of the catalog's, e.g. with another compute efficiency)."""
    from infra.api import train

    seq = a.sequence_length
    batch = a.batch_sequences * (seq or 8192) if a.batch_sequences else None
    r = train(DESIGNS / f"{a.design}.yaml", a.model, a.tokens, gpus=a.gpus,
              precision=a.precision, parallelism=a.parallelism or None,
              sequence_length=seq, batch_tokens=batch, framework=framework or "megatron-lm")
    if a.figure == "model_tflops_per_gpu":
        return r.model_tflops_per_gpu
    if a.figure == "tokens_per_s_per_gpu":
        return r.tokens_per_s / r.gpus
    return r.gpu_hours


def anchor_rows() -> list[dict]:
    """One row per published run: predicted beside published, error in %."""
    rows = []
    for a in ANCHORS:
        p = predict(a)
        rows.append({"run": a.name, "figure": a.figure, "published": a.published,
                     "predicted": round(p, 1), "error_pct": round(100 * (p / a.published - 1), 1),
                     "within_25": abs(p / a.published - 1) <= 0.25,
                     "error_exact_pct": 100 * (p / a.published - 1),
                     "role": a.role, "source": a.source})
    return rows


def _calibrate(field: str, role: str, framework, lo: float, hi: float) -> float:
    """The value of the framework's ``field`` at which the runs of ``role`` have a
    geometric-mean error of zero (bisection over [lo, hi]; the error must change sign
    once). ``framework``: the ``training_framework`` entry (default: ``megatron-lm`` from
    the catalog the runs' design is loaded with, as :func:`predict` uses it)."""
    runs = [a for a in ANCHORS if a.role == role]
    fw = framework
    if fw is None:
        from infra.models.resolve import load_design

        fw = load_design(DESIGNS / f"{runs[0].design}.yaml").part("megatron-lm", "training_framework")

    def log_error(x: float) -> float:
        g = fw.model_copy(update={field: x})
        return sum(math.log(predict(a, g) / a.published) for a in runs)

    rising = log_error(hi) > log_error(lo)  # the model's speed rises with the field
    for _ in range(20):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if (log_error(mid) < 0) == rising else (lo, mid)
    return (lo + hi) / 2


def calibrate_moe_overhead(framework=None, lo: float = 0.0, hi: float = 1.0) -> float:
    """The MoE overhead at which the *MoE calibration* run is reproduced (the model's speed
    falls as it rises). ``framework`` as in :func:`calibrate_compute_efficiency`."""
    return _calibrate("moe_overhead_fraction", "MoE calibration", framework, lo, hi)


def calibrate_compute_efficiency(framework=None, lo: float = 0.5, hi: float = 1.0) -> float:
    """The compute efficiency at which the *calibration* runs' errors have a geometric mean
    of zero (the model's speed rises with the efficiency). ``framework``: the
    ``training_framework`` entry to calibrate (default: ``megatron-lm`` from the catalog
    the calibration runs' design is loaded with, as :func:`predict` uses it)."""
    return _calibrate("compute_efficiency_fraction", "calibration", framework, lo, hi)


FIGURE = {"model_tflops_per_gpu": "TFLOPS/GPU", "gpu_hours": "GPU-hours",
          "tokens_per_s_per_gpu": "tokens/s/GPU"}


def markdown_table(rows: list[dict]) -> str:
    lines = ["| run | figure | published | predicted | error | role |",
             "|---|---|---:|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['run']} | {FIGURE[r['figure']]} | {r['published']:,.0f} | "
                     f"{r['predicted']:,.0f} | {r['error_pct']:+.1f} % | {r['role']} |")
    return "\n".join(lines)


def _median(xs: list[float]) -> float:
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2) if n else 0.0


def error_summary(rows: list[dict], role: str = "held out") -> dict:
    """Median and largest absolute error (%) of the rows of one role, the median signed
    error and how many over-predict (the model faster than the run: a positive error of
    a throughput, a negative one of GPU-hours; the signed median takes that sign)."""
    mine = [r for r in rows if r["role"] == role]
    signed = [-r["error_pct"] if r.get("figure") == "gpu_hours" else r["error_pct"]
              for r in mine]
    errs = [abs(e) for e in signed]
    return {"runs": len(errs), "median_abs_error_pct": round(_median(errs), 1),
            "max_abs_error_pct": max(errs) if errs else 0.0,
            "median_signed_error_pct": round(_median(signed), 1),
            "over_predicted": sum(1 for e in signed if e > 0),
            "within_25_pct": sum(1 for r in rows if r["role"] == role
                                 and r.get("within_25", abs(r["error_pct"]) <= 25))}


def _held(rows: list[dict], role: str, label: str) -> str:
    h = error_summary(rows, role)
    miss = "; ".join(f"{r['run']} {r.get('error_exact_pct', r['error_pct']):+.2f} %" for r in rows
                     if r["role"] == role and not r.get("within_25", abs(r["error_pct"]) <= 25))
    return (f"{label}: {h['runs']} runs, median error {h['median_abs_error_pct']:.1f} % "
            f"(signed {h['median_signed_error_pct']:+.1f} %: {h['over_predicted']} of "
            f"{h['runs']} predict faster than published), largest "
            f"{h['max_abs_error_pct']:.1f} %; {h['within_25_pct']} of {h['runs']} within 25 %"
            + (f" (outside: {miss})." if miss else "."))


def summary_text(rows: list[dict]) -> str:
    """The guide's sentences on the held-out runs (a test checks the guide quotes them)."""
    c = error_summary(rows, "calibration")
    return (f"Calibration runs: largest error {c['max_abs_error_pct']:.1f} %. "
            + _held(rows, "held out", "Held out, dense") + " "
            + _held(rows, "MoE held out", "Held out, MoE"))


__all__ = ["ANCHORS", "Anchor", "anchor_rows", "calibrate_compute_efficiency",
           "calibrate_moe_overhead",
           "error_summary", "markdown_table", "predict", "summary_text"]
