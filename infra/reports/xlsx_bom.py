"""The design workbook's Bill of materials sheet: the tool's pricing rule as live formulas.

Per line (see :mod:`infra.analysis.cost.capex`)::

    included_in = IF(parent included, parent's included_in,
                     IF(parent priced AND parent covers "contents", parent slug, ""))
    status      = IF(included_in<>"", "included", IF(price or count blank, "unpriced", "priced"))
    extended    = IF(included_in<>"", 0, IF(price or count blank, "", count * price))

so typing a price into ``unit_price_usd`` (or ``contents`` into ``price_covers``) gives
the tool's own total. Below the table: the Total (blank when nothing is priced, never
``$0``), the number of unpriced lines, "lower bound: N lines unpriced", the capex scope
and completeness, all formulas; Summary's capex cells point at them (:func:`link_summary`).
Only formats what the analyses computed.
"""

from __future__ import annotations

from typing import Any

from infra.reports.cellsafe import formula

COLUMNS = ["line", "level", "kind", "slug", "name", "vendor", "count", "where", "parent",
           "group", "included_in", "price_covers", "unit_price_usd", "low_usd", "high_usd",
           "price_basis", "price_date", "price_source", "status", "extended_usd"]
FORMULA_COLS = ("included_in", "status", "extended_usd")
SUMMARY_CELLS = {  # Summary metric -> label of the cell below the BOM table it shows
    "capex_priced_usd": "Total", "capex_unpriced_line_count": "Unpriced lines",
    "capex_lower_bound": "Capex is", "capex_scope": "Capex scope",
    "capex_completeness_fraction": "Capex completeness (priced share of lines)",
}
INPUT_FILL = "FFF2CC"  # pale yellow: cells a buyer edits


def bom_sheet(ws, rows: list[dict]) -> dict[str, str]:
    """Write the BOM with live formulas; returns label -> cell address of the totals."""
    from openpyxl.styles import Font, PatternFill
    from openpyxl.utils import get_column_letter as L

    from infra.reports.labels import number_format
    from infra.reports.xlsx_style import style_header, widths

    extra = [c for c in (list(rows[0]) if rows else []) if c not in COLUMNS]
    cols = COLUMNS[:-2] + extra + COLUMNS[-2:]
    ws.append(cols)
    col = {c: L(cols.index(c) + 1) for c in cols}
    sheet_row = {r.get("line", i): i + 1 for i, r in enumerate(rows, start=1)}
    fill = PatternFill("solid", fgColor=INPUT_FILL)
    for i, r in enumerate(rows, start=2):
        ws.append([_value(r, c) for c in cols])
        _formulas(ws, i, sheet_row.get(r.get("parent")), col)
        for c in ("unit_price_usd", "price_covers"):
            ws[f"{col[c]}{i}"].fill = fill
        for c in ("unit_price_usd", "low_usd", "high_usd", "extended_usd"):
            ws[f"{col[c]}{i}"].number_format = number_format("USD")
    last = len(rows) + 1
    style_header(ws, 1)
    ws.freeze_panes = "A2"
    ws.auto_filter.ref = f"A1:{L(len(cols))}{last}"
    widths(ws)
    cells = _totals(ws, last, col)
    for label, addr in cells.items():
        ws[addr].font = Font(bold=True)
        ws.cell(row=ws[addr].row, column=1).font = Font(bold=True)
    ws[cells["Total"]].number_format = number_format("USD")
    ws[cells[SUMMARY_CELLS["capex_completeness_fraction"]]].number_format = "0.0%"
    note = ws.cell(row=ws.max_row + 2, column=1, value=(
        "Edit unit_price_usd (blank = unknown, never 0) and price_covers ('contents' for a "
        "system price that includes what is mounted in the unit; an empty rack or chassis "
        "price covers the unit alone). included_in, status, extended_usd and the totals "
        "follow the tool's pricing rule."))
    note.font = Font(italic=True)
    return cells


def _value(r: dict, c: str) -> Any:
    if c in FORMULA_COLS:
        return None
    v = r.get(c)
    return str(v) if isinstance(v, (list, tuple, dict)) else v


