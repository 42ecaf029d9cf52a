"""Streamed table sheets: rows written straight from the table's dicts to sheet XML.

openpyxl builds a Python object per cell and styles each one through its style cache:
about 35 us a cell, 11 s for the 300,000 cells of a 1,000-layout hall. A table sheet
here keeps openpyxl for everything but its data rows (header cells and their comments,
column widths, frozen pane, filter, page setup, charts referencing it), and its data
rows are serialised once, when the sheet is built, as ``<row>`` XML with a style id per
column (number format, the unknown hatch, wrapped text, hyperlink, input cell): about
1 us a cell, and no cell objects held. :class:`StreamingExcelWriter` splices those rows
into the sheet openpyxl writes, and writes the archive reproducibly in one pass.

The cells are those openpyxl would write: numbers as numbers, text as inline strings,
``True``/``False`` as booleans, lists and dicts as their text, blanks in numeric columns
hatched (unknown, never 0). Text is never read as a formula, and characters XML cannot
hold are dropped.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from openpyxl.cell import Cell
from openpyxl.utils import get_column_letter
from openpyxl.worksheet._writer import WorksheetWriter
from openpyxl.worksheet.dimensions import SheetDimension
from openpyxl.worksheet.hyperlink import Hyperlink
from openpyxl.writer.excel import ExcelWriter

from infra.reports.labels import column_unit, number_format
from infra.reports.xlsx_style import WIDTH_ROWS, _unknown_fill

_ILLEGAL = re.compile(r"[\000-\010]|[\013-\014]|[\016-\037]")  # as openpyxl's
MAX_TEXT = 32_767  # Excel's limit on the characters in a cell


@dataclass
class Streamed:
    """A sheet's data rows as XML, and what openpyxl needs to know about them."""

    body: bytes
    ref: str  # the sheet's dimension, header included, e.g. "A1:K6501"
    links: list = field(default_factory=list)  # Hyperlink objects of URL cells


@dataclass
class _Col:
    letter: str
    key: str
    plain: str  # ' s="N"' of an ordinary cell ('' for the default style)
    blank: str | None  # the style of a blank cell, None: write no cell
    wrap: str | None  # the style of long wrapped text, None: this column does not wrap
    numeric: bool  # blanks hatched as unknown
    width: int = 0


def stream_table(ws, cols: list[str], headers: list[str], rows: list[dict],
                 hatch: bool = True) -> set[int]:
    """Serialise ``rows`` (data rows 2..) onto ``ws``; returns the columns with blanks.

    ``ws`` already holds the header row (row 1). Column widths, the filter range and the
    input cells' validation are set here; the caller styles the header. ``hatch``: mark
    blanks in numeric columns as unknown (grey hatch).
    """
    from infra.reports.xlsx_print import INPUT_COLUMNS, WRAP_COLUMNS

    spec = [_column(ws, j, c, h, rows, INPUT_COLUMNS, WRAP_COLUMNS, hatch)
            for j, (c, h) in enumerate(zip(cols, headers), start=1)]
    link_style = _style(ws, named="Hyperlink")
    out: list[str] = []
    links: list = []
    blanks: set[int] = set()
    for i, r in enumerate(rows, start=2):
        out.append(f'<row r="{i}">')
        for j, col in enumerate(spec, start=1):
            v = r.get(col.key)
            if i <= WIDTH_ROWS and v is not None:
                col.width = max(col.width, min(len(str(v)), 60))
            cell = _cell(col, f"{col.letter}{i}", v, link_style, links)
            if cell is None:
                continue
            if col.numeric and (v is None or (type(v) is float and not math.isfinite(v))):
                blanks.add(j)  # hatched: the header says what a hatched blank means
            out.append(cell)
        out.append("</row>")
    last = f"{spec[-1].letter}{len(rows) + 1}"
    ws._infra_stream = Streamed("".join(out).encode("utf-8"), f"A1:{last}", links)
    ws.auto_filter.ref = f"A1:{last}"
    for col, h in zip(spec, headers):
        head = 16 if len(h) > 16 else len(h)  # bold headers wrap
        width = max(col.width, head) or 8
        ws.column_dimensions[col.letter].width = min(max(width + 2, 10), 60)
    return blanks


def _column(ws, j, key, header, rows, inputs, wraps, hatch: bool = True) -> _Col:
    fmt = number_format(column_unit(key))
    numeric = hatch and any(isinstance(r.get(key), (int, float)) for r in rows)
    is_input = key in inputs or header in inputs
    base = {"number_format": fmt} if fmt else {}
    if is_input:
        base.update(input_cell=True)
        _validate(ws, f"{get_column_letter(j)}2:{get_column_letter(j)}{len(rows) + 1}")
    plain = _style(ws, **base)
    blank = _style(ws, unknown=True, **base) if numeric and not is_input else (
        plain if is_input else None)
    wrap = _style(ws, wrap=True, **base) if header.lower().split(" (")[0] in wraps else None
    return _Col(get_column_letter(j), key, plain, blank, wrap, numeric and not is_input)


