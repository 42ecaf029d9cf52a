"""xlsx workbook of a comparison: Inputs, TCO, Comparison, Capex lines, Assumptions, Charts.

- Inputs: the cost assumptions as named cells (``energy_usd_per_kwh``, ``pue_override``,
  ``utilisation``, ``years``, ``maintenance_fraction``, ``discount_rate``,
  ``facility_usd_per_mw``, ``facility_life_years``), with their sources.
- TCO: per option, capex, GPUs, IT kW, PUE and dense PFLOPS (inputs) and live formulas on
  the named cells for energy, maintenance, facility, TCO, $ per PFLOP-year and $ per
  GPU-hour: the same arithmetic as :func:`infra.analysis.cost.tco.total_cost`, so changing an
  input cell changes every dependent figure.
- Charts: native bar charts over the ``charts`` rows the analysis computed (lower-bound
  capex left out). Written atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from infra.reports.atomic import save_workbook, write_atomic
from infra.reports.compare_text import cell


def _sheet(wb, title: str, rows: list[dict]):
    from openpyxl.styles import Font, PatternFill

    ws = wb.create_sheet(title)
    cols = list(rows[0]) if rows else ["(empty)"]
    ws.append(cols)
    for r in rows:
        ws.append([_xl(r.get(c)) for c in cols])
    for c in ws[1]:
        c.font = Font(bold=True, color="FFFFFF")
        c.fill = PatternFill("solid", fgColor="305496")
    ws.freeze_panes = "A2"
    for col in ws.columns:
        width = max((len(str(c.value)) for c in col if c.value is not None), default=8)
        ws.column_dimensions[col[0].column_letter].width = min(max(width + 2, 8), 60)
    return ws


def _xl(v: Any) -> Any:
    """Cell value: unknown stays blank (never an 'n/a' string in a numeric column)."""
    if v is None:
        return None
    v = cell(v)
    return str(v) if isinstance(v, (list, tuple, dict)) else v


def _bar(ws, title: str, y_title: str, cols: list[int], n: int, anchor: str, stacked=False):
    from openpyxl.chart import BarChart, Reference

    ch = BarChart()
    ch.type = "col"
    ch.title, ch.y_axis.title = title, y_title
    if stacked:
        ch.grouping, ch.overlap = "stacked", 100
    for c in cols:
        ch.add_data(Reference(ws, min_col=c, min_row=1, max_row=n + 1), titles_from_data=True)
    ch.set_categories(Reference(ws, min_col=1, min_row=2, max_row=n + 1))
    ch.width, ch.height = 18, 9
    ws.add_chart(ch, anchor)


def build_workbook(data: dict[str, Any]):
    """An openpyxl Workbook of ``Comparison.as_dict()`` (not saved)."""
    from openpyxl import Workbook

    from infra.reports.compare_tco_xlsx import inputs_sheet, tco_sheet

    wb = Workbook()
    wb.remove(wb.active)
    if data.get("cost_inputs") and data.get("tco"):
        inputs_sheet(wb, data["cost_inputs"])
        tco_sheet(wb, data["tco"], data["cost_inputs"], data.get("capex_scope_check"))
    _sheet(wb, "Comparison", data["comparison"])
    _sheet(wb, "Capex lines", data["capex_lines"])
    _sheet(wb, "Assumptions", data["assumptions"])
    rows = [{k: (None if v is None else v) for k, v in r.items()} for r in data["charts"]]
    ws = wb.create_sheet("Charts")
    cols = list(rows[0]) if rows else ["option"]
    ws.append(cols)
    for r in rows:
        ws.append([r.get(c) for c in cols])  # blanks where unknown: bars left out, not zero
    n = len(rows)
    idx = {c: i + 1 for i, c in enumerate(cols)}
    flops_per_usd = [i for c, i in idx.items() if "_per_musd_capex" in c]
    flops_per_mw = [i for c, i in idx.items() if c.endswith("_per_facility_mw")]
    capex = [i for c, i in idx.items() if c.startswith("capex_")]
    tco = capex + [i for c, i in idx.items()
                   if c.startswith(("energy_", "maintenance_", "facility_"))]
    col0 = len(cols) + 2
    from openpyxl.utils import get_column_letter

    at = get_column_letter(col0)
    _bar(ws, "Peak dense PFLOPS per $M capex ([capex scope]; \u2265 lower bound; unknown left out)",
         "PFLOPS / $M",
         flops_per_usd, n, f"{at}2")
    _bar(ws, "Peak dense PFLOPS per facility MW", "PFLOPS / MW", flops_per_mw, n, f"{at}21")
    _bar(ws, "Capex by category (priced lines)", "USD", capex, n, f"{at}40", stacked=True)
    _bar(ws, "TCO by category (unknown or lower-bound capex left out)", "USD", tco, n,
         f"{at}59", stacked=True)
    return wb


def write_compare_xlsx(data: dict[str, Any], path: Path) -> Path:
    wb = build_workbook(data)
    return write_atomic(path, lambda p: save_workbook(wb, p))
