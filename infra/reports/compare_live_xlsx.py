"""The sheets of ``compare.xlsx`` that follow the Inputs sheet: Capex lines, Comparison,
Cash flow, Scenarios and the chart data, all formulas on Inputs and TCO.

- **Capex lines**: unit price = the SKU's price on Inputs; total = count x unit price
  (0 when included in a system price that covers it; blank, i.e. unknown, when the price
  or the count is); the totals at the low and high prices beside it; status follows.
- **Comparison**: the cost rows, PUE and the per-facility-MW rows are formulas on TCO
  and Capex lines; the other rows (counts, bandwidths, heat) do not depend on an input.
- **Cash flow**: per option, years 0..max(years, 30): capex in year 0; energy,
  maintenance and facility / years in each year up to the horizon; discount factor
  1 / (1 + rate)^t; present value; NPV = their sum (= the TCO sheet's NPV).
- **Scenarios**: capex, TCO, NPV, $ per PFLOP-year and $ per GPU-hour with every price at
  the low, base and high end of its range (columns).

The formulas carry no text from the inputs: only cell references, numbers and the
tool's own category and status words.
"""

from __future__ import annotations

import re
from typing import Any

from infra.analysis.cost.compare_bounds import CAPEX as CAPEX_INPUT
from infra.analysis.cost.compare_bounds import MARK, POWER, WORDS, bound_of
from infra.reports.compare_text import cell

CAPEX = "'Capex lines'"
CAPEX_KEYS = ["option", "line", "parent_line", "category", "sku", "count", "status",
              "included_in", "unit_usd", "total_usd", "low_total_usd", "high_total_usd",
              "price_covers", "price_basis", "price_date", "price_source", "capex_scope", "note"]
CAPEX_HEAD = {"parent_line": "Parent line", "sku": "SKU", "included_in": "Included in",
              "unit_usd": "Unit price (USD)", "total_usd": "Total (USD)",
              "low_total_usd": "Total at low price (USD)",
              "high_total_usd": "Total at high price (USD)", "price_covers": "Price covers",
              "price_basis": "Price basis", "price_date": "Price date",
              "price_source": "Price source", "capex_scope": "Capex scope"}
CAPEX_COL = {k: chr(ord("A") + i) for i, k in enumerate(CAPEX_KEYS)}  # 18 columns: A..R
USD = '"$"#,##0'
CASH_KEYS = ["year", "capex_usd", "energy_usd", "maintenance_usd", "facility_usd", "total_usd",
             "discount_factor", "present_value_usd"]
CASH_HEAD = ["Year", "Capex (USD)", "Energy (USD)", "Maintenance (USD)", "Facility (USD)",
             "Total (USD)", "Discount factor", "Present value (USD)"]
MIN_YEARS_SHOWN = 30
SCENARIO_FIGURES = [("capex_usd", "Capex (USD)"), ("tco_usd", "TCO (USD)"),
                    ("npv_usd", "NPV of the cash flow (USD)"),
                    ("usd_per_dense_pflop_year", "$ per dense PFLOP-year"),
                    ("usd_per_gpu_hour", "$ per GPU-hour")]
_WORD = re.compile(r"^[a-z_+-]+$")


def xl(v: Any) -> Any:
    """Cell value: unknown stays blank (never an 'n/a' string in a numeric column)."""
    if v is None:
        return None
    v = cell(v)
    return str(v) if isinstance(v, (list, tuple, dict)) else v


def _head(ws, row: int, labels: list[str]) -> None:
    from infra.reports.xlsx_style import style_header

    for c, text in enumerate(labels, start=1):
        ws.cell(row=row, column=c, value=text)
    style_header(ws, row)