def _cell(col: _Col, ref: str, v, link_style: str, links: list) -> str | None:
    t = type(v)
    if t is int or (t is float and math.isfinite(v)):
        return f'<c r="{ref}"{col.plain}><v>{v!r}</v></c>'
    if v is None or t is float:  # a blank, or NaN/infinity: unknown, never a number
        return None if col.blank is None else f'<c r="{ref}"{col.blank}/>'
    if t is bool:
        return f'<c r="{ref}" t="b"{col.plain}><v>{int(v)}</v></c>'
    if t is not str:
        if isinstance(v, bool):
            return f'<c r="{ref}" t="b"{col.plain}><v>{int(v)}</v></c>'
        if isinstance(v, (int, float)):  # a subclass (an IntEnum, a numpy number)
            return _cell(col, ref, (int if isinstance(v, int) else float)(v), link_style, links)
        v = str(v)  # lists and dicts as their text, as in the JSON's reading
    style = col.plain
    if v.startswith(("http://", "https://")):
        links.append(Hyperlink(ref=ref, target=v))
        style = link_style
    elif col.wrap is not None and len(v) > 40:
        style = col.wrap
    return f'<c r="{ref}" t="inlineStr"{style}><is>{_text(v)}</is></c>'


def _text(v: str) -> str:
    if len(v) > MAX_TEXT:
        v = v[:MAX_TEXT]
    if _ILLEGAL.search(v):
        v = _ILLEGAL.sub("", v)
    space = ' xml:space="preserve"' if v[:1].isspace() or v[-1:].isspace() else ""
    v = v.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if "\r" in v:
        v = v.replace("\r", "&#13;")
    return f"<t{space}>{v}</t>"


def _style(ws, number_format: str | None = None, unknown: bool = False, wrap: bool = False,
           input_cell: bool = False, named: str | None = None) -> str:
    """`` s="N"``: the workbook's style id of a cell so styled ('' for the default);
    each combination is built once per workbook."""
    from openpyxl.styles import Alignment, Font, PatternFill

    from infra.reports.xlsx_print import INPUT_FILL, INPUT_FONT

    cache = ws.parent.__dict__.setdefault("_infra_styles", {})
    key = (number_format, unknown, wrap, input_cell, named)
    if key in cache:
        return cache[key]
    c = Cell(ws)
    if named:
        c.style = named
    if number_format:
        c.number_format = number_format
    if unknown:
        c.fill = _unknown_fill()
    if input_cell:
        c.fill = PatternFill("solid", fgColor=INPUT_FILL)
        c.font = Font(color=INPUT_FONT)
    if wrap:
        c.alignment = Alignment(wrap_text=True, vertical="top")
    n = c.style_id
    cache[key] = f' s="{n}"' if n else ""
    return cache[key]


def _validate(ws, ref: str) -> None:
    from openpyxl.worksheet.datavalidation import DataValidation

    dv = DataValidation(type="decimal", operator="greaterThanOrEqual", formula1="0",
                        allow_blank=True, showErrorMessage=True, errorTitle="Unit price",
                        error="Enter a price in USD (>= 0), or leave blank for unknown.",
                        promptTitle="Input", prompt="Unit price in USD; blank = unknown")
    dv.add(ref)
    ws.add_data_validation(dv)


class _Writer(WorksheetWriter):
    """openpyxl's sheet writer, with the dimension of the streamed rows, if any."""

    def write_dimensions(self):
        stream = getattr(self.ws, "_infra_stream", None)
        if stream is None:
            return super().write_dimensions()
        self.xf.send(SheetDimension(ref=stream.ref).to_tree())


class StreamingExcelWriter(ExcelWriter):
    """openpyxl's workbook writer: sheets written in memory (no temporary file each),
    each streamed sheet's rows spliced into its XML; a sheet built with a deferred fill
    (the Diagrams sheet, see ``build_workbook(defer_pictures=True)``) is filled just
    before it is written."""

    def write_worksheet(self, ws):
        fill = ws.__dict__.pop("_infra_fill", None)
        if fill is not None:
            fill()
        if self.workbook.write_only:
            return super().write_worksheet(ws)
        from io import BytesIO

        from openpyxl.drawing.spreadsheet_drawing import SpreadsheetDrawing

        stream = getattr(ws, "_infra_stream", None)
        ws._drawing = SpreadsheetDrawing()
        ws._drawing.charts = ws._charts
        ws._drawing.images = ws._images
        writer = _Writer(ws, out=BytesIO())
        if stream is not None:
            ws._hyperlinks.extend(stream.links)  # the writer's constructor emptied the list
        writer.write()
        ws._rels = writer._rels
        xml = writer.out.getvalue()
        if stream is not None:
            head, tail = xml.split(b"</sheetData>", 1)  # the header row is always there
            xml = head + stream.body + b"</sheetData>" + tail
        self._archive.writestr(ws.path[1:], xml)
        self.manifest.append(ws)
