"""``infra train`` output: key figures, the step breakdown, memory and assumptions."""

from __future__ import annotations

import json

from infra.reports.terminal import table

KEY = [("gpus", "GPUs", ""), ("parallelism", "Parallelism", ""),
       ("step_time_s", "Step time", "s"), ("tokens_per_s", "Tokens per second", "tokens/s"),
       ("model_tflops_per_gpu", "Model TFLOPS per GPU", "TFLOPS"),
       ("mfu_fraction", "MFU (BF16 dense peak)", ""),
       ("mfu_fp8_fraction", "MFU (FP8 dense peak)", ""),
       ("memory_gb_per_gpu", "Memory per GPU", "GB"),
       ("goodput_fraction", "Goodput (failures)", ""), ("days", "Days", "days"),
       ("gpu_hours", "GPU-hours", "h"), ("it_energy_mwh", "IT energy", "MWh"),
       ("facility_energy_mwh", "Facility energy", "MWh"), ("usd_per_run", "Cost per run", "USD"),
       ("usd_per_million_tokens", "Cost per million tokens", "USD")]


def _fmt(v) -> str:
    if v is None:
        return "unknown"
    if isinstance(v, float):
        if 0 < abs(v) < 1:
            return f"{v:.3f}"
        return f"{v:,.2f}".rstrip("0").rstrip(".")
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def render_train(d: dict, fmt: str) -> str:
    """A training run (:meth:`~infra.analysis.perf.training_run.TrainingRun.as_dict`)."""
    if fmt == "json":
        return json.dumps(d, indent=2) + "\n"
    out = [f"{d['model']} on {d['design']}: {d['tokens']:.3g} tokens, {d['precision']}, "
           f"{d['batch_tokens']:,} tokens per step"
           + (" (parallelism chosen)" if d["parallelism_chosen"] else "")]
    width = max(len(label) for _, label, _ in KEY)
    for key, label, unit in KEY:
        v = d[key]
        if key == "mfu_fp8_fraction" and v is None:
            continue  # a BF16 run: one MFU
        extra = " (lower bound)" if key.startswith("usd") and d["cost_is_lower_bound"] and v else ""
        out.append(f"  {label:<{width}}  {_fmt(v)} {unit}{extra}".rstrip())
    out.append("\nStep time breakdown (s):")
    out.append(table([{"part": k.removesuffix("_s"), "seconds": round(v, 3),
                       "share": f"{v / d['step_time_s']:.1%}"}
                      for k, v in d["breakdown"].items()]))
    out.append("\nMemory per GPU (GB):")
    out.append(table([{"part": k.replace("_", " "), "GB": v} for k, v in d["memory"].items()]))
    out.append(f"\nFLOPs per token: {d['flops_per_token']:.4g} "
               f"(attention {d['attention_flops_per_token']:.4g})")
    out.append("\nAssumptions:")
    out.extend(f"  - {a['item']}: {a['value']} [{a['source']}]" for a in d["assumptions"])
    return "\n".join(out) + "\n"


__all__ = ["render_train"]
