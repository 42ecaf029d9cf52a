"""Write a sweep's rows: CSV, JSON, Parquet, and a workbook with the Pareto front and
charts. Formatting only: every figure comes from :class:`infra.sweeps.SweepResult`.

Reruns are byte-identical: rows are in scenario order and the workbook's times are
pinned by :func:`infra.reports.atomic.write_atomic` (``SOURCE_DATE_EPOCH`` or 2000-01-01).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from infra.errors import InfraError
from infra.reports.atomic import write_atomic, write_text_atomic
from infra.reports.tabular import to_csv

FORMATS = ("csv", "json", "xlsx", "parquet")
CHART_ROWS = 5000  # scatter charts plot at most this many scenarios (the sheet has all)


def write_sweep(res, outdir: Path, stem: str, formats: tuple[str, ...]) -> list[Path]:
    """Write ``<stem>.sweep.<ext>`` for each format; returns the paths written."""
    from infra.reports.atomic import check_targets

    check_targets([Path(outdir) / f"{stem}.sweep.{fmt}" for fmt in formats])  # all or none
    out = []
    table = res.table()
    for fmt in formats:
        path = Path(outdir) / f"{stem}.sweep.{fmt}"
        if fmt == "csv":
            out.append(write_text_atomic(path, to_csv(table)))
        elif fmt == "json":
            out.append(write_text_atomic(path, sweep_json(res, table)))
        elif fmt == "parquet":
            out.append(write_atomic(path, lambda p: _parquet(table, p)))
        elif fmt == "xlsx":
            out.append(write_atomic(path, lambda p: _xlsx(res, table, p)))
        else:
            raise InfraError(f"unknown sweep format {fmt!r}", hint=", ".join(FORMATS))
    return out


def sweep_json(res, table: list[dict[str, Any]]) -> str:
    doc = {"base": _rel(res.base_file), "combinations": res.combinations,
           "dropped_by_constraints": res.dropped, "scenarios": len(res.rows),
           "errors": res.errors, "objectives": res.objectives,
           "pareto": [res.rows[i]["scenario"] for i in res.front], "rows": table}
    return json.dumps(doc, indent=1, default=str) + "\n"


def _rel(path: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _parquet(table: list[dict[str, Any]], path: Path) -> None:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise InfraError("Parquet output needs pyarrow",
                         hint="pip install -e '.[parquet]', or use --report csv") from None
    import pandas as pd

    pd.DataFrame(table).to_parquet(path, index=False)


def _xlsx(res, table: list[dict[str, Any]], path: Path) -> None:
    from openpyxl import Workbook
    from openpyxl.chart import Reference, ScatterChart, Series

    wb = Workbook()
    ws = wb.active
    ws.title = "Scenarios"
    cols = list(table[0]) if table else ["scenario"]
    ws.append([_cell(c) for c in cols])
    for r in table:
        ws.append([_cell(r.get(c)) for c in cols])
    ws.freeze_panes = "C2"
    pf = wb.create_sheet("Pareto")
    pf.append(cols)
    for i in res.front:
        pf.append([_cell(table[i].get(c)) for c in cols])
    obj = [o for o in res.objectives if o in cols]
    if len(obj) >= 2 and res.front:
        charts = wb.create_sheet("Charts")
        n = min(len(table), CHART_ROWS)
        for k, (x, y) in enumerate(zip(obj, obj[1:])):
            ch = ScatterChart()
            ch.title, ch.style = f"{y} vs {x}", 13
            ch.x_axis.title, ch.y_axis.title = x, y
            for sheet, rows, name in ((ws, n, "all scenarios"), (pf, len(res.front), "Pareto front")):
                xs = Reference(sheet, min_col=cols.index(x) + 1, min_row=2, max_row=rows + 1)
                ys = Reference(sheet, min_col=cols.index(y) + 1, min_row=2, max_row=rows + 1)
                s = Series(ys, xs, title=name)
                s.marker.symbol, s.graphicalProperties.line.noFill = "circle", True
                ch.series.append(s)
            charts.add_chart(ch, f"A{1 + 20 * k}")
    from infra.reports.cellsafe import defuse

    defuse(wb)  # a grid value like '=SUM(1)' is text, never a formula
    from infra.reports.xlsx_print import print_setup

    print_setup(wb, "infra sweep")  # landscape A4, one page wide, header rows repeated
    wb.save(path)  # write_atomic pins the zip's times (byte-identical reruns)


def _cell(v: Any) -> Any:
    if isinstance(v, str):
        return _legal(v)
    if v is None or isinstance(v, (int, float, bool)):
        return v
    return _legal(json.dumps(v, default=str))


def _legal(text: str) -> str:
    """Control characters a worksheet cannot hold (a grid value or name with ESC or NUL:
    openpyxl's IllegalCharacterError, an internal error) written as ``\\x1b``."""
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    return ILLEGAL_CHARACTERS_RE.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
