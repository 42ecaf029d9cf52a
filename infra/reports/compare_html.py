"""The comparison page (``infra compare --report html``): a comparison table first, the
charts inline, then TCO, cash flow, price scenarios, capex lines and assumptions.

Only formats ``Comparison.as_dict()``: figures with human labels and units, whole
dollars ($ per GPU-hour to the tenth of a cent), each bound marked (≥ lower bound,
≤ upper bound; :mod:`infra.analysis.cost.compare_bounds`), unknown as a dash.
"""

from __future__ import annotations

from typing import Any

from infra.analysis.cost.compare_bounds import MARK, WORDS, bound_of
from infra.reports.compare_labels import row_style
from infra.reports.html_report import esc, findings_html, footer_text, page, section
from infra.reports.labels import metric_label, value_text

TCO_COLS = [("capex_usd", "Capex"), ("energy_usd_per_year", "Energy per year"),
            ("maintenance_usd_per_year", "Maintenance per year"),
            ("facility_usd", "Facility over the horizon"), ("tco_usd", "TCO"),
            ("npv_usd", "NPV of the cash flow")]


def usd(v: float | None, cents: bool = False) -> str:
    """Whole dollars (``$1,234``); with ``cents`` three decimals ($ per GPU-hour)."""
    if v is None:
        return "\u2013"
    return f"${v:,.3f}" if cents else f"${v:,.0f}"


def _td(text: str, sort: Any = None, cls: str = "") -> str:
    key = "" if sort is None else f' data-v="{esc(sort)}"'
    cls = f' class="{cls}"' if cls else ""
    return f"<td{cls}{key}>{esc(text)}</td>"