def capex_lines_sheet(wb, lines: list[dict], prices: dict[str, int]) -> dict[str, tuple]:
    """Sheet "Capex lines"; returns option -> (sheet ref, first row, last row)."""
    from infra.reports.cellsafe import formula

    ws = wb.create_sheet("Capex lines")
    _head(ws, 1, [CAPEX_HEAD.get(k, k.replace("_", " ").capitalize()) for k in CAPEX_KEYS])
    blocks: dict[str, list[int]] = {}
    c = CAPEX_COL
    for i, ln in enumerate(lines, start=2):
        for k in CAPEX_KEYS:
            if k not in ("unit_usd", "total_usd", "low_total_usd", "high_total_usd", "status"):
                ws[f"{c[k]}{i}"] = xl(ln.get(k))
        blocks.setdefault(ln["option"], [i, i])[1] = i
        p = prices.get(ln["sku"])
        n = f"{c['count']}{i}"
        if ln["status"] == "included":
            ws[f"{c['status']}{i}"] = "included"
            for k in ("total_usd", "low_total_usd", "high_total_usd"):
                ws[f"{c[k]}{i}"] = 0
        elif p is None:  # no row on Inputs (cannot happen for a line from the analysis)
            ws[f"{c['status']}{i}"] = "unpriced"
        else:
            u = f"{c['unit_usd']}{i}"
            formula(ws, u, f'=IF(Inputs!$B${p}="","",Inputs!$B${p})')
            formula(ws, f"{c['total_usd']}{i}", f'=IF(OR({u}="",{n}=""),"",{u}*{n})')
            for k, col in (("low_total_usd", "C"), ("high_total_usd", "D")):
                formula(ws, f"{c[k]}{i}",
                        f'=IF(OR(Inputs!${col}${p}="",{n}=""),"",Inputs!${col}${p}*{n})')
            formula(ws, f"{c['status']}{i}", f'=IF({c["total_usd"]}{i}="","unpriced","priced")')
        for k in ("unit_usd", "total_usd", "low_total_usd", "high_total_usd"):
            ws[f"{c[k]}{i}"].number_format = USD
    ws.freeze_panes = "A2"
    _widths(ws, {"option": 18, "sku": 34, "price_source": 60, "note": 40, "price_basis": 14},
            CAPEX_KEYS)
    return {k: (CAPEX, a, b) for k, (a, b) in blocks.items()}


def _widths(ws, wide: dict[str, int], keys: list[str]) -> None:
    from openpyxl.styles import Alignment

    from openpyxl.utils import get_column_letter

    for i, k in enumerate(keys):
        ws.column_dimensions[get_column_letter(i + 1)].width = wide.get(k, 15)
    for head in ws[1]:
        head.alignment = Alignment(wrap_text=True, vertical="top")


def _cat_sum(block: tuple, cat: str) -> str:
    q, a, b = block
    rng = lambda k: f"{q}!{CAPEX_COL[k]}{a}:{CAPEX_COL[k]}{b}"  # noqa: E731
    s = f'SUMIF({rng("category")},"{cat}",{rng("total_usd")})'
    return f'=IF({s}=0,"",{s})'


