"""Live TCO sheets of the comparison workbook: named input cells and formulas on them.

Sheet "Inputs" holds every input a buyer edits: the cost assumptions (named cells) and
one row per SKU of the capex lines with its base, low and high price. Capex lines take
their unit price from it; the TCO sheet's capex sums the option's Capex lines.

The formulas repeat :func:`infra.analysis.cost.tco.total_cost` (the analysis stays the one
place the figures are computed; the sheet lets a buyer change an assumption and see
every dependent figure move)::

    energy/yr   = IT kW x PUE x 8,760 h x energy price
    maint/yr    = capex x maintenance fraction
    facility    = IT kW / 1000 x build cost per MW x MIN(1, years / facility life)
    A           = years when rate = 0, else (1 - (1 + rate)^-years) / rate
    TCO         = capex + facility + A x (energy + maint)     (blank when capex unknown)
    NPV         = capex + A x (energy + maint + facility / years)  (the cash flow's sum)
    $/PFLOP-yr  = TCO / (dense PFLOPS x years);  $/GPU-hour = TCO / (GPUs x 8,760 x years x u)
"""

from __future__ import annotations

from typing import Any

INPUTS = [  # (defined name, label, key in cost_inputs, number format)
    ("energy_usd_per_kwh", "Energy price (USD/kWh)", "energy_usd_per_kwh", "0.0000"),
    ("pue_override", "PUE for every option (blank: each option's own)", "pue", "0.00"),
    ("utilisation", "Utilisation (share of hours in use, for $ per GPU-hour)",
     "utilisation_fraction", "0%"),
    ("years", "Years (TCO horizon)", "years", "0"),
    ("maintenance_fraction", "Maintenance (fraction of capex per year)",
     "maintenance_fraction_per_year", "0.0%"),
    ("discount_rate", "Discount rate (per year)", "discount_rate", "0.0%"),
    ("facility_usd_per_mw", "Facility build cost (USD per MW of IT load)",
     "facility_usd_per_mw", '"$"#,##0'),
    ("facility_life_years", "Facility life (years)", "facility_life_years", "0"),
]
DEFAULT_SOURCES = {
    "pue": "blank: the PUE of each design file (chips and trays: Uptime 2023 average 1.58)",
    "utilisation_fraction": "default 1.0: every provisioned hour, as cloud GPU-hours are priced",
    "years": "--years (default 5)",
    "discount_rate": "default 0: undiscounted sum of yearly costs",
    "facility_life_years": "assumption: the TCO carries years / life of the build cost",
}
HOURS = 8760  # = infra.units.HOURS_PER_YEAR


PRICE_HEAD = ["SKU", "Base price (USD)", "Low price (USD)", "High price (USD)", "Covers",
              "Basis", "Date", "Source"]
USD = '"$"#,##0'
TCO_HEAD = {
    "option": "Option", "capex_scope": "Capex scope", "capex_lower_bound": "Capex complete?",
    "capex_usd": "Capex (USD)", "gpus": "GPUs", "it_power_kw": "IT power (kW)",
    "pue_ratio": "Own PUE", "pue_used": "PUE used", "energy_usd_per_year": "Energy per year (USD)",
    "maintenance_usd_per_year": "Maintenance per year (USD)",
    "facility_usd": "Facility over the horizon (USD)", "annuity_factor": "Annuity factor A",
    "tco_usd": "TCO (USD)", "npv_usd": "NPV of the cash flow (USD)",
    "usd_per_gpu_hour": "$ per GPU-hour"}
WIDE = 17  # wide enough for $999,999,999,999 (no ### in a cost column)


def price_table(lines: list[dict]) -> list[dict]:
    """One row per SKU of the priced and unpriced capex lines (included lines use their
    parent's price), in first-seen order, with the price's range and source."""
    out: dict[str, dict] = {}
    for ln in lines:
        if ln["status"] == "included" or ln["sku"] in out:
            continue
        out[ln["sku"]] = ln
    return list(out.values())


