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

from infra.reports.atomic import save_workbook, write_atomic
from infra.reports.xlsx_style import (_cell, _font, mark_unknown, sheet_name, style_header,
                                      summary_note, widths)
from infra.reports.labels import (column_header, metric_label, metric_unit, number_format,
                                  shown_unit, value_text)

BOM = "bill_of_materials"
PRICE, EXTENDED = "unit_price_usd", "extended_usd"


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
    wb["Summary"].page_setup.fitToHeight = 2  # the printed summary: at most 2 pages
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


def write_xlsx(data: dict[str, Any], path: Path, analysis=None, pngs=(), sources=None) -> Path:
    """Write the workbook of ``data`` to ``path`` atomically (see :func:`build_workbook`)."""
    wb = build_workbook(data, analysis, pngs, sources, defer_pictures=True)
    return write_atomic(path, lambda p: save_workbook(wb, p))
