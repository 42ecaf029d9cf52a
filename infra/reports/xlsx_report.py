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

from functools import lru_cache
from pathlib import Path
from typing import Any

from infra.reports.atomic import save_workbook, write_atomic
from infra.reports.labels import (column_header, column_unit, metric_label, metric_unit,
                                  number_format, shown_unit, value_text)

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
BOM = "bill_of_materials"
PRICE, EXTENDED = "unit_price_usd", "extended_usd"


def sheet_name(table: str) -> str:
    return SHEET_NAMES.get(table, table.replace("_", " ").capitalize())[:31]


def build_workbook(data: dict[str, Any], analysis=None, pngs=(), sources=None,
                   defer_pictures: bool = False):
    """An openpyxl Workbook of the JSON-contract dict (not saved).

    ``sources``: the Sources sheet's rows (:func:`infra.models.listing.bom_source_rows`),
    else taken from ``analysis``'s catalog; neither: no Sources sheet.
    ``defer_pictures``: the Diagrams sheet is filled (iterating ``pngs``, which waits for
    the renderer) only when :func:`infra.reports.atomic.save_workbook` reaches it, so the
    sheets before it are serialised while the diagrams are still being drawn.
    """
    from openpyxl import Workbook

    from infra.reports import xlsx_extras

    from infra.reports.xlsx_print import finish

    wb = Workbook()
    header_row = _summary(wb.active, data)
    bom_cells = None
    for table, rows in data["tables"].items():
        ws = wb.create_sheet(sheet_name(table))
        if table == BOM:
            from infra.reports.xlsx_bom import bom_sheet

            bom_cells = bom_sheet(ws, rows)
        else:
            if table == "rack_elevation" and rows and "top_position_u" not in rows[0]:
                from infra.analysis.layout.elevation import elevation_runs

                rows = elevation_runs(rows)  # per-unit rows (JSON format 1) as runs
            cols = _table_sheet(ws, _unknown_power(table, rows), sheet_name(table))
            if table == "rack_elevation" and "count" in cols:
                _runs_note(ws, cols.index("count") + 1)
    if bom_cells:
        from infra.reports.xlsx_bom import link_summary

        link_summary(wb, bom_cells, sheet_name(BOM))
    xlsx_extras.add_charts(wb, data)
    pictures = wb.create_sheet("Diagrams") if pngs else None  # in place, filled last
    if sources is None and analysis is not None:
        from infra.models.listing import bom_source_rows

        sources = bom_source_rows(analysis.rd.catalog, data["tables"].get(BOM, []))
    if sources is not None:
        xlsx_extras.add_sources(wb, sources)
    name = data["design"]["name"]
    header_row = getattr(wb["Summary"], "_infra_print_header", header_row)  # decision block's
    finish(wb, name, {"Summary": header_row}, [ws for ws in wb.worksheets if ws is not pictures])
    if pictures is not None:  # the renderer runs meanwhile: wait for it only now

        def fill() -> None:
            xlsx_extras.fill_diagrams(pictures, pngs)
            finish(wb, name, sheets=[pictures])

        if defer_pictures:
            pictures._infra_fill = fill  # called by the writer just before the sheet
        else:
            fill()
    return wb


def _summary(ws, data: dict[str, Any]) -> int:
    """Key figures: label, value, unit (once), note (unknown / lower bound), field name."""
    ws.title = "Summary"
    ws.append(["Design", data["design"]["name"]])
    ws.append(["Source file", data["design"]["source_file"]])
    from infra.reports.xlsx_decision import cap_widths, write_decision, wrap_row

    decision_header, decision_last = write_decision(ws, data)  # findings, then figures
    ws.append([])
    ws.append(["Metric", "Value", "Unit", "Note", "Field"])
    header_row = ws.max_row
    m = data["metrics"]
    for name, value in m.items():
        unit = metric_unit(name)
        shown = "n/a" if value_text(name, value) == "n/a" else value  # a precision not run
        ws.append([metric_label(name), shown, shown_unit(name), summary_note(name, m), name])
        cell = ws.cell(row=ws.max_row, column=2)
        fmt = number_format(unit)
        if fmt and isinstance(shown, (int, float)) and not isinstance(shown, bool):
            cell.number_format = fmt
        if value is None:
            mark_unknown(cell)
    style_header(ws, header_row)
    ws.freeze_panes = "A3"  # the design's name stays in view; the decision block below it
    ws.cell(row=1, column=1).font = _font(bold=True)
    assumptions = data["tables"].get("assumptions", [])
    if assumptions:
        ws.append([])
        ws.append(["Assumption", "Value", "Source"])
        style_header(ws, ws.max_row)
        for a in assumptions:
            if a.get("item") == "warning":  # each in the decision summary, whole
                continue
            ws.append([a.get("item"), _cell(a.get("value")), a.get("source")])
            wrap_row(ws, ws.max_row, [34, 14, 24])
    widths(ws)
    cap_widths(ws)
    ws.print_area = f"A1:D{decision_last}"  # the printed summary: the decision block
    ws._infra_print_header = decision_header
    return header_row


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


def _unknown_power(table: str, rows: list[dict]) -> list[dict]:
    """Power by unit: a unit whose own figure is unpublished has unknown watts, not 0 W."""
    if table != "power_by_unit":
        return rows
    out = []
    for r in rows:
        unknown = [u.strip() for u in str(r.get("unknown_power_parts") or "").split(",")]
        if r.get("basis") == "published unit figure" and r.get("unit") in unknown:
            r = {**r, **{k: None for k in r if k.endswith("_w_per_unit")},
                 "basis": "unknown (not published)"}
        out.append(r)
    return out


def _table_sheet(ws, rows: list[dict], title: str = "") -> list[str]:
    """One analysis table: human headers with units, unknowns blank and marked.

    The data rows are streamed (:mod:`infra.reports.xlsx_stream`): written as sheet XML
    straight from the rows, with no openpyxl cell per value.
    """
    if not rows:
        ws.append([f"No {title.lower() or 'rows'} in this design."])
        ws.cell(row=1, column=1).font = _font(italic=True)
        return []
    from openpyxl.comments import Comment

    from infra.reports.xlsx_stream import stream_table

    cols = list(rows[0])
    headers = [column_header(c) for c in cols]
    ws.append(headers)
    blanks = stream_table(ws, cols, headers, rows)
    style_header(ws, 1)
    ws.freeze_panes = "A2"
    for j in blanks:
        ws.cell(row=1, column=j).comment = Comment(
            "Hatched blank = unknown or not applicable (never 0).", "infra")
    return cols


def _runs_note(ws, col: int) -> None:
    """Say on the sheet that its rows are runs of units, not one row per unit."""
    from openpyxl.comments import Comment

    ws.cell(row=1, column=col).comment = Comment(
        "One row per run of identical units stacked one above the other: Count units "
        "from Top position (U) down to Bottom position (U), the same in each of the "
        "layout's racks. The JSON report's rack_elevation table has the same rows.",
        "infra", height=140, width=300)


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


def write_xlsx(data: dict[str, Any], path: Path, analysis=None, pngs=(), sources=None) -> Path:
    """Write the workbook of ``data`` to ``path`` atomically (see :func:`build_workbook`)."""
    wb = build_workbook(data, analysis, pngs, sources, defer_pictures=True)
    return write_atomic(path, lambda p: save_workbook(wb, p))
