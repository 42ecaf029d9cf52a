"""Workbook finishing: page setup, footers, input cells, hyperlinks, wrapped notes.

Applied to every sheet of every workbook ``infra`` writes (design, failures), after the
sheets are built, so a new sheet is printable with no code change:

- landscape, fit to one page wide (any number of pages tall), the header row repeated
  on every page, gridlines printed;
- a footer with the design name, ``infra`` and its version, the date and the page number;
  the date comes from ``SOURCE_DATE_EPOCH`` when set (reproducible builds), else the fixed
  text ``undated`` so reruns stay byte-identical;
- editable cells (unit prices) styled as inputs (blue on pale yellow, the financial-model
  convention) with data validation (a number >= 0, or blank for unknown);
- URLs turned into hyperlinks; long text columns wrapped.
"""

from __future__ import annotations

import datetime as dt
import os
from copy import copy

INPUT_COLUMNS = ("unit_price_usd", "Unit price (USD)")  # header text of editable columns
WRAP_COLUMNS = ("note", "source", "price_source", "basis", "why", "value", "where")
INPUT_FILL, INPUT_FONT = "FFF2CC", "0000FF"
UNKNOWN_FILL = "D9D9D9"


def report_date() -> str:
    """UTC date of ``SOURCE_DATE_EPOCH``, else ``undated`` (never the wall clock).

    Examples
    --------
    >>> import os; os.environ["SOURCE_DATE_EPOCH"] = "1764547200"; report_date()
    '2025-12-01'
    >>> del os.environ["SOURCE_DATE_EPOCH"]; report_date()
    'undated'
    """
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch.isdigit():
        return dt.datetime.fromtimestamp(int(epoch), dt.timezone.utc).strftime("%Y-%m-%d")
    return "undated"


def version() -> str:
    """infra's version (``infra.__version__``; reading the installed package's metadata
    cost 60 ms a workbook).

    Examples
    --------
    >>> import infra; version() == infra.__version__
    True
    """
    from infra import __version__

    return __version__


def finish(wb, design: str, header_rows: dict[str, int] | None = None,
           sheets: list | None = None) -> None:
    """Page setup, footer, input cells, hyperlinks and wrapping on every sheet of ``wb``
    (or only on ``sheets``).

    ``header_rows`` maps a sheet title to its header row (default 1), repeated on each page.
    """
    header_rows = header_rows or {}
    footer = _footer_text(design)
    for ws in wb.worksheets if sheets is None else sheets:
        row = header_rows.get(ws.title, 1)
        page_setup(ws, row, footer)
        _inputs_links_wrap(ws, row)


def _footer_text(design: str) -> str:
    text = f"{design} | infra {version()} | {report_date()}"
    return text.replace("&", "&&")  # '&' starts a footer code


def page_setup(ws, header_row: int, footer: str) -> None:
    """Landscape, one page wide, header row repeated, footer with page numbers."""
    ws.page_setup.orientation = "landscape"
    ws.page_setup.paperSize = ws.PAPERSIZE_A4
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 0  # as many pages tall as needed
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.print_options.gridLines = True
    ws.print_options.horizontalCentered = True
    if ws.max_row >= header_row:
        ws.print_title_rows = f"{header_rows_ref(header_row)}"
    ws.oddFooter.left.text = footer
    ws.oddFooter.left.size = 8
    ws.oddFooter.right.text = "&A, page &P of &N"
    ws.oddFooter.right.size = 8
    ws.page_margins.left = ws.page_margins.right = 0.4
    ws.page_margins.top, ws.page_margins.bottom = 0.5, 0.6


def header_rows_ref(row: int) -> str:
    return f"{row}:{row}"


def _inputs_links_wrap(ws, header_row: int) -> None:
    from openpyxl.styles import Alignment, Font, PatternFill
    from openpyxl.worksheet.datavalidation import DataValidation

    if ws.max_row < header_row or getattr(ws, "_infra_stream", None) is not None:
        return  # a streamed table's cells were styled as they were written
    header = {c.column_letter: str(c.value) for c in ws[header_row] if c.value is not None}
    for letter, name in header.items():
        cells = [c for (c,) in ws[f"{letter}{header_row + 1}:{letter}{ws.max_row}"]]
        if name in INPUT_COLUMNS:
            last = _last_data_row(cells)
            if last is None:
                continue
            dv = DataValidation(type="decimal", operator="greaterThanOrEqual", formula1="0",
                                allow_blank=True, showErrorMessage=True,
                                errorTitle="Unit price", error="Enter a price in USD (>= 0), "
                                "or leave blank for unknown.",
                                promptTitle="Input", prompt="Unit price in USD; blank = unknown")
            dv.add(f"{letter}{header_row + 1}:{letter}{last}")
            ws.add_data_validation(dv)
            for c in cells:
                if c.row <= last:
                    c.fill = PatternFill("solid", fgColor=INPUT_FILL)
                    c.font = Font(color=INPUT_FONT)
        wrap = name.lower().split(" (")[0] in WRAP_COLUMNS
        wrapped = None  # the first wrapped cell's style, copied to the others (no re-hash)
        for c in cells:
            v = c.value
            if not isinstance(v, str):
                continue
            if v.startswith(("http://", "https://")):
                c.hyperlink = v
                c.style = "Hyperlink"
            elif wrap and len(v) > 40:
                if wrapped is not None and c._style == wrapped[0]:
                    c._style = copy(wrapped[1])
                else:
                    before = copy(c._style)
                    c.alignment = Alignment(wrap_text=True, vertical="top")
                    wrapped = (before, c._style)


def _last_data_row(cells) -> int | None:
    """Last row of the table above the first fully blank row (the BOM has a Total below)."""
    last = None
    for c in cells:
        row = c.parent[c.row]
        if all(x.value is None for x in row) or row[0].value == "Total":
            break
        last = c.row
    return last