def _table(head: list[str], rows: list[str], anchor: str, title: str, fold: bool = False) -> str:
    th = "".join(f'<th scope="col">{esc(h)}</th>' for h in head)
    body = (f'<div class="wrap"><table class="data"><thead><tr>{th}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>")
    if fold:
        body = f"<details><summary>{len(rows):,} rows: show</summary>{body}</details>"
    return f'<h2 id="{esc(anchor)}">{esc(title)}</h2>{body}'


def _figure(metric: str, v: Any, bound: str | None) -> str:
    if v is None:
        return '<td class="unknown" data-v="" title="unknown or not applicable">&#8211;</td>'
    if row_style(metric)[1] == "USD":
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            text = usd(v, cents=row_style(metric)[2] == '"$"#,##0.000')
            return _td(f"{MARK[bound]} {text}" if bound else text, v, "num")
    text = value_text(metric, v)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        title = f' title="{WORDS[bound]}"' if bound else ""
        mark = f"{MARK[bound]} " if bound else ""
        return f'<td class="num" data-v="{v!r}"{title}>{esc(mark + text)}</td>'
    return _td(text)


def _label_unit(m: str) -> tuple[str, str]:
    """Label and unit of a comparison row (:func:`infra.reports.compare_labels.row_style`)."""
    label, unit, _ = row_style(m)
    return label, unit


def comparison_table(data: dict[str, Any]) -> str:
    labels = [o["label"] for o in data["options"]]
    bounds = data.get("bounds", {})
    ranked = any(r.get("ranking") for r in data["comparison"])
    head = ["Figure", "Unit", *labels] + (["Ranking"] if ranked else [])
    rows, last = [], None
    for r in data["comparison"]:
        if r["section"] != last:
            last = r["section"]
            rows.append(f'<tr class="group"><td colspan="{len(head)}" data-v="">'
                        f"<strong>{esc(last.capitalize())}</strong></td></tr>")
        m = r["metric"]
        label, unit = _label_unit(m)
        cells = [_td(label), _td(unit)]
        cells += [_figure(m, r.get(lb), bounds.get(lb, {}).get(m)) for lb in labels]
        if ranked:
            cells.append(_td(r.get("ranking") or ""))
        rows.append(f'<tr title="{esc(m)}">' + "".join(cells) + "</tr>")
    note = ('<p class="meta">\u2265: a lower bound (capex or IT power has unknown parts: the '
            "true figure is at least this); \u2264: an upper bound (at most this, e.g. PFLOPS per "
            "$M of a lower-bound capex); a dash: unknown or not applicable.</p>")
    return _table(head, rows, "comparison", "Comparison") + note


def charts(data: dict[str, Any]) -> str:
    from infra.reports.svg_bars import bar_chart

    rows = data.get("charts") or []
    if not rows:
        return ""
    keys = [k for k in rows[0] if k not in ("option", "bounds")]

    def cats(grp: list[str]) -> list[str]:
        out = []
        for r in rows:
            marks = sorted({MARK[b] for k, b in r.get("bounds", {}).items() if k in grp})
            out.append(f"{'/'.join(marks)} {r['option']}" if marks else r["option"])
        return out

    def series(grp: list[str]) -> dict[str, list]:
        return {_series_name(k): [r.get(k) for r in rows] for k in grp}

    per_usd = [k for k in keys if k.endswith("_per_musd_capex")]
    per_mw = [k for k in keys if k.endswith("_per_facility_mw")]
    capex = [k for k in keys if k.startswith("capex_")]
    tco = capex + ["energy_usd_tco", "maintenance_usd_tco", "facility_usd"]
    svgs = [
        bar_chart("Peak dense PFLOPS per $M of capex (\u2264 upper bound; unknown left out)",
                  cats(per_usd), series(per_usd), "PFLOPS per $M"),
        bar_chart("Peak dense PFLOPS per facility MW", cats(per_mw), series(per_mw),
                  "PFLOPS per MW"),
        bar_chart("Capex by category (\u2265 lower bound; unknown left out)", cats(capex),
                  series(capex), "$M", stacked=True, scale=1e6),
        bar_chart("TCO by part (\u2265 lower bound; unknown capex left out)", cats(tco),
                  series(tco), "$M", stacked=True, scale=1e6)]
    figs = "".join(f'<div class="chart">{s}</div>' for s in svgs if s)
    return f'<h2 id="charts">Charts</h2>{figs}' if figs else ""


def _series_name(k: str) -> str:
    names = {"energy_usd_tco": "Energy (present value)",
             "maintenance_usd_tco": "Maintenance (present value)", "facility_usd": "Facility"}
    if k in names:
        return names[k]
    if k.endswith("_per_musd_capex") or k.endswith("_per_facility_mw"):
        return metric_label(k.split("_per_")[0])
    return metric_label(k).replace("Capex ", "", 1).capitalize()


def tco_table(data: dict[str, Any]) -> str:
    prec = data.get("cost_inputs", {}).get("precision", "bf16")
    years = data.get("cost_inputs", {}).get("years")
    per_pf = f"usd_per_dense_pflop_year_{prec}"
    head = ["Option", "Capex scope", "Capex complete?"] + [t for _, t in TCO_COLS] + [
        f"$ per dense {prec.upper()} PFLOP-year", "$ per GPU-hour"]
    rows = []
    power = {o["label"]: "power" for o in data["options"]
             if (o.get("metrics") or {}).get("power_unknown_parts_count")}
    for r in data.get("tco", []):
        lower = {"capex"} if r["capex_lower_bound"].startswith("lower bound") else set()
        lower |= {power[r["option"]]} if r["option"] in power else set()
        cells = [_td(r["option"]), _td(r["capex_scope"]), _td(r["capex_lower_bound"])]
        for k, _ in TCO_COLS + [(per_pf, ""), ("usd_per_gpu_hour", "")]:
            v, b = r.get(k), bound_of(k, lower)
            mark = f"{MARK[b]} " if b and v is not None else ""
            cells.append(_td(mark + usd(v, k == "usd_per_gpu_hour"), v, "num"))
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return _table(head, rows, "tco", f"TCO over {years} years")


def cash_flow_table(data: dict[str, Any]) -> str:
    head = ["Option", "Year", "Capex", "Energy", "Maintenance", "Facility", "Total",
            "Discount factor", "Present value"]
    lower = {r["option"] for r in data.get("tco", [])
             if r["capex_lower_bound"].startswith("lower bound")}
    npv = {r["option"]: r.get("npv_usd") for r in data.get("tco", [])}
    rows, flows = [], data.get("cash_flow", [])
    for i, f in enumerate(flows):
        ge = "\u2265 " if f["option"] in lower else ""

        def money(k: str, mark: str = "") -> str:
            v = f[k]
            return _td((mark if v else "") + usd(v), v, "num")

        cells = [_td(f["option"]), _td(str(f["year"]), f["year"], "num"),
                 money("capex_usd", ge), money("energy_usd"), money("maintenance_usd", ge),
                 money("facility_usd"), money("total_usd", ge),
                 _td(f"{f['discount_factor']:.4f}", f["discount_factor"], "num"),
                 money("present_value_usd", ge)]
        rows.append("<tr>" + "".join(cells) + "</tr>")
        if i + 1 == len(flows) or flows[i + 1]["option"] != f["option"]:
            v = npv.get(f["option"])
            rows.append("<tr>" + _td(f["option"]) + _td("NPV") + "".join(_td("") for _ in range(6))
                        + f"<td class=\"num\" data-v=\"{esc(v)}\"><strong>"
                        f"{esc(ge + usd(v))}</strong></td></tr>")
    return _table(head, rows, "cash-flow", "Cash flow by year", fold=len(rows) > 14)


def scenarios_table(data: dict[str, Any]) -> str:
    names = {"capex_usd": "Capex", "tco_usd": "TCO", "npv_usd": "NPV",
             "usd_per_dense_pflop_year": "$ per dense PFLOP-year",
             "usd_per_gpu_hour": "$ per GPU-hour"}
    rows = []
    for s in data.get("scenarios", []):
        cents = s["figure"] == "usd_per_gpu_hour"
        mark = "\u2265 " if s.get("bound") == "lower" else ""
        cells = [_td(s["option"]), _td(names.get(s["figure"], s["figure"]))]
        cells += [_td(mark + usd(s[k], cents) if s[k] is not None else "\u2013", s[k], "num")
                  for k in ("low", "base", "high")]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (_table(["Option", "Figure", "Low prices", "Base prices", "High prices"], rows,
                   "scenarios", "Price scenarios (low, base, high end of each price's range)"))


def compare_page(data: dict[str, Any]) -> str:
    """The whole page."""
    title = "Comparison"
    if data.get("target"):
        title += f", sized to {data['target']}"
    opts = [{"option": o["label"], "name": o["name"], "kind": o["kind"].replace("_", " "),
             "source": o["key"]} for o in data["options"]]
    findings = [{"kind": o["label"], "text": f} for o in data["options"]
                for f in (o.get("findings") or [])]
    body = findings_html(findings)
    check = data.get("capex_scope_check")
    scope = (f'<p class="meta"><strong>Capex scope.</strong> {esc(check["message"])}.</p>'
             if check and len(data["options"]) > 1 else "")
    body += [comparison_table(data), scope, charts(data), tco_table(data),
             cash_flow_table(data), scenarios_table(data),
             section("Options", opts, "options"),
             section("Capex lines", _capex_lines(data), "capex-lines"),
             section("Assumptions", data["assumptions"], "assumptions")]
    nav = [("comparison", "Comparison"), ("charts", "Charts"), ("tco", "TCO"),
           ("cash-flow", "Cash flow"), ("scenarios", "Scenarios"), ("options", "Options"),
           ("capex-lines", "Capex lines"), ("assumptions", "Assumptions")]
    meta = "Options: " + esc(", ".join(f"{o['label']} ({o['name']})" for o in data["options"]))
    return page(title, meta, [b for b in body if b], nav, footer_text("infra compare"))


def _capex_lines(data: dict[str, Any]) -> list[dict]:
    keep = ("option", "line", "category", "sku", "count", "status", "included_in",
            "unit_usd", "total_usd", "price_basis", "price_source")
    return [{k: r.get(k) for k in keep} for r in data.get("capex_lines", [])]


__all__ = ["compare_page", "usd"]
