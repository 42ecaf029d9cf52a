"""xlsx workbook a reviewer can work in.

- Summary: key figures with units, and the design's assumptions.
- One styled sheet per analysis table (header style, frozen header, filter, widths,
  number formats with units), generic: a new table gets its sheet with no code change.
- Bill of materials (:mod:`infra.reports.xlsx_bom`): the tool's pricing rule as live
  formulas (``included_in``, ``status``, ``extended_usd``, totals); Summary's capex cells
  are formulas on it.
- Charts (native Excel), Diagrams (PNG), Sources (every catalog figure of the BOM).

Only formats what the analyses computed; written atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from infra.reports.atomic import write_atomic
from infra.reports.labels import column_unit, metric_unit, number_format

SHEET_NAMES = {
    "bill_of_materials": "Bill of materials",
    "compute_by_rack": "Compute",
    "power_by_rack": "Power",
    "power_by_unit": "Power by unit",
    "cooling": "Cooling",
    "assumptions": "Assumptions",
    "bandwidth": "Bandwidth",
    "scale_up_domains": "Scale-up domains",
    "pcie": "PCIe",
    "blast_radius": "Blast radius",
    "fabric": "Fabric",
    "fabric_summary": "Fabric summary",
    "cabling": "Cabling",
    "flops_by_precision": "FLOPS by precision",
    "rack_elevation": "Rack elevation",
}
HEADER_FILL = "305496"
BOM = "bill_of_materials"
PRICE, EXTENDED = "unit_price_usd", "extended_usd"


def sheet_name(table: str) -> str:
    return SHEET_NAMES.get(table, table.replace("_", " ").capitalize())[:31]


def build_workbook(data: dict[str, Any], analysis=None, pngs=()):
    """An openpyxl Workbook of the JSON-contract dict (not saved)."""
    from openpyxl import Workbook

    from infra.reports import xlsx_extras

    wb = Workbook()
    _summary(wb.active, data)
    bom_cells = None
    for table, rows in data["tables"].items():
        ws = wb.create_sheet(sheet_name(table))
        if table == BOM:
            from infra.reports.xlsx_bom import bom_sheet

            bom_cells = bom_sheet(ws, rows)
        else:
            _table_sheet(ws, rows)
    if bom_cells:
        from infra.reports.xlsx_bom import link_summary

        link_summary(wb, bom_cells, sheet_name(BOM))
    xlsx_extras.add_charts(wb, data)
    if pngs:
        xlsx_extras.add_diagrams(wb, pngs)
    if analysis is not None:
        xlsx_extras.add_sources(wb, data, analysis.rd.catalog)
    return wb


def _summary(ws, data: dict[str, Any]) -> None:
    ws.title = "Summary"
    ws.append(["Design", data["design"]["name"]])
    ws.append(["Source file", data["design"]["source_file"]])
    ws.append([])
    ws.append(["Metric", "Value", "Unit"])
    header_row = ws.max_row
    for name, value in data["metrics"].items():
        unit = metric_unit(name)
        ws.append([name, value, unit])
        fmt = number_format(unit)
        if fmt and isinstance(value, (int, float)):
            ws.cell(row=ws.max_row, column=2).number_format = fmt
    style_header(ws, header_row)
    ws.freeze_panes = ws.cell(row=header_row + 1, column=1)
    ws.cell(row=1, column=1).font = _font(bold=True)
    ws.append([])
    ws.append(["Assumption", "Value", "Source"])
    style_header(ws, ws.max_row)
    for a in data["tables"].get("assumptions", []):
        ws.append([a.get("item"), _cell(a.get("value")), a.get("source")])
    widths(ws)


def _table_sheet(ws, rows: list[dict]) -> list[str]:
    cols = list(rows[0]) if rows else ["(empty)"]
    ws.append(cols)
    for r in rows:
        ws.append([_cell(r.get(c)) for c in cols])
    _finish(ws, cols, len(rows))
    return cols


def _finish(ws, cols: list[str], n: int) -> None:
    style_header(ws, 1)
    ws.freeze_panes = "A2"
    if n:
        ws.auto_filter.ref = ws.dimensions
    for j, c in enumerate(cols, start=1):
        fmt = number_format(column_unit(c))
        if fmt:
            for row in ws.iter_rows(min_row=2, max_row=n + 1, min_col=j, max_col=j):
                row[0].number_format = fmt
    widths(ws)


def _cell(v: Any) -> Any:
    if isinstance(v, (list, tuple, dict)):
        return str(v)
    return v


def _font(**kw):
    from openpyxl.styles import Font

    return Font(**kw)


def style_header(ws, row: int) -> None:
    from openpyxl.styles import Alignment, Font, PatternFill

    for cell in ws[row]:
        if cell.value is None:
            continue
        cell.font = Font(bold=True, color="FFFFFF")
        cell.fill = PatternFill("solid", fgColor=HEADER_FILL)
        cell.alignment = Alignment(vertical="center")


def widths(ws) -> None:
    for col in ws.columns:
        width = max((len(str(c.value)) for c in col
                     if c.value is not None and not str(c.value).startswith("=")), default=8)
        ws.column_dimensions[col[0].column_letter].width = min(max(width + 2, 10), 60)


def write_xlsx(data: dict[str, Any], path: Path, analysis=None, pngs=()) -> Path:
    wb = build_workbook(data, analysis, pngs)
    return write_atomic(path, lambda p: wb.save(p))
