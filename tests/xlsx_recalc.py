"""Recalculate a written workbook with a formula engine (``formulas`` from PyPI).

Used by the tests to compare every formula's value with the tool's own figure, as a
spreadsheet would compute it after a buyer edits an input cell.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import openpyxl

_REF = re.compile(r"^'\[[^\]]+\](?P<sheet>[^']+)'!(?P<cell>[A-Z]+[0-9]+)$")


def recalc(path: Path, keep: tuple[str, ...] | None = None,
           edits: dict[tuple[str, str], Any] | None = None) -> dict[tuple[str, str], Any]:
    """Values of every cell after recalculation: ``(SHEET, "A1") -> value``.

    Parameters
    ----------
    path : Path
        The workbook as the tool wrote it.
    keep : tuple of str, optional
        Sheets to keep (the others are dropped first, to keep the engine fast); the kept
        sheets' formulas must only reference kept sheets.
    edits : dict, optional
        ``(sheet, cell) -> value`` typed in before recalculating (a buyer's edit).
    """
    import formulas

    wb = openpyxl.load_workbook(path)
    for ws in list(wb.worksheets):
        if keep is not None and ws.title not in keep:
            wb.remove(ws)
    for (sheet, cell), value in (edits or {}).items():
        wb[sheet][cell] = value
    tmp = Path(path).with_name(Path(path).stem + "-recalc.xlsx")
    wb.save(tmp)
    sol = formulas.ExcelModel().loads(str(tmp)).finish().calculate()
    out: dict[tuple[str, str], Any] = {}
    for key, v in sol.items():
        m = _REF.match(key)
        if not m:
            continue
        val = v.value[0][0] if hasattr(v, "value") else v
        if hasattr(val, "item"):
            val = val.item()
        out[(m["sheet"].upper(), m["cell"])] = None if _empty(val) else val
    return out


def _empty(v: Any) -> bool:
    """An empty string or the engine's EMPTY marker of a blank cell."""
    return (isinstance(v, str) and v == "") or str(v).lower() in ("empty", "#empty")


def cell_of(ws, label: str, header: str = "extended_usd") -> str:
    """Address of the cell in column ``header`` (row 1) on the row labelled ``label``."""
    from openpyxl.utils import get_column_letter

    col = [c.value for c in ws[1]].index(header) + 1
    for row in ws.iter_rows(min_col=1, max_col=1):
        if row[0].value == label:
            return f"{get_column_letter(col)}{row[0].row}"
    raise KeyError(label)
