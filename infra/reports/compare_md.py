"""Markdown report of a comparison dict (``Comparison.as_dict()``), written atomically."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from infra.reports.atomic import write_text_atomic
from infra.reports.compare_text import cell
from infra.reports.terminal import fmt


def _md_table(rows: list[dict]) -> list[str]:
    if not rows:
        return ["(none)"]
    cols = list(rows[0])
    out = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for r in rows:
        out.append("| " + " | ".join(fmt(cell(r.get(c))).replace("|", "/") for c in cols) + " |")
    return out


def md_value(metric: str, v: Any, bound: str | None = None) -> str:
    """A figure as the markdown writes it: n/a when unknown, percents for fractions, n/a
    for a precision the chip does not run, $ per GPU-hour to 3 decimals, bound marked.

    >>> md_value("usd_per_gpu_hour", 1.2952, "lower"), md_value("capex_completeness_fraction", 0.2857)
    ('\u2265 1.295', '28.6%')
    """
    from infra.analysis.cost.compare_bounds import MARK
    from infra.reports.compare_labels import row_style
    from infra.reports.labels import value_text

    if v is None:
        return "n/a"
    if isinstance(v, float) and row_style(metric)[2] == '"$"#,##0.000':
        text = f"{v:,.3f}"
    else:
        text = value_text(metric, v)
    return f"{MARK[bound]} {text}" if bound in MARK and isinstance(v, (int, float)) else text


def comparison_md(data: dict[str, Any]) -> list[str]:
    """The comparison as one table per section: human labels, a unit column, numbers
    right-aligned, bound marks (``bounds`` of the comparison)."""
    from infra.reports.compare_labels import row_style

    labels = [o["label"] for o in data["options"]]
    ranked = any(r.get("ranking") for r in data["comparison"])
    out: list[str] = []
    last = None
    bounds = data.get("bounds") or {}
    for r in data["comparison"]:
        if r["section"] != last:
            last = r["section"]
            out += ["", f"### {last.capitalize()}", "",
                    "| Figure | Unit | " + " | ".join(labels) + " | differs |"
                    + (" ranking |" if ranked else ""),
                    "|---|---|" + "---:|" * len(labels) + "---|" + ("---|" if ranked else "")]
        label, unit, _ = row_style(r["metric"])
        cells = [label, unit] + [md_value(r["metric"], r.get(lb), bounds.get(lb, {}).get(
            r["metric"])) for lb in labels] + [r.get("differs") or ""]
        cells += [r.get("ranking") or ""] if ranked else []
        out.append("| " + " | ".join(str(c).replace("|", "/") for c in cells) + " |")
    return out[1:]


def to_markdown(data: dict[str, Any]) -> str:
    out = ["# Procurement comparison", ""]
    if data.get("target"):
        out += [f"Sized to **{data['target']}** from each option's building block.", ""]
    out += ["## Options", ""]
    out += _md_table([{"label": o["label"], "kind": o["kind"], "name": o["name"],
                       "source": o["key"]} for o in data["options"]])
    out += ["", "## Comparison", "", "`*`: the options differ; n/a: unknown or not applicable; "
            "\u2265 a lower bound, \u2264 an upper bound (capex or IT power has unknown parts).",
            ""]
    out += comparison_md(data)
    check = data.get("capex_scope_check")
    if check and len(data["options"]) > 1:
        out += ["", f"**Capex scope.** {check['message']}."]
    out += ["", "## Capex lines", "", "Unpriced lines are unknown, not zero: a total with any "
            "of them is a lower bound.", ""]
    out += _md_table(data["capex_lines"])
    out += ["", "## Assumptions", ""]
    out += _md_table(data["assumptions"])
    return "\n".join(out) + "\n"


def write_markdown(data: dict[str, Any], path: Path) -> Path:
    return write_text_atomic(path, to_markdown(data))
