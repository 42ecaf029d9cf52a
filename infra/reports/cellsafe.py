"""Spreadsheet and CSV cells that never carry a formula from the data (CSV injection).

OWASP's rule ("CSV Injection"): a cell whose text starts with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return may be run as a formula by a spreadsheet program.
Design names, host directory names, grid values and every other text from the inputs
reach the workbooks and CSV files, so:

- **Workbooks.** openpyxl stores any string starting with ``=`` as a formula. The
  formulas the tool builds on purpose (the BOM's pricing rule, the compare workbook's
  live TCO) are written with :func:`formula`, which records the cell; :func:`defuse`
  then turns every *other* formula cell back into text before the workbook is saved
  (:func:`infra.reports.atomic.save_workbook` and every other workbook writer call it).
  A text cell is stored as text, whatever it starts with, so only ``=`` needs this.
- **CSV.** A field is text to the program that opens it; one starting with one of the
  characters above gets a leading ``'`` (:func:`csv_cell`), so spreadsheet programs
  read it as text. Numbers are left as they are, written as numbers or as plain decimal
  text (``-3``, ``+1.5e3``), and so is a lone ``-`` (a blank): neither is a formula.

Examples
--------
>>> csv_cell("=cmd|' /C calc'!A0")
"'=cmd|' /C calc'!A0"
>>> csv_cell("-3"), csv_cell(-3), csv_cell("-3+cmd|x"), csv_cell("-"), csv_cell(None)
('-3', -3, "'-3+cmd|x", '-', None)
"""

from __future__ import annotations

import re
from typing import Any

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_OWN = "_infra_formulas"  # the workbook attribute holding the cells of the tool's formulas


def csv_cell(value: Any) -> Any:
    """``value`` for a CSV field: text starting with a formula trigger gets a ``'``."""
    if (isinstance(value, str) and len(value) > 1 and value.startswith(TRIGGERS)
            and not _NUMBER.fullmatch(value)):  # a lone '-' (a blank) is no formula
        return "'" + value
    return value


def csv_row(values) -> list:
    """:func:`csv_cell` of every value of a row."""
    return [csv_cell(v) for v in values]


def formula(ws, ref: str, text: str):
    """Write the tool's own formula ``text`` into ``ws[ref]``; returns the cell.

    Only cells written here keep their formula when :func:`defuse` runs.
    """
    if not text.startswith("="):
        raise ValueError(f"not a formula: {text[:40]!r}")
    cell = ws[ref]
    cell.value = text
    own = getattr(ws.parent, _OWN, None)
    if own is None:
        own = set()
        setattr(ws.parent, _OWN, own)
    own.add((id(ws), cell.row, cell.column))
    return cell


def defuse(wb) -> int:
    """Turn every formula cell the tool did not write with :func:`formula` into text;
    returns how many were turned.

    Examples
    --------
    >>> from openpyxl import Workbook
    >>> wb = Workbook()
    >>> ws = wb.active
    >>> ws.append(["=SUM(1337,1)", 2])
    >>> _ = formula(ws, "B2", "=B1*2")
    >>> defuse(wb), ws["A1"].data_type, ws["B2"].data_type
    (1, 's', 'f')
    """
    own = getattr(wb, _OWN, set())
    n = 0
    for ws in wb.worksheets:
        cells = getattr(ws, "_cells", None)
        if cells is None:  # a chartsheet
            continue
        for (row, col), cell in cells.items():
            if cell.data_type == "f" and (id(ws), row, col) not in own:
                cell.data_type = "s"
                n += 1
    return n


__all__ = ["TRIGGERS", "csv_cell", "csv_row", "defuse", "formula"]