def cost_formula(metric: str, t: dict[str, str], block: tuple | None,
                 cells: dict[str, str], prec: str) -> str | None:
    """The Comparison cell of ``metric`` for the option on TCO row cells ``t`` (key ->
    cell; ``cells``: metric -> the option's cell of another Comparison row), or None when
    the metric does not depend on an input. Sized capex and TCO scale with the option's:
    x sized GPUs / GPUs (whole blocks of the option)."""
    racks_cell = cells.get("racks")
    if "price" in cells:  # a chip option: its price and the figures per $1,000 of it
        price = cells["price"]
        per = {"peak_dense_tflops_bf16_per_1000_usd": cells.get("peak_dense_tflops_bf16"),
               "hbm_gib_per_1000_usd": cells.get("hbm_gib")}
        if metric == "price_usd":
            return f'=IF({price}="","",{price})'
        if per.get(metric):
            return f'=IF(OR({price}="",{price}=0),"",{per[metric]}/({price}/1000))'
    if metric == "train_usd_per_run" and cells.get("train_gpu_hours"):
        usd, hours = t["usd_per_gpu_hour"], cells["train_gpu_hours"]  # TCO per GPU-hour
        return f'=IF(OR({usd}="",{hours}=""),"",{usd}*{hours})'
    if metric == "train_usd_per_million_tokens" and cells.get("train_usd_per_run") \
            and cells.get("train_tokens"):
        run, tokens = cells["train_usd_per_run"], cells["train_tokens"]
        return f'=IF(OR({run}="",{tokens}=""),"",{run}/({tokens}/1000000))'
    if metric in ("sized_capex_usd", "sized_tco_usd") and "sized_gpus" in cells:
        base = t["capex_usd" if metric == "sized_capex_usd" else "tco_usd"]
        return (f'=IF(OR({base}="",{t["gpus"]}=0),"",{base}*{cells["sized_gpus"]}'
                f'/{t["gpus"]})')
    fac_mw = f'({t["it_power_kw"]}*{t["pue_used"]}/1000)'
    direct = {"capex_usd": "capex_usd", "energy_usd_per_year": "energy_usd_per_year",
              "maintenance_usd_per_year": "maintenance_usd_per_year",
              "facility_usd": "facility_usd", "usd_per_gpu_hour": "usd_per_gpu_hour",
              f"usd_per_dense_pflop_year_{prec}": f"usd_per_dense_pflop_year_{prec}",
              "pue_ratio": "pue_used", "capex_lower_bound": "capex_lower_bound"}
    if metric in direct:
        return f"={t[direct[metric]]}"
    if re.fullmatch(r"tco_usd_\d+y", metric):
        return f"={t['tco_usd']}"
    if metric == "facility_power_kw":
        return f'={t["it_power_kw"]}*{t["pue_used"]}'
    if metric == "facility_power_mw":
        return f"={fac_mw}"
    if metric == f"peak_dense_pflops_{prec}_per_facility_mw":
        pf = t[f"peak_dense_pflops_{prec}"]
        return f'=IF(OR({pf}="",{fac_mw}=0),"",{pf}/{fac_mw})'
    if metric == "gpus_per_facility_mw":
        return f'=IF({fac_mw}=0,"",{t["gpus"]}/{fac_mw})'
    if metric == "racks_per_facility_mw" and racks_cell:
        return f'=IF({fac_mw}=0,"",{racks_cell}/{fac_mw})'
    if block is None:
        return None
    q, a, b = block
    st = f"{q}!{CAPEX_COL['status']}{a}:{CAPEX_COL['status']}{b}"
    if metric == "unpriced_line_count":
        return f'=COUNTIF({st},"unpriced")'
    if metric == "capex_completeness_fraction":
        own = f'(COUNTIF({st},"priced")+COUNTIF({st},"unpriced"))'
        return f'=IF({own}=0,"",COUNTIF({st},"priced")/{own})'
    if metric == "capex_is_lower_bound":
        return f'=IF({t["capex_usd"]}="","",COUNTIF({st},"unpriced")>0)'
    m = re.fullmatch(r"capex_([a-z_]+)_usd", metric)
    if m and _WORD.match(m[1]):
        return _cat_sum(block, m[1])
    return None


def capex_lower_cond(capex_cell: str, block: tuple | None) -> str | None:
    """The live condition "this option's capex is a lower bound": capex known and a line
    unpriced (None: no capex lines)."""
    if block is None:
        return None
    q, a, b = block
    st = f"{q}!{CAPEX_COL['status']}{a}:{CAPEX_COL['status']}{b}"
    return f'AND({capex_cell}<>"",COUNTIF({st},"unpriced")>0)'


def _bound_piece(metric: str, head: str, power: frozenset, cond: str | None) -> str | None:
    """One option's part of a Bounds cell: ``label: ≥ (lower bound)|``, live on whether its
    capex is a lower bound (``head``: the cell holding the option's label)."""
    def text(b):
        return f'{head}&": {MARK[b]} ({WORDS[b]})|"' if b else '""'

    low, full = bound_of(metric, power | {CAPEX_INPUT}), bound_of(metric, power)
    if low == full or cond is None:
        return None if full is None else text(full)
    return f"IF({cond},{text(low)},{text(full)})"


# Comparison rows another row's formula reads (the option's cell in that row)
LINKED = ("racks", "sized_gpus", "hbm_gib", "peak_dense_tflops_bf16", "train_gpu_hours",
          "train_tokens", "train_usd_per_run")


def differs_formula(span: str, n: int, values: list) -> str | None:
    """The live Differs cell of a row of numbers (some of them formulas): ``*`` when the
    options' figures differ or only some are known, as ``infra compare`` marks it; None
    for a row that is not all numbers or blanks (its mark stays as written).

    >>> differs_formula("D5:E5", 2, [1.5, None])
    '=IF(COUNT(D5:E5)=0,"",IF(AND(COUNT(D5:E5)=2,MAX(D5:E5)=MIN(D5:E5)),"","*"))'
    >>> differs_formula("D5:E5", 2, [True, False]) is None
    True
    """
    if not all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))
               for v in values):
        return None
    return (f'=IF(COUNT({span})=0,"",IF(AND(COUNT({span})={n},MAX({span})=MIN({span})),'
            f'"","*"))')


