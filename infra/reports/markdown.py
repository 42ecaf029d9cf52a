"""Markdown report for pull-request reviews: key figures, summary tables, diagram links."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from infra.reports.atomic import write_text_atomic
from infra.reports.labels import metric_unit
from infra.reports.terminal import HEADLINE, fmt

TABLES = [  # (table, title, columns or None for all)
    ("bill_of_materials", "Bill of materials", ["kind", "slug", "count", "where"]),
    ("power_by_rack", "Power per rack", ["layout", "racks", "it_kw_per_rack", "liquid_kw_per_rack",
                                         "air_kw_per_rack", "supply_kw_per_rack"]),
    ("cooling", "Cooling", ["unit", "scope", "removes", "heat_kw", "capacity_kw", "needed"]),
    ("flops_by_precision", "FLOPS by precision (PFLOPS)", None),
    ("bandwidth", "Per-GPU bandwidth by tray type", [
        "tray", "trays", "scale_up_domain_gpus", "scale_up_gbyte_s_per_gpu",
        "scale_out_gbit_s_per_gpu_nominal", "scale_out_gbit_s_per_gpu_effective",
        "pcie_max_oversubscription"]),
    ("blast_radius", "Blast radius", ["component_kind", "component", "count", "gpus_lost",
                                      "gpus_degraded", "largest_placeable_job_gpus"]),
    ("fabric", "Scale-out fabric", None),
    ("assumptions", "Assumptions", None),
]


RANK = {".svg": 0, ".png": 1, ".dot": 2}


def md_table(rows: list[dict], columns: list[str] | None = None) -> str:
    if not rows:
        return "_(none)_\n"
    cols = [c for c in (columns or list(rows[0])) if c in rows[0]]
    out = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for r in rows:
        out.append("| " + " | ".join(fmt(r.get(c), "-").replace("|", "\\|") for c in cols) + " |")
    return "\n".join(out) + "\n"


def render_markdown(data: dict[str, Any], path: Path, diagrams: list[Path] = ()) -> str:
    m, t = data["metrics"], data["tables"]
    out = [f"# {data['design']['name']}", "", f"Design file: `{data['design']['source_file']}`", "",
           "## Key figures", "", "| metric | value | unit |", "|---|---:|---|"]
    out += [f"| {k} | {fmt(m[k])} | {metric_unit(k)} |" for k in HEADLINE if k in m]
    out.append("")
    for table, title, cols in TABLES:
        if table in t:
            out += [f"## {title}", "", md_table(t[table], cols)]
    out += ["## Diagrams", ""]
    best: dict[str, Path] = {}
    for p in diagrams:  # one link per diagram: SVG, else PNG, else the DOT file
        if p.stem not in best or RANK[p.suffix] < RANK[best[p.stem].suffix]:
            best[p.stem] = p
    shown = list(best.values())
    if not shown:
        out.append("_No diagrams in this run: add `--report svg` (or png)._")
    for p in sorted(shown):
        rel = os.path.relpath(p, Path(path).parent)
        out.append(f"![{p.stem}]({rel})" if p.suffix in (".svg", ".png") else f"- [{p.name}]({rel})")
    return "\n".join(out) + "\n"


def write_markdown(data: dict[str, Any], path: Path, diagrams: list[Path] = ()) -> Path:
    return write_text_atomic(path, render_markdown(data, path, diagrams))
