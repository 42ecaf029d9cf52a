"""Published training runs the step model is checked against (``docs/guides/training.md``
quotes :func:`anchor_rows`; ``tests/test_training.py`` holds the targets).

``role``: *anchor* (issue 25's golden cases, the published parallelism given), *held out*
(nothing in the catalog was set from it; the issue's target is within 25 %).
"""

from __future__ import annotations

from dataclasses import dataclass

from infra.models.starter import DESIGNS_DIR as DESIGNS  # the shipped designs


@dataclass(frozen=True)
class Anchor:
    name: str
    design: str
    model: str
    gpus: int
    parallelism: str
    sequence_length: int | None
    tokens: float
    figure: str  # model_tflops_per_gpu | gpu_hours
    published: float
    source: str
    role: str


ANCHORS = (
    Anchor("Llama 3 405B, 8,192 H100", "llama3_h100_16k", "llama-3-405b", 8192,
           "tp=8,cp=1,pp=16", None, 15.6e12, "model_tflops_per_gpu", 430,
           "Llama 3 paper (arXiv 2407.21783) Table 4", "anchor"),
    Anchor("Llama 3 405B, 16,384 H100", "llama3_h100_16k", "llama-3-405b", 16384,
           "tp=8,cp=1,pp=16", None, 15.6e12, "model_tflops_per_gpu", 400,
           "Llama 3 paper Table 4", "anchor"),
    Anchor("Llama 3 405B, 16,384 H100, 128K context", "llama3_h100_16k", "llama-3-405b", 16384,
           "tp=8,cp=16,pp=16", 131072, 15.6e12, "model_tflops_per_gpu", 380,
           "Llama 3 paper Table 4", "anchor"),
    Anchor("Llama 3.1 405B, whole run (GPU-hours)", "llama3_h100_16k", "llama-3-405b", 16384,
           "tp=8,cp=1,pp=16", None, 15.6e12, "gpu_hours", 30.84e6,
           "Llama 3.1 model card: 30.84M H100 GPU-hours, 15.6T tokens (paper)", "held out"),
    Anchor("GPT-3 175B, 512 H100 (Megatron-LM)", "dgx_h100_superpod", "gpt-3-175b", 512,
           "tp=4,pp=8", None, 1e12, "model_tflops_per_gpu", 390,
           "Megatron-LM performance (H100, TP 4, PP 8: 390 TFLOPS/GPU, 47 % MFU; a "
           "third-party transcription of NVIDIA's figure)", "held out"),
    Anchor("Llama 3.1 70B, whole run (GPU-hours)", "llama3_h100_16k", "llama-3-70b", 16384,
           "", None, 15e12, "gpu_hours", 7.0e6,
           "Llama 3.1 model card: 7.0M H100 GPU-hours; parallelism not published (chosen)",
           "held out"),
    Anchor("Llama 3.1 8B, whole run (GPU-hours)", "llama3_h100_16k", "llama-3-8b", 16384,
           "", None, 15e12, "gpu_hours", 1.46e6,
           "Llama 3.1 model card: 1.46M H100 GPU-hours; parallelism not published (chosen)",
           "held out"),
)


def predict(a: Anchor) -> float:
    from infra.api import train

    r = train(DESIGNS / f"{a.design}.yaml", a.model, a.tokens, gpus=a.gpus,
              parallelism=a.parallelism or None, sequence_length=a.sequence_length)
    return r.model_tflops_per_gpu if a.figure == "model_tflops_per_gpu" else r.gpu_hours


def anchor_rows() -> list[dict]:
    """One row per published run: predicted beside published, error in %."""
    rows = []
    for a in ANCHORS:
        p = predict(a)
        rows.append({"run": a.name, "figure": a.figure, "published": a.published,
                     "predicted": round(p, 1), "error_pct": round(100 * (p / a.published - 1), 1),
                     "role": a.role, "source": a.source})
    return rows


def markdown_table(rows: list[dict]) -> str:
    lines = ["| run | figure | published | predicted | error | role |",
             "|---|---|---:|---:|---:|---|"]
    for r in rows:
        fig = "TFLOPS/GPU" if r["figure"] == "model_tflops_per_gpu" else "GPU-hours"
        lines.append(f"| {r['run']} | {fig} | {r['published']:,.0f} | {r['predicted']:,.0f} | "
                     f"{r['error_pct']:+.1f} % | {r['role']} |")
    return "\n".join(lines)


__all__ = ["ANCHORS", "Anchor", "anchor_rows", "markdown_table", "predict"]