def inputs_sheet(wb, inputs: dict[str, Any], lines: list[dict]) -> dict[str, int]:
    """Sheet "Inputs": one named, editable cell per cost assumption, with its source, then
    the price of every SKU (base, low, high). Returns the SKU -> row of its price."""
    from openpyxl.styles import Font, PatternFill
    from openpyxl.workbook.defined_name import DefinedName

    from infra.reports.cellsafe import formula
    from infra.reports.xlsx_style import style_header, widths

    ws = wb.create_sheet("Inputs")
    ws.append(["Input", "Value", "Name", "Source"])
    style_header(ws, 1)
    fill = PatternFill("solid", fgColor="FFF2CC")
    for i, (name, label, key, fmt) in enumerate(INPUTS, start=2):
        src = inputs.get("sources", {}).get(key) or DEFAULT_SOURCES.get(key, "")
        ws.append([label, inputs.get(key), name, src])
        cell = ws.cell(row=i, column=2)
        cell.number_format, cell.fill = fmt, fill
        wb.defined_names[name] = DefinedName(name, attr_text=f"Inputs!$B${i}")
    ws.cell(row=len(INPUTS) + 3, column=1, value=(
        "Change any yellow cell: every sheet follows (Capex lines, TCO, Cash flow, "
        "Scenarios, Comparison, Charts). A blank price is unknown, not zero: its lines "
        "are unpriced and capex a lower bound.")).font = Font(italic=True)
    head = len(INPUTS) + 5
    for c, text in enumerate(PRICE_HEAD, start=1):
        ws.cell(row=head, column=c, value=text)
    style_header(ws, head)
    rows = {}
    for r, ln in enumerate(price_table(lines), start=head + 1):
        rows[ln["sku"]] = r
        base = ln["unit_usd"]
        ws.cell(row=r, column=1, value=ln["sku"])
        ws.cell(row=r, column=2, value=base)
        for col, key in ((3, "low_usd"), (4, "high_usd")):
            if ln.get(key) is not None:
                ws.cell(row=r, column=col, value=ln[key])
            else:  # no published range: the base price, following it when edited
                formula(ws, f"{'CD'[col - 3]}{r}", f'=IF(B{r}="","",B{r})')
        for c in (2, 3, 4):
            ws.cell(row=r, column=c).number_format = USD
            ws.cell(row=r, column=c).fill = fill
        for c, key in ((5, "price_covers"), (6, "price_basis"), (7, "price_date"),
                       (8, "price_source")):
            ws.cell(row=r, column=c, value=ln.get(key) if base is not None else
                    ("no price: unknown" if c == 5 else None))
    widths(ws)
    for col in "BCD":
        ws.column_dimensions[col].width = max(ws.column_dimensions[col].width or 0, WIDE)
    return rows


def tco_columns(prec: str) -> list[str]:
    """The TCO sheet's columns (keys; the header row shows :data:`TCO_HEAD` labels)."""
    return ["option", "capex_scope", "capex_lower_bound", "capex_usd", "gpus", "it_power_kw",
            "pue_ratio", f"peak_dense_pflops_{prec}", "pue_used", "energy_usd_per_year",
            "maintenance_usd_per_year", "facility_usd", "annuity_factor", "tco_usd",
            "npv_usd", f"usd_per_dense_pflop_year_{prec}", "usd_per_gpu_hour"]


def tco_header(key: str) -> str:
    from infra.reports.labels import column_header

    if key.startswith("usd_per_dense_pflop_year_"):
        return f"$ per dense {key.rsplit('_', 1)[1].upper()} PFLOP-year"
    if key.startswith("peak_dense_pflops_"):
        return column_header(key)
    return TCO_HEAD.get(key, key)


