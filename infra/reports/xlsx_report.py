"""xlsx workbook: a Summary sheet of metrics with units, one sheet per table.

Only formats what the analyses computed; written atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from infra.reports.atomic import write_atomic
from infra.reports.labels import metric_unit

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
}


def sheet_name(table: str) -> str:
    return SHEET_NAMES.get(table, table.replace("_", " ").capitalize())[:31]


def build_workbook(data: dict[str, Any]):
    """An openpyxl Workbook of the JSON-contract dict (not saved)."""
    from openpyxl import Workbook
    from openpyxl.styles import Font, PatternFill

    wb = Workbook()
    ws = wb.active
    ws.title = "Summary"
    ws.append(["Design", data["design"]["name"]])
    ws.append(["Source file", data["design"]["source_file"]])
    ws.append([])
    ws.append(["Metric", "Value", "Unit"])
    header_row = ws.max_row
    for name, value in data["metrics"].items():
        ws.append([name, value, metric_unit(name)])
    _style_header(ws, header_row, Font, PatternFill)
    ws.freeze_panes = ws.cell(row=header_row + 1, column=1)
    _widths(ws)
    for table, rows in data["tables"].items():
        sheet = wb.create_sheet(sheet_name(table))
        cols = list(rows[0]) if rows else ["(empty)"]
        sheet.append(cols)
        for r in rows:
            sheet.append([_cell(r.get(c)) for c in cols])
        _style_header(sheet, 1, Font, PatternFill)
        sheet.freeze_panes = "A2"
        if rows:
            sheet.auto_filter.ref = sheet.dimensions
        _widths(sheet)
    return wb


def _cell(v: Any) -> Any:
    if isinstance(v, (list, tuple, dict)):
        return str(v)
    return v


def _style_header(ws, row: int, Font, PatternFill) -> None:  # noqa: N803
    for cell in ws[row]:
        cell.font = Font(bold=True, color="FFFFFF")
        cell.fill = PatternFill("solid", fgColor="305496")


def _widths(ws) -> None:
    for col in ws.columns:
        width = max((len(str(c.value)) for c in col if c.value is not None), default=8)
        ws.column_dimensions[col[0].column_letter].width = min(max(width + 2, 8), 60)


def write_xlsx(data: dict[str, Any], path: Path) -> Path:
    wb = build_workbook(data)
    return write_atomic(path, lambda p: wb.save(p))