def _formulas(ws, i: int, p: int | None, col: dict[str, str]) -> None:
    inc, price, cov, cnt = (col[c] for c in ("included_in", "unit_price_usd",
                                             "price_covers", "count"))
    if p is not None:
        formula(ws, f"{inc}{i}", f'=IF({inc}{p}<>"",{inc}{p},IF(AND({price}{p}<>"",'
                                 f'{cov}{p}="contents"),{col["slug"]}{p},""))')
    blank = f'OR({price}{i}="",{cnt}{i}="")'
    formula(ws, f"{col['status']}{i}", f'=IF({inc}{i}<>"","included",IF({blank},"unpriced",'
                                       f'"priced"))')
    formula(ws, f"{col['extended_usd']}{i}",
            f'=IF({inc}{i}<>"",0,IF({blank},"",{cnt}{i}*{price}{i}))')


def _totals(ws, last: int, col: dict[str, str]) -> dict[str, str]:
    ext, st, grp, kind = (col[c] for c in ("extended_usd", "status", "group", "kind"))

    def rng(c: str) -> str:
        return f"{c}2:{c}{last}"

    def unpriced(extra: str = "") -> str:
        return f'COUNTIFS({rng(st)},"unpriced"{extra})'

    priced = f'COUNTIF({rng(st)},"priced")'
    sys_u = unpriced(f',{rng(grp)},"system"')
    fab_u = unpriced(f',{rng(grp)},"fabric"')
    gpu_u = unpriced(f',{rng(kind)},"gpu"')
    r0 = last + 2
    out = {}
    rows = [
        ("Total", f'=IF({priced}=0,"",SUM({rng(ext)}))'),
        ("Unpriced lines", f"={unpriced()}"),
        ("Capex is", f'=IF({priced}=0,"unknown: no line priced",IF({ext}{r0 + 1}>0,'
                     f'"lower bound: "&{ext}{r0 + 1}&" lines unpriced","complete"))'),
        ("Capex scope", (
            f'=IF({priced}=0,"none",IF({unpriced()}=0,"full",'
            f'IF(AND({sys_u}+{fab_u}=0,COUNTIF({rng(grp)},"fabric")>0),"systems+fabric",'
            f'IF({sys_u}=0,"systems",'
            f'IF(AND(COUNTIF({rng(kind)},"gpu")>0,{gpu_u}=0),"gpus-only","partial")))))')),
        (SUMMARY_CELLS["capex_completeness_fraction"],
         f'=IF({priced}+{ext}{r0 + 1}=0,"",{priced}/({priced}+{ext}{r0 + 1}))'),
    ]
    for k, (label, text) in enumerate(rows):
        ws.cell(row=r0 + k, column=1, value=label)
        formula(ws, f"{ext}{r0 + k}", text)
        out[label] = f"{ext}{r0 + k}"
    return out


def link_summary(wb, cells: dict[str, str], sheet: str) -> None:
    """Point Summary's capex metric cells at the BOM sheet's totals (formulas).

    A metric's row is found by its field name or its label in Summary's first five
    columns; its value is column B. The note beside the capex total (column D, when the
    sheet has a "Note" column) becomes the BOM's live "lower bound: N lines unpriced".
    """
    from openpyxl.utils import get_column_letter

    from infra.reports.labels import metric_label

    if "Summary" not in wb.sheetnames:
        return
    ws = wb["Summary"]
    wanted = {}
    for metric, label in SUMMARY_CELLS.items():
        for key in (metric, metric_label(metric)):
            wanted[key] = (metric, cells[label])
    note_col = None
    for row in ws.iter_rows(max_col=5):
        values = [c.value for c in row]
        if "Note" in values and "Metric" in values:
            note_col = values.index("Note") + 1
        hit = next((wanted[v] for v in values if isinstance(v, str) and v in wanted), None)
        if hit is None:
            continue
        metric, addr = hit
        formula(ws, f"B{row[0].row}", f"='{sheet}'!{addr}")
        if metric == "capex_priced_usd" and note_col:
            formula(ws, f"{get_column_letter(note_col)}{row[0].row}",
                    f"='{sheet}'!{cells['Capex is']}")
