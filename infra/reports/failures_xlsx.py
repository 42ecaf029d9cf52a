"""One workbook for ``infra failures A B --report xlsx``: the reviews side by side.

Sheets: "Side by side" (each figure, its value per design as a number with its unit,
and as text to the precision it has: availability with nines and hours down a year),
"Events by kind", "Availability" (with nines and downtime hours as formulas on the
availability cells), "Job assumptions" (each design's checkpoint and restart times with
their basis: given, the design's storage or the rates file) and one "Components" sheet
per design (rates tagged when assumed).
Page setup as every workbook (:func:`infra.reports.xlsx_print.print_setup`); written
atomically.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from infra.reports.failures_text import compare_rows, metric_text, rate_text, unit


_SHEET_BAD = re.compile(r"[\[\]:*?/\\]")  # not allowed in a sheet title


def _head(ws, labels: list[str]) -> None:
    from infra.reports.xlsx_style import style_header

    ws.append(labels)
    style_header(ws, 1)
    ws.freeze_panes = "B2"


def build_compare_workbook(datas: list[dict[str, Any]], names: list[str]):
    from openpyxl import Workbook

    from infra.reports.cellsafe import formula
    from infra.reports.labels import metric_label
    from infra.reports.xlsx_print import print_setup

    c = compare_rows(datas, names)
    wb = Workbook()
    ws = wb.active
    ws.title = "Side by side"
    _head(ws, ["Figure", *names, "Unit", *[f"{n} (as written)" for n in names]])
    for r in c["metrics"]:
        k = r["metric"]
        u = "%" if k.endswith("_fraction") else unit(k)
        ws.append([metric_label(k), *[r[n] for n in names], "" if u == "count" else u,
                   *[metric_text(k, r[n]) for n in names]])
        for j in range(len(names)):
            cell = ws.cell(row=ws.max_row, column=2 + j)
            cell.number_format = ("0.000%" if k.endswith("availability_fraction") else
                                  "0.00%" if k.endswith("_fraction") else "#,##0.####")
    ev = wb.create_sheet("Events by kind")
    _head(ev, ["Component kind", *[f"{n} (interrupting events per year)" for n in names]])
    for r in c["interrupting_events_per_year_by_kind"]:
        ev.append([r["component_kind"], *[r.get(n) for n in names]])
    av = wb.create_sheet("Availability")
    _head(av, ["Design", "Job GPUs per domain", "Spare trays", "Closed form", "Monte Carlo",
               "Agrees", "Nines (closed form)", "Hours down a year"])
    for i, a in enumerate(c["domain_availability"], start=2):
        av.append([a["design"], a["job_gpus_per_domain"], a["spare_trays"], a["closed_form"],
                   a["monte_carlo"], "yes" if a["agrees"] else "no"])
        formula(av, f"G{i}", f'=IF(D{i}>=1,"",-LOG10(1-D{i}))')
        formula(av, f"H{i}", f"=(1-D{i})*8760")
        av[f"D{i}"].number_format = av[f"E{i}"].number_format = "0.000%"
        av[f"G{i}"].number_format = "0.00"
        av[f"H{i}"].number_format = "#,##0.0"
    ja = wb.create_sheet("Job assumptions")
    _head(ja, ["Design", "Item", "Value", "Given or assumed", "Basis"])
    for n, d in zip(names, datas):
        for a in d["tables"].get("job_assumptions", []):
            ja.append([n, a["item"], a["value"], a["tag"], a["basis"]])
    for n, d in zip(names, datas):
        comp = wb.create_sheet(f"{_SHEET_BAD.sub('_', n)[:20]} components")
        _head(comp, ["Kind", "Component", "Count", "Rate per unit per year", "Rate (as written)",
                     "GPUs lost", "Interrupts", "Events per year", "GPU-hours lost per year",
                     "Share of interruptions"])
        for r in d["tables"]["failures"]:
            comp.append([r["component_kind"], r["component"], r["count"], r["rate_per_year"],
                         rate_text(r["rate_per_year"], r.get("tag")), r["gpus_lost"],
                         "yes" if r["interrupts"] else "no", r["events_per_year"],
                         r.get("gpu_hours_lost_per_year"), r.get("share_of_interruptions")])
            comp.cell(row=comp.max_row, column=10).number_format = "0.0%"
    for sheet in wb.worksheets:
        for col in sheet.columns:
            width = max((len(str(x.value)) for x in col if x.value is not None), default=8)
            sheet.column_dimensions[col[0].column_letter].width = min(max(width + 2, 10), 50)
    print_setup(wb, "infra failures " + " vs ".join(names))  # every workbook's page setup
    return wb


def write_compare_xlsx(datas: list[dict[str, Any]], names: list[str], path: Path) -> Path:
    from infra.reports.atomic import save_workbook, write_atomic

    wb = build_compare_workbook(datas, names)
    return write_atomic(Path(path), lambda p: save_workbook(wb, p))


__all__ = ["build_compare_workbook", "write_compare_xlsx"]