def tco_sheet(wb, rows: list[dict], inputs: dict[str, Any], check: dict | None,
              blocks: dict[str, tuple[str, int, int]]) -> dict[str, str]:
    """Sheet "TCO": per option, its inputs and the live formulas. ``blocks`` maps an
    option to its Capex lines (``(sheet ref prefix, first row, last row)``); capex is
    their sum. Returns the column letter of each key."""
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter as L

    from infra.reports.cellsafe import formula
    from infra.reports.compare_live_xlsx import CAPEX_COL

    prec = inputs.get("precision", "bf16")
    pf_col, per_pf = f"peak_dense_pflops_{prec}", f"usd_per_dense_pflop_year_{prec}"
    keys = tco_columns(prec)
    given = ["option", "capex_scope", "gpus", "it_power_kw", "pue_ratio", pf_col]
    ws = wb.create_sheet("TCO")
    ws.append([tco_header(k) for k in keys])
    from infra.reports.xlsx_style import style_header

    style_header(ws, 1)
    c = {k: L(i + 1) for i, k in enumerate(keys)}
    for i, r in enumerate(rows, start=2):
        for k in given:
            ws[f"{c[k]}{i}"] = r.get(k)
        f = {k: f"{c[k]}{i}" for k in c}
        q, a, b = blocks.get(r["option"], (None, 0, -1))
        tot, st = (f"{q}!{CAPEX_COL['total_usd']}{a}:{CAPEX_COL['total_usd']}{b}",
                   f"{q}!{CAPEX_COL['status']}{a}:{CAPEX_COL['status']}{b}")
        unpriced = f'COUNTIF({st},"unpriced")'
        formulas = {
            "capex_usd": (f'=IF(COUNTIF({st},"priced")=0,"",SUM({tot}))' if q else '=""'),
            "capex_lower_bound": (
                f'=IF({f["capex_usd"]}="","unknown",IF({unpriced}=0,"complete","lower bound: "'
                f'&{unpriced}&IF({unpriced}=1," line"," lines")&" unpriced"))'
                if q else '="unknown"'),
            "pue_used": f'=IF(pue_override="",{f["pue_ratio"]},pue_override)',
            "energy_usd_per_year": f'={f["it_power_kw"]}*{f["pue_used"]}*{HOURS}*energy_usd_per_kwh',
            "maintenance_usd_per_year": f'=IF({f["capex_usd"]}="","",{f["capex_usd"]}*maintenance_fraction)',
            "facility_usd": f'={f["it_power_kw"]}/1000*facility_usd_per_mw*MIN(1,years/facility_life_years)',
            "annuity_factor": '=IF(discount_rate=0,years,(1-(1+discount_rate)^(-years))/discount_rate)',
            "tco_usd": (f'=IF({f["capex_usd"]}="","",{f["capex_usd"]}+{f["facility_usd"]}+'
                        f'{f["annuity_factor"]}*({f["energy_usd_per_year"]}+{f["maintenance_usd_per_year"]}))'),
            "npv_usd": (f'=IF({f["capex_usd"]}="","",{f["capex_usd"]}+{f["annuity_factor"]}*('
                        f'{f["energy_usd_per_year"]}+{f["maintenance_usd_per_year"]}+'
                        f'{f["facility_usd"]}/years))'),
            per_pf: f'=IF(OR({f["tco_usd"]}="",{f[pf_col]}="",{f[pf_col]}=0),"",{f["tco_usd"]}/({f[pf_col]}*years))',
            "usd_per_gpu_hour": (f'=IF(OR({f["tco_usd"]}="",{f["gpus"]}=0),"",{f["tco_usd"]}/'
                                 f'({f["gpus"]}*{HOURS}*years*utilisation))'),
        }
        for k, text in formulas.items():
            formula(ws, f[k], text)  # the tool's own formulas: kept (infra.reports.cellsafe)
        for k in ("capex_usd", "energy_usd_per_year", "maintenance_usd_per_year", "facility_usd",
                  "tco_usd", "npv_usd", per_pf):
            ws[f[k]].number_format = USD
        ws[f["usd_per_gpu_hour"]].number_format = '"$"#,##0.000'
        ws[f["it_power_kw"]].number_format = "#,##0.0"
        ws[f[pf_col]].number_format = "#,##0.0"
        ws[f["annuity_factor"]].number_format = "0.000"
        ws[f["gpus"]].number_format = "#,##0"
    ws.freeze_panes = "B2"
    n = len(rows) + 3
    ws.cell(row=n, column=1, value=(
        "USD figures on a lower-bound capex are lower bounds (Capex complete?). "
        + (check["message"] if check else ""))).font = Font(italic=True)
    for k, col in c.items():
        ws.column_dimensions[col].width = 24 if k in ("option", "capex_lower_bound") else WIDE
    return c
