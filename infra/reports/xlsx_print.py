"""Workbook finishing: page setup, footers, input cells, hyperlinks, wrapped notes.

Applied to every sheet of every workbook ``infra`` writes (design, failures), after the
sheets are built, so a new sheet is printable with no code change:

- landscape A4, fit to one page wide (any number of pages tall), the header row repeated
  on every page, gridlines printed; a table too wide to print legibly on one page wide
  (below :data:`MIN_SCALE`, text under about 6 pt) prints on as many pages wide as keep
  it legible (at most :data:`MAX_PAGES_WIDE`), its first column repeated on each;
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
    import sys

    # the package is imported before any of its modules: read it, no import edge back to
    # ``infra`` (whose API imports the exports, which write workbooks through this module)
    return sys.modules["infra"].__version__


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
        if getattr(ws, "_images", None):
            pictures_one_per_page(ws)
        fit_legibly(ws)
        if getattr(ws, "_charts", None):
            charts_whole(ws)


def print_setup(wb, title: str, header_rows: dict[str, int] | None = None) -> None:
    """Page setup for any workbook (compare, failures, sweep, diff): every sheet landscape
    A4, one page wide, its header row repeated, the footer with ``title``, ``infra``'s
    version, the date and the page number; pictures one per page, scaled to fit it.
    Cells are not restyled (:func:`finish` also styles price inputs and links)."""
    header_rows = header_rows or {}
    footer = _footer_text(title)
    for ws in wb.worksheets:
        if not hasattr(ws, "page_setup"):  # a chartsheet
            continue
        page_setup(ws, header_rows.get(ws.title, 1), footer)
        if getattr(ws, "_images", None):
            pictures_one_per_page(ws)
        fit_legibly(ws)
        if getattr(ws, "_charts", None):
            charts_whole(ws)


# A4 landscape, in points (1/72 inch): 297 x 210 mm
PAGE_W_PT, PAGE_H_PT = 841.89, 595.28
ROW_PT = 15.0  # default row height (Calibri 11)
COLUMN_PX = 64  # default column width (8.43 characters)


def printable_pt(ws) -> tuple[float, float]:
    """Width and height (points) inside the margins of an A4 landscape page."""
    m = ws.page_margins
    return (PAGE_W_PT - 72 * (m.left + m.right), PAGE_H_PT - 72 * (m.top + m.bottom))


def column_pt(ws, letter: str) -> float:
    """A column's printed width in points: Excel's ``width * 7 + 5`` pixels (Calibri 11's
    7-pixel digit), 0.75 point a pixel."""
    dim = ws.column_dimensions.get(letter)
    width = dim.width if dim is not None and dim.width else None
    return 0.75 * ((width * 7 + 5) if width else COLUMN_PX)


def pictures_one_per_page(ws) -> None:
    """Each picture of ``ws`` on its own page with its title (the cell above it), scaled
    down to fit the page (aspect kept): pictures are laid out again, one title row and
    the picture's rows each, with a page break before every title but the first. The
    print area covers the pictures' width."""
    import math

    from copy import copy

    from openpyxl.utils import get_column_letter
    from openpyxl.worksheet.pagebreak import Break, RowBreak

    width_pt, height_pt = printable_pt(ws)
    cols = max(1, round(width_pt / (COLUMN_PX * 0.75)) - 1)  # pictures' columns, default width
    max_w = cols * COLUMN_PX  # pixels: at 100 % a picture this wide fits the page
    max_h = (height_pt - 2 * ROW_PT) / 0.75  # its title row above it on the same page
    images = sorted(ws._images, key=_anchor_row)
    titles = []
    for img in images:  # each picture's title: the cell above it, taken off its row
        above = ws.cell(row=max(_anchor_row(img) - 1, 1), column=1)
        titles.append((above.value, copy(above.font)))
        above.value = None
    ws.row_breaks = RowBreak()
    row = 1
    for i, (img, (title, font)) in enumerate(zip(images, titles)):
        scale = min(1.0, max_w / img.width if img.width else 1.0,
                    max_h / img.height if img.height else 1.0)
        img.width, img.height = int(img.width * scale), int(img.height * scale)
        if i:
            ws.row_breaks.append(Break(id=row - 1))  # the title starts a page
        cell = ws.cell(row=row, column=1, value=title)
        cell.font = font
        img.anchor = f"A{row + 1}"
        row += 1 + math.ceil(img.height * 0.75 / ROW_PT)
    ws.print_area = f"A1:{get_column_letter(cols)}{row - 1}"
    ws._print_rows = None  # a picture's own title prints above it, no header row repeated


