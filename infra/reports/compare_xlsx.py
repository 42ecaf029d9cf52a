"""xlsx workbook of a comparison that stays live: every figure follows the Inputs sheet.

Sheets, in order:

- **Inputs**: the cost assumptions as named cells (``energy_usd_per_kwh``,
  ``pue_override``, ``utilisation``, ``years``, ``maintenance_fraction``,
  ``discount_rate``, ``facility_usd_per_mw``, ``facility_life_years``) and the base, low
  and high price of every SKU (:mod:`infra.reports.compare_tco_xlsx`).
- **TCO**: per option, capex (the sum of its Capex lines), energy, maintenance,
  facility, TCO, NPV, $ per PFLOP-year and $ per GPU-hour: the arithmetic of
  :func:`infra.analysis.cost.tco.total_cost` as formulas.
- **Cash flow**, **Scenarios**, **Comparison**, **Capex lines**: formulas on Inputs and
  TCO (:mod:`infra.reports.compare_live_xlsx`).
- **Assumptions**: every assumption with its source.
- **Charts**: native bar charts over chart data that is itself formulas; each category
  label carries its bound mark (≥ lower bound, ≤ upper bound).

Written atomically; the tool's formulas are the only ones kept (:mod:`infra.reports.cellsafe`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from infra.analysis.cost.compare_bounds import MARK
from infra.reports.atomic import save_workbook, write_atomic
from infra.reports.compare_live_xlsx import xl  # noqa: F401 - re-exported

ORDER = ("Inputs", "TCO", "Cash flow", "Scenarios", "Comparison", "Capex lines", "Assumptions",
         "Charts")
CHART_HEAD = {"energy_usd_tco": "Energy (present value, USD)",
              "maintenance_usd_tco": "Maintenance (present value, USD)",
              "facility_usd": "Facility (USD)"}



def _sheet(wb, title: str, rows: list[dict]):
    from infra.reports.labels import metric_label
    from infra.reports.xlsx_style import style_header

    ws = wb.create_sheet(title)
    cols = list(rows[0]) if rows else ["(empty)"]
    ws.append([metric_label(c) for c in cols])
    for r in rows:
        ws.append([xl(r.get(c)) for c in cols])
    style_header(ws, 1)
    ws.freeze_panes = "A2"
    for col in ws.columns:
        width = max((len(str(c.value)) for c in col if c.value is not None), default=8)
        ws.column_dimensions[col[0].column_letter].width = min(max(width + 2, 8), 60)
    return ws


def _bar(ws, title: str, y_title: str, cols: list[int], cat_col: int, n: int, anchor: str,
         stacked=False):
    from openpyxl.chart import BarChart, Reference

    ch = BarChart()
    ch.type = "col"
    ch.title, ch.y_axis.title = title, y_title
    ch.y_axis.number_format = "#,##0"
    ch.y_axis.delete = ch.x_axis.delete = False
    ch.legend.position = "b"
    if stacked:
        ch.grouping, ch.overlap = "stacked", 100
    for c in cols:
        ch.add_data(Reference(ws, min_col=c, min_row=1, max_row=n + 1), titles_from_data=True)
    ch.set_categories(Reference(ws, min_col=cat_col, min_row=2, max_row=n + 1))
    ch.width, ch.height = 22, 11
    ws.add_chart(ch, anchor)


def _marks(bounds: dict[str, str], cols: list[str]) -> str:
    """The marks of a chart's figures, one when they agree, with a trailing space."""
    marks = sorted({MARK[bounds[c]] for c in cols if c in bounds})
    return f"{'/'.join(marks)} " if marks else ""


def _label(option: str, bounds: dict[str, str], cols: list[str]) -> str:
    """A category label with the bound of the chart's figures (one mark when they agree)."""
    return _marks(bounds, cols) + option


