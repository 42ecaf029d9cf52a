"""Render a list of row dicts as a text table, JSON or CSV."""

from __future__ import annotations

import csv
import io
import json

from infra.reports.terminal import table


def to_csv(rows: list[dict]) -> str:
    """CSV text of ``rows`` (header from the first row's keys); text that a spreadsheet
    would read as a formula gets a leading ``'`` (:func:`infra.reports.cellsafe.csv_cell`).

    Examples
    --------
    >>> print(to_csv([{"name": "=SUM(1,2)", "n": -3}]), end="")
    name,n
    "'=SUM(1,2)",-3
    """
    from infra.reports.cellsafe import csv_cell

    buf = io.StringIO()
    if rows:
        w = csv.writer(buf, lineterminator="\n")
        cols = list(rows[0])
        w.writerow([csv_cell(c) for c in cols])
        w.writerows([csv_cell(r.get(c, "")) for c in cols] for r in rows)
    return buf.getvalue()


def render(rows: list[dict], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(rows, indent=2) + "\n"
    if fmt == "csv":
        return to_csv(rows)
    return table(rows) + "\n"