def charts_whole(ws) -> None:
    """No chart cut by a page break: a chart that would cross the foot of its page starts
    the next one (a row break above its top row), as a spreadsheet lays pages out at the
    sheet's print scale. A chart taller than a page is left where it is (it is scaled
    with the sheet).

    >>> from openpyxl import Workbook
    >>> from openpyxl.chart import BarChart
    >>> ws = Workbook().active
    >>> for row in (1, 23, 45):  # 11 cm charts (21 rows of 15 pt) one below the other
    ...     ch = BarChart(); ch.height = 11; ws.add_chart(ch, f"A{row}")
    >>> page_setup(ws, 1, "t"); charts_whole(ws)
    >>> [b.id for b in ws.row_breaks.brk]  # 34 rows a page: the second chart starts page 2
    [22, 44]
    """
    from openpyxl.worksheet.pagebreak import Break, RowBreak

    page = printable_pt(ws)[1] / print_scale(ws)  # the sheet's points a page holds
    breaks = {b.id for b in ws.row_breaks.brk} if ws.row_breaks else set()
    used, row = 0.0, 1  # points on the current page, the next row to lay out

    def lay(first: int, last: int) -> None:  # rows fill pages whole, as a spreadsheet's
        nonlocal used
        for r in range(first, last + 1):
            h = _row_pt(ws, r)
            if used + h > page + 1e-6 and used > 0:
                used = 0.0
            used += h
            if r in breaks:
                used = 0.0

    for ch in sorted(ws._charts, key=_anchor_row):
        top = _anchor_row(ch)
        bottom = chart_bottom_row(ws, ch)
        lay(row, top - 1)
        tall = sum(_row_pt(ws, r) for r in range(top, bottom + 1))
        if used + tall > page + 1e-6 and used > 0 and tall <= page and top > 1:
            breaks.add(top - 1)
            used = 0.0
        lay(top, bottom)
        row = bottom + 1
    ws.row_breaks = RowBreak()
    for b in sorted(breaks):
        ws.row_breaks.append(Break(id=b))


def chart_bottom_row(ws, chart) -> int:
    """The row a chart's bottom edge falls in (its height in cm over the rows' heights)."""
    tall = (chart.height or 7.5) / 2.54 * 72
    r = _anchor_row(chart)
    tall -= _row_pt(ws, r)
    while tall > 1e-6:
        r += 1
        tall -= _row_pt(ws, r)
    return r


def _anchor_row(img) -> int:
    """1-based row of a picture's top left cell (anchored by cell name or marker)."""
    anchor = img.anchor
    if isinstance(anchor, str):
        from openpyxl.utils.cell import coordinate_from_string

        return coordinate_from_string(anchor)[1]
    return anchor._from.row + 1


MIN_SCALE = 0.55  # 11 pt text prints at 6 pt or more
MAX_PAGES_WIDE = 3


def print_columns(ws) -> tuple[int, int, int, int]:
    """``(min_col, min_row, max_col, max_row)`` printed: the print area, else the used
    range (a streamed table's rows included)."""
    from openpyxl.utils.cell import range_boundaries

    area = ws.print_area
    if area:
        ref = (area[0] if isinstance(area, (list, tuple)) else str(area)).split("!")[-1]
        return range_boundaries(ref.replace("$", ""))
    stream = getattr(ws, "_infra_stream", None)
    if stream is not None:
        _, _, max_col, max_row = range_boundaries(stream.ref)
        return 1, 1, max(max_col, ws.max_column), max(max_row, ws.max_row)
    return 1, 1, ws.max_column, ws.max_row


def content_pt(ws) -> float:
    """Printed width (points, at 100 %) of the columns ``ws`` prints."""
    from openpyxl.utils import get_column_letter

    min_col, _, max_col, _ = print_columns(ws)
    return sum(column_pt(ws, get_column_letter(c)) for c in range(min_col, max_col + 1))


