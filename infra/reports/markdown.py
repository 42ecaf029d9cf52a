"""Markdown report for pull-request reviews.

- The decision summary first: findings counted and named, then the figures a committee
  decides on (:mod:`infra.reports.decision`).
- Key figures with units and notes (capex and how complete it is, IT power as a lower
  bound where parts have unpublished power, unknowns written as such).
- The diagrams, headline first (scale-up domain, fabric, failure view, elevations, tray
  internals), each under its own heading, as PNG links where PNGs were written (they
  survive being pasted or attached to a pull request; SVG otherwise).
- Summary tables with human headers and right-aligned numbers; tables longer than
  :data:`FOLD_ROWS` rows, and wide ones, folded in ``<details>``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from infra.reports.atomic import write_text_atomic
from infra.reports.labels import column_header, metric_label, shown_unit, value_text
from infra.reports.terminal import FABRIC_METRICS, HEADLINE, fmt

TABLES = [  # (table, title, columns or None for all)
    ("bill_of_materials", "Bill of materials", ["kind", "slug", "count", "where",
                                                "unit_price_usd", "extended_usd"]),
    ("power_by_rack", "Power per rack", ["layout", "racks", "it_kw_per_rack", "liquid_kw_per_rack",
                                         "air_kw_per_rack", "supply_kw_per_rack",
                                         "published_estimate_kw_per_rack"]),
    ("cooling", "Cooling", ["unit", "scope", "removes", "heat_kw", "capacity_kw", "needed"]),
    ("flops_by_precision", "FLOPS by precision (PFLOPS)", None),
    ("bandwidth", "Per-GPU bandwidth by tray type", [
        "tray", "trays", "scale_up_domain_gpus", "scale_up_gbyte_s_per_gpu",
        "scale_out_gbit_s_per_gpu_nominal", "scale_out_gbit_s_per_gpu_effective",
        "pcie_max_oversubscription"]),
    ("blast_radius", "Blast radius", ["component", "count", "gpus_lost", "gpus_degraded",
                                      "degraded_bandwidth_fraction", "domains_broken",
                                      "largest_placeable_job_gpus"]),
    ("fabric", "Scale-out fabric", None),
    ("assumptions", "Assumptions and gaps", None),
]
FOLD_ROWS = 10
FOLD_COLUMNS = 10
RANK = {".png": 0, ".svg": 1, ".dot": 2}  # link the PNG when there is one


def md_table(rows: list[dict], columns: list[str] | None = None, headers: bool = True) -> str:
    """GFM table: human headers, numbers right-aligned, unknowns ``-``."""
    if not rows:
        return "_(none)_\n"
    cols = [c for c in (columns or list(rows[0])) if c in rows[0]]
    numeric = [all(isinstance(r.get(c), (int, float)) and not isinstance(r.get(c), bool)
                   or r.get(c) is None for r in rows) for c in cols]
    names = [column_header(c) if headers else c for c in cols]
    out = ["| " + " | ".join(names) + " |",
           "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
    for r in rows:
        out.append("| " + " | ".join(fmt(r.get(c), "-").replace("|", "\\|") for c in cols) + " |")
    return "\n".join(out) + "\n"


def fold(title: str, table: str, rows: int, columns: int) -> list[str]:
    """A heading and the table, folded in ``<details>`` when long or wide."""
    if rows > FOLD_ROWS or columns > FOLD_COLUMNS:
        return [f"## {title}", "", f"<details><summary>{rows:,} rows</summary>", "", table,
                "</details>", ""]
    return [f"## {title}", "", table]


def key_figures(m: dict[str, Any], fabric: bool) -> list[str]:
    from infra.reports.xlsx_style import summary_note

    out = ["## Key figures", "", "| metric | value | unit | note |", "|---|---:|---|---|"]
    for k in HEADLINE:
        if k in m and (fabric or not k.startswith(FABRIC_METRICS)):
            out.append(f"| {metric_label(k)} | {value_text(k, m[k])} | {shown_unit(k)} | "
                       f"{summary_note(k, m)} |")
    return out + [""]


def decision_block(data: dict[str, Any]) -> list[str]:
    """The decision summary under the title (:mod:`infra.reports.decision`): the findings
    counted, then named (design rules broken first, with their kind), then the figures a
    committee decides on."""
    from infra.reports.decision import decision_summary, findings_line

    block = decision_summary(data)
    out = ["## Decision summary", "", f"**{findings_line(block['counts'])}**", ""]
    errors = data.get("findings") or ()
    warnings = [text for severity, text in block["findings"] if severity == "warning"]
    if errors or warnings:
        out += ["### Findings", ""]
        out += [f"- **{f.get('kind')}**: {_md_text(f.get('text') or f.get('message'))}"
                for f in errors]
        out += [f"- warning: {_md_text(w)}" for w in warnings] + [""]
    out += ["| figure | value | unit | note |", "|---|---:|---|---|"]
    out += [f"| {f['label']} | {value_text(f['key'], f['value'])} | {f['unit']} | "
            f"{_md_text(f['note'])} |" for f in block["figures"]]
    return out + [""]


HEADINGS = (("scaleup_", "Scale-up domain: "), ("fabric_", "Fabric: "),
            ("failure_", "Failure view: "), ("rack_elevations", "Rack elevations"),
            ("tray_", "Tray internals: "))


def diagram_heading(stem: str) -> str:
    """``scaleup_su_1_x_nvl72`` -> ``Scale-up domain: su 1 x nvl72``.

    Examples
    --------
    >>> diagram_heading("tray_nvidia-dgx-h100"), diagram_heading("rack_elevations")
    ('Tray internals: nvidia-dgx-h100', 'Rack elevations')
    """
    for prefix, head in HEADINGS:
        if stem.startswith(prefix):
            return head + stem[len(prefix):].replace("_", " ")
    return stem.replace("_", " ")


def diagram_links(diagrams: list[Path], path: Path) -> list[str]:
    """One heading and link per diagram, headline first."""
    from infra.reports.html_report import diagram_rank

    best: dict[str, Path] = {}
    for p in diagrams:
        if p.suffix in RANK and (p.stem not in best or RANK[p.suffix] < RANK[best[p.stem].suffix]):
            best[p.stem] = p
    if not best:
        return ["_No diagrams in this run: add `--report png` (or svg)._", ""]
    out = []
    for stem in sorted(best, key=diagram_rank):
        p = best[stem]
        rel = Path(os.path.relpath(p, Path(path).parent)).as_posix()
        title = diagram_heading(stem)
        out += [f"### {title}", ""]
        out.append(f"![{title}]({rel})" if p.suffix in (".svg", ".png") else f"[{p.name}]({rel})")
        out.append("")
    return out


def render_markdown(data: dict[str, Any], path: Path, diagrams: list[Path] = ()) -> str:
    m, t = data["metrics"], data["tables"]
    out = [f"# {data['design']['name']}", "", f"Design file: `{data['design']['source_file']}`",
           ""]
    out += decision_block(data)  # findings first, then the committee's figures
    out += key_figures(m, bool(t.get("fabric")))
    out += ["## Diagrams", ""] + diagram_links(list(diagrams), path)
    for table, title, cols in TABLES:
        rows = t.get(table)
        if rows:
            shown = [c for c in (cols or list(rows[0])) if c in rows[0]]
            out += fold(title, md_table(rows, shown, headers=table != "assumptions"),
                        len(rows), len(shown))
    return "\n".join(out) + "\n"


def _md_text(text: Any) -> str:
    r"""Text from the inputs on one Markdown line: no line breaks, no HTML, no table pipes.

    >>> print(_md_text("a <b>|c\nd"))
    a &lt;b&gt;\|c d
    """
    out = " ".join(str(text).split())
    return out.replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


def write_markdown(data: dict[str, Any], path: Path, diagrams: list[Path] = ()) -> Path:
    return write_text_atomic(path, render_markdown(data, path, diagrams))
