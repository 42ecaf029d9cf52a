"""Markdown report of a comparison dict (``Comparison.as_dict()``), written atomically."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from infra.reports.atomic import write_text_atomic
from infra.reports.compare_text import cell, marked_rows
from infra.reports.terminal import fmt


def _md_table(rows: list[dict]) -> list[str]:
    if not rows:
        return ["(none)"]
    cols = list(rows[0])
    out = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for r in rows:
        out.append("| " + " | ".join(fmt(cell(r.get(c))).replace("|", "/") for c in cols) + " |")
    return out


def to_markdown(data: dict[str, Any]) -> str:
    out = ["# Procurement comparison", ""]
    if data.get("target"):
        out += [f"Sized to **{data['target']}** from each option's building block.", ""]
    out += ["## Options", ""]
    out += _md_table([{"label": o["label"], "kind": o["kind"], "name": o["name"],
                       "source": o["key"]} for o in data["options"]])
    out += ["", "## Comparison", "", "`*` in *differs*: the options differ; n/a: unknown or "
            "not applicable.", ""]
    out += _md_table(marked_rows(data))
    out += ["", "\u2265: a lower bound (capex or IT power has unknown parts, so the true figure "
            "is at least this); \u2264: an upper bound (e.g. PFLOPS per $M of a lower-bound "
            "capex)."] if any((data.get("bounds") or {}).values()) else []
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