def print_scale(ws) -> float:
    """The scale a spreadsheet prints ``ws`` at (1.0: 100 %): fitted to its pages wide,
    else its fixed scale.

    >>> from openpyxl import Workbook
    >>> ws = Workbook().active
    >>> for i in range(1, 31): _ = ws.cell(row=1, column=i, value="x")
    >>> page_setup(ws, 1, "t"); round(print_scale(ws), 2)  # 30 x 48 pt on 784.3 pt
    0.54
    """
    fit = ws.sheet_properties.pageSetUpPr is not None and ws.sheet_properties.pageSetUpPr.fitToPage
    if fit and ws.page_setup.fitToWidth:
        content = content_pt(ws)
        width = printable_pt(ws)[0] * int(ws.page_setup.fitToWidth)
        return min(1.0, width / content) if content else 1.0
    return (ws.page_setup.scale or 100) / 100


def fit_legibly(ws) -> None:
    """A sheet that one page wide would print below :data:`MIN_SCALE` prints on the pages
    wide that keep it at or above it (at most :data:`MAX_PAGES_WIDE`), its first column
    repeated on each page so every row stays named. Pictures' pages are left as laid out.

    >>> from openpyxl import Workbook
    >>> ws = Workbook().active
    >>> for i in range(1, 31): _ = ws.cell(row=1, column=i, value="x")
    >>> page_setup(ws, 1, "t"); fit_legibly(ws)
    >>> ws.page_setup.fitToWidth, ws.print_title_cols, round(print_scale(ws), 2)
    (2, '$A:$A', 1.0)
    """
    import math

    if not hasattr(ws, "page_setup") or getattr(ws, "_images", None):
        return
    ws.page_setup.fitToWidth = 1
    content, width = content_pt(ws), printable_pt(ws)[0]
    if not content or width / content >= MIN_SCALE:
        return
    ws.page_setup.fitToWidth = min(MAX_PAGES_WIDE, math.ceil(content * MIN_SCALE / width))
    ws.print_title_cols = "A:A"


def print_pages(ws) -> int:
    """Pages ``ws`` prints on, from its page setup and row heights (the arithmetic a
    spreadsheet does): the print area (else the used range) scaled to one page wide when
    the sheet fits to width, rows filling A4 landscape pages in turn, a row that does not
    fit starting the next page, manual row breaks and repeated title rows counted.

    A4 landscape is 595.28 pt tall; less margins of 0.5 + 0.6 inch (79.2 pt) that leaves
    516.08 pt, 34 rows of 15 pt: 80 rows take three pages (34 + 34 + 12).
    >>> from openpyxl import Workbook
    >>> ws = Workbook().active
    >>> for i in range(80): ws.append([i])
    >>> page_setup(ws, 1, "x"); ws.print_title_rows = None
    >>> print_pages(ws), round(printable_pt(ws)[1] // ROW_PT)
    (3, 34)
    """
    _, min_row, _, max_row = print_columns(ws)
    height_pt = printable_pt(ws)[1]
    scale = print_scale(ws)
    fit = ws.sheet_properties.pageSetUpPr is not None and ws.sheet_properties.pageSetUpPr.fitToPage
    wide = int(ws.page_setup.fitToWidth or 1) if fit else 1
    breaks = {b.id for b in ws.row_breaks.brk} if ws.row_breaks else set()
    titles = _title_rows(ws)
    title_pt = sum(_row_pt(ws, r) for r in titles) * scale
    pages, used = 1, 0.0
    for r in range(min_row, max_row + 1):
        h = _row_pt(ws, r) * scale
        if used + h > height_pt + 1e-6 and used > 0:
            pages, used = pages + 1, title_pt if r not in titles else 0.0
        used += h
        if r in breaks and r < max_row:
            pages, used = pages + 1, title_pt
    return pages * wide


def _row_pt(ws, r: int) -> float:
    dim = ws.row_dimensions.get(r)
    return dim.height if dim is not None and dim.height else ROW_PT


def _title_rows(ws) -> set[int]:
    ref = ws.print_title_rows
    if not ref:
        return set()
    first, _, last = str(ref).replace("$", "").partition(":")
    return set(range(int(first), int(last or first) + 1))


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
