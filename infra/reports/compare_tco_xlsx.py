"""Live TCO sheets of the comparison workbook: named input cells and formulas on them.

The formulas repeat :func:`infra.analysis.cost.tco.total_cost` (the analysis stays the one
place the figures are computed; the sheet lets a buyer change an assumption and see
every dependent figure move)::

    energy/yr   = IT kW x PUE x 8,760 h x energy price
    maint/yr    = capex x maintenance fraction
    facility    = IT kW / 1000 x build cost per MW x MIN(1, years / facility life)
    A           = years when rate = 0, else (1 - (1 + rate)^-years) / rate
    TCO         = capex + facility + A x (energy + maint)     (blank when capex unknown)
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


def inputs_sheet(wb, inputs: dict[str, Any]) -> None:
    """Sheet "Inputs": one named, editable cell per cost assumption, with its source."""
    from openpyxl.styles import Font, PatternFill
    from openpyxl.workbook.defined_name import DefinedName

    from infra.reports.xlsx_report import style_header, widths

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
        "Change any yellow cell: the TCO sheet recomputes energy, maintenance, facility, TCO, "
        "$ per PFLOP-year and $ per GPU-hour. Capex comes from the price files (Capex lines)."
    )).font = Font(italic=True)
    widths(ws)


def tco_sheet(wb, rows: list[dict], inputs: dict[str, Any], check: dict | None) -> None:
    """Sheet "TCO": per option, its inputs and the live formulas."""
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter as L

    from infra.reports.cellsafe import formula
    from infra.reports.xlsx_report import style_header, widths

    prec = inputs.get("precision", "bf16")
    pf_col, per_pf = f"peak_dense_pflops_{prec}", f"usd_per_dense_pflop_year_{prec}"
    given = ["option", "capex_scope", "capex_lower_bound", "capex_usd", "gpus", "it_power_kw",
             "pue_ratio", pf_col]
    live = ["pue_used", "energy_usd_per_year", "maintenance_usd_per_year", "facility_usd",
            "annuity_factor", "tco_usd", per_pf, "usd_per_gpu_hour"]
    ws = wb.create_sheet("TCO")
    ws.append(given + live)
    style_header(ws, 1)
    c = {k: L(i + 1) for i, k in enumerate(given + live)}
    for i, r in enumerate(rows, start=2):
        ws.append([r.get(k) for k in given])
        f = {k: f"{c[k]}{i}" for k in c}
        formulas = {
            "pue_used": f'=IF(pue_override="",{f["pue_ratio"]},pue_override)',
            "energy_usd_per_year": f'={f["it_power_kw"]}*{f["pue_used"]}*{HOURS}*energy_usd_per_kwh',
            "maintenance_usd_per_year": f'=IF({f["capex_usd"]}="","",{f["capex_usd"]}*maintenance_fraction)',
            "facility_usd": f'={f["it_power_kw"]}/1000*facility_usd_per_mw*MIN(1,years/facility_life_years)',
            "annuity_factor": '=IF(discount_rate=0,years,(1-(1+discount_rate)^(-years))/discount_rate)',
            "tco_usd": (f'=IF({f["capex_usd"]}="","",{f["capex_usd"]}+{f["facility_usd"]}+'
                        f'{f["annuity_factor"]}*({f["energy_usd_per_year"]}+{f["maintenance_usd_per_year"]}))'),
            per_pf: f'=IF(OR({f["tco_usd"]}="",{f[pf_col]}="",{f[pf_col]}=0),"",{f["tco_usd"]}/({f[pf_col]}*years))',
            "usd_per_gpu_hour": (f'=IF(OR({f["tco_usd"]}="",{f["gpus"]}=0),"",{f["tco_usd"]}/'
                                 f'({f["gpus"]}*{HOURS}*years*utilisation))'),
        }
        for k, text in formulas.items():
            formula(ws, f[k], text)  # the tool's own formulas: kept (infra.reports.cellsafe)
        for k in ("capex_usd", "energy_usd_per_year", "maintenance_usd_per_year", "facility_usd",
                  "tco_usd", per_pf):
            ws[f[k]].number_format = '"$"#,##0'
        ws[f["usd_per_gpu_hour"]].number_format = '"$"#,##0.000'
    ws.freeze_panes = "B2"
    n = len(rows) + 3
    ws.cell(row=n, column=1, value=(
        "USD figures on a lower-bound capex are lower bounds (capex_lower_bound). "
        + (check["message"] if check else ""))).font = Font(italic=True)
    widths(ws)
