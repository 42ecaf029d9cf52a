"""Shared workbook styling, a leaf the xlsx modules import (issue 32 item 4): sheet
names, the header style, column widths, the unknown hatch, the findings title and the
key figures' notes. It imports no other workbook module, so ``xlsx_report``,
``xlsx_stream``, ``xlsx_bom``, ``xlsx_decision``, ``xlsx_extras`` and ``atomic`` import
one way only (``xlsx_report`` re-exports these names for its callers).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

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
    "collectives": "Collectives",
}
HEADER_FILL = "305496"
WIDTH_ROWS = 1000  # rows measured for column widths

def sheet_name(table: str) -> str:
    return SHEET_NAMES.get(table, table.replace("_", " ").capitalize())[:31]


def findings_title(n: int) -> str:
    """The line above a report's findings (as the terminal's ``FINDINGS:`` line).

    >>> findings_title(2)
    'FINDINGS: 2 design rules broken (every figure is computed all the same; exit status 1)'
    """
    return (f"FINDINGS: {n} design rule{'s' if n != 1 else ''} broken (every figure is "
            "computed all the same; exit status 1)")


def summary_note(name: str, m: dict[str, Any]) -> str:
    """``unknown`` or the lower-bound mark of a key figure (from the analysis' own counts)."""
    if m.get(name) is None:
        if name == "capex_priced_usd" and m.get("capex_unpriced_sku_count"):
            return f"unknown: {m['capex_unpriced_sku_count']} SKUs unpriced"
        return "unknown"
    if name == "racks":
        from infra.reports.decision import racks_note

        return racks_note(m)
    if name == "capex_priced_usd" and m.get("capex_unpriced_sku_count"):
        return f"lower bound: {m['capex_unpriced_sku_count']} SKUs unpriced"
    if name == "it_power_kw" and m.get("power_unknown_parts_count"):
        return f"lower bound: {m['power_unknown_parts_count']} parts with unpublished power"
    return ""


def mark_unknown(cell, comment: bool = True) -> None:
    """A blank cell that reads as unknown: grey hatch (and a comment), never a 0."""
    from openpyxl.comments import Comment

    cell.value = None
    cell.fill = _unknown_fill()
    if comment:
        cell.comment = Comment("unknown: no published or estimated figure", "infra")


@lru_cache(maxsize=1)
def _unknown_fill():
    """One shared fill object: building a PatternFill per cell cost seconds on big sheets."""
    from openpyxl.styles import PatternFill

    return PatternFill("lightGray", fgColor="A6A6A6", bgColor="FFFFFF")


def _cell(v: Any) -> Any:
    if isinstance(v, (list, tuple, dict)):
        return str(v)
    return v


def _font(**kw):
    from openpyxl.styles import Font

    return Font(**kw)


def style_header(ws, row: int) -> None:
    """Bold white on blue, wrapped: one style, built once per workbook and copied."""
    from copy import copy

    style = _header_style(ws)
    for cell in ws[row]:
        if cell.value is not None:
            cell._style = copy(style)


def _header_style(ws):
    wb = ws.parent
    style = getattr(wb, "_infra_header_style", None)
    if style is None:
        from openpyxl.cell import Cell
        from openpyxl.styles import Alignment, Font, PatternFill

        c = Cell(ws)
        c.font = Font(bold=True, color="FFFFFF")
        c.fill = PatternFill("solid", fgColor=HEADER_FILL)
        c.alignment = Alignment(vertical="center", wrap_text=True)
        style = wb._infra_header_style = c._style
    return style


def widths(ws) -> None:
    """Column widths from the cells (headers wrap, so they count up to 16 characters).

    Only the first :data:`WIDTH_ROWS` rows are measured, so a 30,000-row sheet costs what
    a 1,000-row one does.
    """
    for col in ws.iter_cols(max_row=min(ws.max_row, WIDTH_ROWS)):
        width = max((n for n in map(_width, col) if n is not None), default=8)
        ws.column_dimensions[col[0].column_letter].width = min(max(width + 2, 10), 60)


def _width(c) -> int | None:
    """Characters a cell needs: formulas none, bold headers at most 16 (they wrap), else 60."""
    if c.value is None:
        return None
    text = str(c.value)
    if text.startswith("="):
        return None
    n = len(text)  # the font is only looked at when it could matter (it costs a style lookup)
    return 16 if n > 16 and c.has_style and c.font and c.font.b else min(n, 60)


unknown_fill = _unknown_fill