def ranking_formula(span: str, labels: str, written: str | None) -> str | None:
    """The live Ranking cell: ``lowest: <option>`` over the row's known figures (the first
    of equals, as ``infra compare``), keeping a mixed-scopes mark; None where the row is
    not ranked (no ranking, or ``not ranked: ...``: those stay as written).

    >>> ranking_formula("D5:E5", "D$1:E$1", "lowest: a (mixed scopes)")
    '=IF(COUNT(D5:E5)<2,"","lowest: "&INDEX(D$1:E$1,MATCH(MIN(D5:E5),D5:E5,0))&" (mixed scopes)")'
    """
    if not written or not written.startswith("lowest: "):
        return None
    mark = " (mixed scopes)" if written.endswith(" (mixed scopes)") else ""
    tail = f'&"{mark}"' if mark else ""
    return (f'=IF(COUNT({span})<2,"","lowest: "&INDEX({labels},MATCH(MIN({span}),{span},0))'
            f'{tail})')


def bounds_formula(pieces: list[str]) -> str | None:
    """``label: ≥ (lower bound); label2: ...`` from the pieces (each ending in ``|``)."""
    if not pieces:
        return None
    x = "&".join(pieces)
    return f'=SUBSTITUTE(IF(({x})="","",LEFT({x},LEN({x})-1)),"|","; ")'


def comparison_sheet(wb, data: dict[str, Any], tco_cols: dict[str, str],
                     blocks: dict[str, tuple], prices: dict[str, int] | None = None) -> None:
    """Sheet "Comparison": one row per figure, one column per option; figures that
    depend on an input are formulas; bound marks in the Bounds column."""
    from openpyxl.styles import Alignment
    from openpyxl.utils import get_column_letter

    from infra.reports.cellsafe import formula
    from infra.reports.compare_labels import cell_format, row_style

    labels = [o["label"] for o in data["options"]]
    prec = data.get("cost_inputs", {}).get("precision", "bf16")
    ws = wb.create_sheet("Comparison")
    head = ["Section", "Figure", "Unit", *labels, "Bounds", "Differs", "Ranking", "Key"]
    _head(ws, 1, head)
    rows = data["comparison"]
    row_of = {r["metric"]: i for i, r in enumerate(rows, start=2)}
    power = {o["label"]: frozenset({POWER}) for o in data["options"]
             if (o.get("metrics") or {}).get("power_unknown_parts_count")}
    lower_capex = {lb: capex_lower_cond(f"TCO!${tco_cols['capex_usd']}${j + 2}", blocks.get(lb))
                   for j, lb in enumerate(labels)}
    for i, r in enumerate(rows, start=2):
        metric = r["metric"]
        ws.cell(row=i, column=1, value=r["section"])
        label, unit, _ = row_style(metric)
        if re.fullmatch(r"tco_usd_\d+y", metric):
            formula(ws, f"B{i}", '="TCO over "&years&" years"')
        else:
            ws.cell(row=i, column=2, value=label)
        ws.cell(row=i, column=3, value=unit)
        pieces = []
        for j, label in enumerate(labels):
            col = get_column_letter(4 + j)
            ref = f"{col}{i}"
            v = r.get(label)
            t = {k: f"TCO!${c}${j + 2}" for k, c in tco_cols.items()}
            cells = {k: f"{col}{row_of[k]}" for k in LINKED if k in row_of}
            opt = data["options"][j]
            if opt["kind"] == "gpu" and (prices or {}).get(opt["label"]):
                cells["price"] = f"Inputs!$B${prices[opt['label']]}"
            text = (cost_formula(metric, t, blocks.get(label), cells, prec)
                    if v is not None else None)
            if text:
                formula(ws, ref, text)
            else:
                ws[ref] = xl(v)
            fmt = cell_format(metric, v)
            if fmt and (text or isinstance(v, (int, float))):
                ws[ref].number_format = fmt
            if v is not None:
                pieces.append(_bound_piece(metric, f"{col}$1", power.get(label, frozenset()),
                                           lower_capex.get(label)))
        n = len(labels)
        text = bounds_formula([p for p in pieces if p])
        if text:
            formula(ws, f"{get_column_letter(4 + n)}{i}", text)
        live = any(ws.cell(row=i, column=4 + j).data_type == "f" for j in range(n))
        span = f"D{i}:{get_column_letter(3 + n)}{i}"
        differs = differs_formula(span, n, [r.get(lb) for lb in labels]) if live else None
        if differs:
            formula(ws, f"{get_column_letter(5 + n)}{i}", differs)
        else:
            ws.cell(row=i, column=5 + n, value=r.get("differs"))
        ranking = ranking_formula(span, f"D$1:{get_column_letter(3 + n)}$1",
                                  r.get("ranking")) if live else None
        if ranking:
            formula(ws, f"{get_column_letter(6 + n)}{i}", ranking)
        else:
            ws.cell(row=i, column=6 + n, value=r.get("ranking"))
        ws.cell(row=i, column=7 + n, value=metric)
    ws.freeze_panes = "D2"
    widths = [16, 34, 12] + [18] * len(labels) + [30, 8, 26, 30]
    for k, w in enumerate(widths):
        ws.column_dimensions[get_column_letter(k + 1)].width = w
    for row in ws.iter_rows(min_row=2, min_col=2, max_col=2):
        row[0].alignment = Alignment(wrap_text=True, vertical="top")


