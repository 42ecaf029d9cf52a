"""The decision summary at the top of the design workbook's Summary sheet (issue 30).

Under the title: the findings counted (design rules broken, then warnings), the broken
rules as a table (finding, kind, where, fix), each warning wrapped on its own row (its
height set from its length, so LibreOffice does not overprint the next row), then the
figures a committee decides on (:mod:`infra.reports.decision`). The sheet prints this
block, on one or two A4 landscape pages (:func:`infra.reports.xlsx_print.print_pages`);
every figure stays in the table below it and on the other sheets.
"""

from __future__ import annotations

from typing import Any

from infra.reports.decision import decision_summary, findings_line
from infra.reports.labels import number_format, value_text

TEXT_COLUMNS = 4  # A:D hold the block; a warning's text spans B:D
WIDTHS = {"A": 34, "B": 14, "C": 24, "D": 60}  # characters, the block's columns at most
LINE_PT = 15  # a wrapped line of 11 pt text


def write_decision(ws, data: dict[str, Any]) -> tuple[int, int]:
    """Append the decision block to ``ws``; returns (header row of its figures, last row)."""
    from openpyxl.styles import Alignment, Font

    from infra.reports.xlsx_style import findings_title, mark_unknown, style_header

    block = decision_summary(data)
    ws.append([])
    ws.append(["Decision summary"])
    ws.cell(row=ws.max_row, column=1).font = Font(bold=True, size=12)
    errors = data.get("findings") or ()
    ws.append([findings_line(block["counts"])])
    ws.cell(row=ws.max_row, column=1).font = Font(bold=True, color="9C0006" if errors else None)
    if errors:  # design rules broken: named first, the figures below computed all the same
        ws.append([findings_title(len(errors))])
        ws.cell(row=ws.max_row, column=1).font = Font(bold=True, color="9C0006")
        ws.append(["Finding", "Kind", "Where", "Fix"])
        style_header(ws, ws.max_row)
        for f in errors:
            where = (f.get("file") or "") + (f":{f['line']}" if f.get("file") and f.get("line") else "")
            where = f"{where}: {f['path']}" if where and f.get("path") else where or f.get("path")
            ws.append([f.get("message"), f.get("kind"), where, f.get("hint")])
            wrap_row(ws, ws.max_row, [WIDTHS[c] for c in "ABCD"])
    for severity, text in block["findings"]:
        if severity != "warning":
            continue
        ws.append(["Warning", text])
        row = ws.max_row
        ws.merge_cells(start_row=row, start_column=2, end_row=row, end_column=TEXT_COLUMNS)
        ws.cell(row=row, column=1).font = Font(bold=True, color="9C5700")
        ws.cell(row=row, column=1).alignment = Alignment(vertical="top")
        ws.cell(row=row, column=2).alignment = Alignment(wrap_text=True, vertical="top")
        ws.row_dimensions[row].height = LINE_PT * lines(text, sum(WIDTHS[c] for c in "BCD"))
    ws.append([])
    ws.append(["Metric", "Value", "Unit", "Note"])
    header = ws.max_row
    style_header(ws, header)
    for f in block["figures"]:
        value = f["value"]
        if value_text(f["key"], value) == "n/a":
            value = "n/a"
        ws.append([f["label"], value, f["unit"], f["note"]])
        row = ws.max_row
        cell = ws.cell(row=row, column=2)
        fmt = "#,##0.000" if f["unit"] == "MW" else number_format(f["unit"])
        if fmt and isinstance(value, (int, float)) and not isinstance(value, bool):
            cell.number_format = fmt
        if value is None:
            mark_unknown(cell)
        wrap_row(ws, row, [WIDTHS[c] for c in "ABCD"])
    return header, ws.max_row


def lines(text: str, width: int) -> int:
    """Lines ``text`` takes wrapped at spaces in a cell ``width`` characters wide.

    >>> lines("a" * 10, 20), lines("word " * 10, 20)
    (1, 3)
    """
    import textwrap

    return max(1, len(textwrap.wrap(str(text), max(width, 1), break_long_words=True)))


def wrap_row(ws, row: int, widths: list[int]) -> None:
    """Wrap the row's text cells and set its height to its tallest cell (LibreOffice keeps
    the default height of a wrapped row and overprints the next one)."""
    from openpyxl.styles import Alignment

    tallest = 1
    for col, width in enumerate(widths, start=1):
        c = ws.cell(row=row, column=col)
        if isinstance(c.value, str) and len(c.value) > width:
            c.alignment = Alignment(wrap_text=True, vertical="top")
            tallest = max(tallest, lines(c.value, width))
    if tallest > 1:
        ws.row_dimensions[row].height = LINE_PT * tallest


def cap_widths(ws) -> None:
    """The block's columns as wide as :data:`WIDTHS` (their text wraps, rows sized to it)."""
    for letter, width in WIDTHS.items():
        ws.column_dimensions[letter].width = width + 2