def charts_sheet(wb, data: dict[str, Any], tco_cols: dict[str, str],
                 blocks: dict[str, tuple]) -> None:
    """Sheet "Charts": the chart data as formulas on TCO and Capex lines, four charts."""
    from openpyxl.utils import get_column_letter as L

    from infra.reports.cellsafe import formula
    from infra.analysis.cost.compare_bounds import bound_of
    from infra.reports.compare_live_xlsx import _cat_sum, capex_lower_cond
    from infra.reports.labels import column_header

    rows = data["charts"]
    ws = wb.create_sheet("Charts")
    if not rows:
        return
    keys = [k for k in rows[0] if k not in ("option", "bounds")]
    per_usd = [k for k in keys if k.endswith("_per_musd_capex")]
    per_mw = [k for k in keys if k.endswith("_per_facility_mw")]
    capex = [k for k in keys if k.startswith("capex_")]
    tco = capex + ["energy_usd_tco", "maintenance_usd_tco", "facility_usd"]
    groups = [per_usd, per_mw, capex, tco]
    head = ["Option"] + [CHART_HEAD.get(k) or (
        "Peak dense PFLOPS per $M capex" if k in per_usd else
        "Peak dense PFLOPS per facility MW" if k in per_mw else
        column_header(k).replace("Capex ", "", 1).capitalize()) for k in keys]
    head += ["Label: PFLOPS per $M", "Label: PFLOPS per MW", "Label: capex", "Label: TCO"]
    ws.append(head)
    col = {k: L(i + 2) for i, k in enumerate(keys)}
    prec = data.get("cost_inputs", {}).get("precision", "bf16")
    for j, r in enumerate(rows):
        i, t = j + 2, {k: f"TCO!${c}${j + 2}" for k, c in tco_cols.items()}
        ws.cell(row=i, column=1, value=r["option"])
        label = data["options"][j]["label"]
        for k in keys:
            ref = f"{col[k]}{i}"
            if r[k] is None and not k.startswith("capex_"):
                continue  # unknown, or a capex that may not be drawn: no bar
            pf = t.get(f"peak_dense_pflops_{prec}")
            if k in per_usd:
                text = f'=IF(OR({t["capex_usd"]}="",{pf}=""),"",{pf}/({t["capex_usd"]}/1000000))'
            elif k in per_mw:
                text = f'=IF({pf}="","",{pf}/({t["it_power_kw"]}*{t["pue_used"]}/1000))'
            elif k.startswith("capex_"):
                if r.get("energy_usd_tco") is None or label not in blocks:
                    continue  # capex not drawn for this option
                text = _cat_sum(blocks[label], k[len("capex_"):-len("_usd")])
            elif k == "energy_usd_tco":
                text = f'={t["annuity_factor"]}*{t["energy_usd_per_year"]}'
            elif k == "maintenance_usd_tco":
                text = (f'=IF({t["maintenance_usd_per_year"]}="","",{t["annuity_factor"]}*'
                        f'{t["maintenance_usd_per_year"]})')
            else:
                text = f'={t["facility_usd"]}'
            formula(ws, ref, text)
            ws[ref].number_format = "#,##0.0" if k in per_usd + per_mw else '"$"#,##0'
        power = frozenset({"power"}) if (data["options"][j].get("metrics") or {}).get(
            "power_unknown_parts_count") else frozenset()
        cond = capex_lower_cond(t["capex_usd"], blocks.get(label))
        for g, grp in enumerate(groups):
            at = f"{L(len(keys) + 2 + g)}{i}"
            known = [k for k in grp if r.get(k) is not None]
            low = _marks({k: b for k in known if (b := bound_of(k, power | {"capex"}))}, known)
            full = _marks({k: b for k in known if (b := bound_of(k, power))}, known)
            if cond is None or low == full:
                ws[at] = _label(r["option"], r.get("bounds", {}), grp)
            else:  # live: the mark goes when every line is priced
                formula(ws, at, f'=IF({cond},"{low}","{full}")&A{i}')
    n = len(rows)
    idx = {k: i + 2 for i, k in enumerate(keys)}
    lab = len(keys) + 2
    at = L(lab + 5)
    any_b = lambda grp, b: any(r.get("bounds", {}).get(k) == b  # noqa: E731
                               for r in rows for k in grp)
    _bar(ws, "Peak dense PFLOPS per $M of capex (\u2264: upper bound, capex a lower bound; "
         "unknown capex left out)", "PFLOPS per $M", [idx[k] for k in per_usd], lab, n, f"{at}2")
    _bar(ws, "Peak dense PFLOPS per facility MW"
         + (" (\u2264: upper bound, IT power a lower bound)" if any_b(per_mw, "upper") else ""),
         "PFLOPS per MW", [idx[k] for k in per_mw], lab + 1, n, f"{at}25")
    _bar(ws, "Capex by category (\u2265: lower bound; unknown capex left out)", "USD",
         [idx[k] for k in capex], lab + 2, n, f"{at}48", stacked=True)
    _bar(ws, "TCO by part (\u2265: lower bound; unknown capex left out)", "USD",
         [idx[k] for k in tco], lab + 3, n, f"{at}71", stacked=True)


def build_workbook(data: dict[str, Any]):
    """An openpyxl Workbook of ``Comparison.as_dict()`` (not saved)."""
    from openpyxl import Workbook

    from infra.reports.compare_live_xlsx import (
        capex_lines_sheet, cash_flow_sheet, comparison_sheet, scenarios_sheet)
    from infra.reports.compare_tco_xlsx import inputs_sheet, tco_sheet

    wb = Workbook()
    wb.remove(wb.active)
    tco_cols: dict[str, str] = {}
    blocks: dict[str, tuple] = {}
    if data.get("cost_inputs") and data.get("tco"):
        prices = inputs_sheet(wb, data["cost_inputs"], data["capex_lines"])
        blocks = capex_lines_sheet(wb, data["capex_lines"], prices)
        tco_cols = tco_sheet(wb, data["tco"], data["cost_inputs"], data.get("capex_scope_check"),
                             blocks)
        cash_flow_sheet(wb, data, tco_cols, blocks)
        scenarios_sheet(wb, data, tco_cols, blocks)
        comparison_sheet(wb, data, tco_cols, blocks, prices)
        charts_sheet(wb, data, tco_cols, blocks)
    else:  # no cost inputs (an older dict): the tables as they are
        _sheet(wb, "Comparison", data["comparison"])
        _sheet(wb, "Capex lines", data["capex_lines"])
    _sheet(wb, "Assumptions", data["assumptions"])
    wb._sheets.sort(key=lambda ws: ORDER.index(ws.title) if ws.title in ORDER else len(ORDER))
    _print_setup(wb)
    return wb


def _print_setup(wb) -> None:
    """Landscape A4, fit to width (pages wide only where one would print below 6 pt),
    header rows repeated, no chart cut by a page, footer: every workbook's page setup
    (:func:`infra.reports.xlsx_print.print_setup`)."""
    from infra.reports.xlsx_print import print_setup

    print_setup(wb, "infra compare")


def write_compare_xlsx(data: dict[str, Any], path: Path) -> Path:
    wb = build_workbook(data)
    return write_atomic(path, lambda p: save_workbook(wb, p))