def cash_flow_sheet(wb, data: dict[str, Any], tco_cols: dict[str, str],
                    blocks: dict[str, tuple] | None = None) -> dict[str, int]:
    """Sheet "Cash flow": a block per option; returns option -> row of its NPV."""
    from openpyxl.styles import Font

    from infra.reports.cellsafe import formula

    ws = wb.create_sheet("Cash flow")
    years = int(data.get("cost_inputs", {}).get("years") or 5)
    shown = max(years, MIN_YEARS_SHOWN)
    ws.cell(row=1, column=1, value=(
        "Capex in year 0; energy, maintenance and the facility charge (facility / years) in "
        "each year up to the horizon (Inputs: years); present value at the discount rate. "
        "NPV = the sum of present values (undiscounted: = TCO).")).font = Font(italic=True)
    formula(ws, "A2", f'=IF(years>{shown},"The horizon is longer than the {shown} years '
                      f'shown: the NPV on the TCO sheet counts every year.","")')
    row, npv_rows = 4, {}
    c = {k: f"TCO!${col}$" for k, col in tco_cols.items()}
    for j, o in enumerate(data["options"]):
        r = j + 2
        ws.cell(row=row, column=1, value=o["label"]).font = Font(bold=True)
        cond = capex_lower_cond(f"{c['capex_usd']}{r}", (blocks or {}).get(o["label"]))
        if cond:  # live: goes when every line is priced
            formula(ws, f"B{row}", f'=IF({cond},"\u2265 capex is a lower bound (unpriced lines): '
                                   'capex, maintenance, totals and the NPV are lower bounds","")')
        _head(ws, row + 1, CASH_HEAD)
        first = row + 2
        for y in range(shown + 1):
            i = first + y
            ws.cell(row=i, column=1, value=y)
            A, B, C, D, E, F, G = (f"{x}{i}" for x in "ABCDEFG")
            if y == 0:
                formula(ws, B, f"={c['capex_usd']}{r}")
                for x in (C, D, E):
                    ws[x] = 0
                formula(ws, F, f'=IF({B}="","",{B})')
            else:
                formula(ws, B, f'=IF({A}>years,"",0)')
                formula(ws, C, f'=IF({A}>years,"",{c["energy_usd_per_year"]}{r})')
                formula(ws, D, f'=IF({A}>years,"",{c["maintenance_usd_per_year"]}{r})')
                formula(ws, E, f'=IF({A}>years,"",{c["facility_usd"]}{r}/years)')
                formula(ws, F, f'=IF(OR({A}>years,{B}="",{D}=""),"",{B}+{C}+{D}+{E})')
            formula(ws, G, f'=IF({A}>years,"",1/(1+discount_rate)^{A})')
            formula(ws, f"H{i}", f'=IF(OR({F}="",{G}=""),"",{F}*{G})')
            for x in "BCDEFH":
                ws[f"{x}{i}"].number_format = USD
            ws[G].number_format = "0.0000"
        last = first + shown
        npv = last + 1
        ws.cell(row=npv, column=1, value="NPV").font = Font(bold=True)
        formula(ws, f"F{npv}", f'=IF(COUNT(F{first}:F{last})=0,"",SUM(F{first}:F{last}))')
        formula(ws, f"H{npv}", f'=IF(COUNT(H{first}:H{last})=0,"",SUM(H{first}:H{last}))')
        for x in "FH":
            ws[f"{x}{npv}"].number_format = USD
            ws[f"{x}{npv}"].font = Font(bold=True)
        npv_rows[o["label"]] = npv
        row = npv + 2
    for k, w in enumerate([14, 16, 16, 18, 16, 16, 14, 20]):
        ws.column_dimensions[chr(ord("A") + k)].width = w
    return npv_rows


def scenarios_sheet(wb, data: dict[str, Any], tco_cols: dict[str, str],
                    blocks: dict[str, tuple]) -> None:
    """Sheet "Scenarios": low, base and high prices as columns."""
    from openpyxl.styles import Font

    from infra.reports.cellsafe import formula

    ws = wb.create_sheet("Scenarios")
    _head(ws, 1, ["Option", "Figure", "Low prices", "Base prices", "High prices", "Bound"])
    prec = data.get("cost_inputs", {}).get("precision", "bf16")
    c = {k: f"TCO!${col}$" for k, col in tco_cols.items()}
    bound = {(s["option"], s["figure"]): s.get("bound") for s in data.get("scenarios", [])}
    i = 2
    for j, o in enumerate(data["options"]):
        r, label = j + 2, o["label"]
        block = blocks.get(label)
        cap_row = i
        t = lambda k: f"{c[k]}{r}"  # noqa: E731
        for key, text in SCENARIO_FIGURES:
            ws.cell(row=i, column=1, value=label)
            ws.cell(row=i, column=2, value=text)
            b = bound.get((label, key))
            cond = capex_lower_cond(t("capex_usd"), block)
            if cond:  # live: every figure here grows with capex
                formula(ws, f"F{i}", f'=IF({cond},"{MARK["lower"]} {WORDS["lower"]}","")')
            else:
                ws.cell(row=i, column=6, value=f"{MARK[b]} {WORDS[b]}" if b else None)
            for col, tot in (("C", "low_total_usd"), ("D", "total_usd"), ("E", "high_total_usd")):
                cap = f"{col}{cap_row}"
                if key == "capex_usd":
                    if block is None:
                        text_f = '=""'
                    elif col == "D":
                        text_f = f"={t('capex_usd')}"
                    else:
                        q, a, z = block
                        rng = f"{q}!{CAPEX_COL[tot]}{a}:{CAPEX_COL[tot]}{z}"
                        text_f = f'=IF({t("capex_usd")}="","",SUM({rng}))'
                elif key == "tco_usd":
                    text_f = (f'=IF({cap}="","",{cap}+{t("facility_usd")}+{t("annuity_factor")}*'
                              f'({t("energy_usd_per_year")}+{cap}*maintenance_fraction))')
                elif key == "npv_usd":
                    text_f = (f'=IF({cap}="","",{cap}+{t("annuity_factor")}*({t("energy_usd_per_year")}'
                              f'+{cap}*maintenance_fraction+{t("facility_usd")}/years))')
                elif key == "usd_per_dense_pflop_year":
                    tco, pf = f"{col}{cap_row + 1}", t(f"peak_dense_pflops_{prec}")
                    text_f = f'=IF(OR({tco}="",{pf}="",{pf}=0),"",{tco}/({pf}*years))'
                else:
                    tco = f"{col}{cap_row + 1}"
                    text_f = (f'=IF(OR({tco}="",{t("gpus")}=0),"",{tco}/({t("gpus")}*8760*years'
                              f'*utilisation))')
                formula(ws, f"{col}{i}", text_f)
                ws[f"{col}{i}"].number_format = ('"$"#,##0.000' if key == "usd_per_gpu_hour"
                                                 else USD)
            i += 1
    ws.cell(row=i + 1, column=1, value=(
        "Each price at the low or high end of its published range (Inputs: Low / High "
        "price; a price without a range is the same in all three). Energy and facility do "
        "not depend on prices.")).font = Font(italic=True)
    for k, w in enumerate([20, 28, 17, 17, 17, 18]):
        ws.column_dimensions[chr(ord("A") + k)].width = w


__all__ = ["CAPEX_COL", "CAPEX_KEYS", "capex_lines_sheet", "cash_flow_sheet",
           "comparison_sheet", "cost_formula", "scenarios_sheet"]
