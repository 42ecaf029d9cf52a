"""``infra synthesize`` output: the front table, the rejected families, the files."""

from __future__ import annotations

import json
from pathlib import Path

from infra.reports.tabular import to_csv
from infra.reports.terminal import table


def render_synthesis(result, fmt: str, top: int | None = None) -> str:
    from infra.synthesis.output import front_table

    rows = front_table(result, top)
    d = result.as_dict()
    if fmt == "json":
        return json.dumps({**d, "front": rows}, indent=2, default=str) + "\n"
    if fmt == "csv":
        return to_csv(rows)
    b = d["budget"]
    head = (f"Budget {b['power_mw']:g} MW" + (f", ${b['capex_usd']:,.0f}" if b["capex_usd"] else "")
            + (f", {b['train_model']} on {b['tokens']:.3g} tokens" if b["train_model"] else ""))
    cols = {"design": "design", "gpus": "GPUs", "facility_power_mw": "facility MW",
            "capex_usd": "capex $"}
    if b["train_model"]:
        cols.update({"train_days": "days", "train_facility_energy_mwh": "facility MWh"})
    view = [{label: r.get(k) for k, label in cols.items()} for r in rows]
    s = d.get("search") or {}
    space = (f"  {s['enumerated']:,} candidates in the search space, {s['pruned_by_bounds']:,} "
             f"({s['pruned_by_bounds'] / max(1, s['enumerated']):.0%}) cut by bounds before "
             "analysis\n" if s else "")
    out = [head, f"{space}  {d['evaluated']:,} candidates analysed, {len(d['front'])} on the "
                 f"front ({', '.join(f'{k} {v}' for k, v in result.objectives.items())})",
           table(view)]
    if result.rejected:
        out.append("\nRejected families:")
        out.extend(f"  - {r['family']} ({r['gpu']}): {r['reason']}" for r in result.rejected)
    return "\n".join(out) + "\n"


def _chart_axes(result) -> tuple[str, str]:
    """(x, y) metrics of the front chart: facility MW against the first objective that is
    not power (days with a training target, else capex or GPUs)."""
    ys = [k for k in result.objectives if k != "facility_power_mw"]
    return "facility_power_mw", (ys[0] if ys else "gpus")


def synthesis_html(result, top: int | None = None) -> str:
    """A self-contained page: the front (chart and table), the rejected families."""
    from infra.reports.html_report import footer_text, page, section
    from infra.reports.svg_chart import scatter_chart
    from infra.synthesis.output import front_table

    rows = front_table(result, top)
    x, y = _chart_axes(result)
    chart = scatter_chart(f"Front: {y} against facility MW",
                          [(r[x], r.get(y), r["design"]) for r in rows], x, y)
    body = [f'<h2 id="front">Pareto front</h2><div class="chart">{chart}</div>',
            section("Front designs", rows, "front-table"),
            section("Rejected families", result.rejected, "rejected")]
    nav = [("front", "Front"), ("front-table", "Designs"), ("rejected", "Rejected")]
    b = result.budget
    meta = (f"Budget {b.power_mw:g} MW facility" + (f", ${b.capex_usd:,.0f}" if b.capex_usd else "")
            + (f"; {b.train_model} on {b.tokens:.3g} tokens" if b.train_model else ""))
    return page("Synthesis", meta, body, nav, footer_text("infra synthesize"))


def synthesis_workbook(result, top: int | None = None):
    """Front, Candidates and Rejected sheets; a native scatter chart of the front."""
    from openpyxl import Workbook
    from openpyxl.chart import Reference, ScatterChart, Series

    from infra.synthesis.output import front_table

    wb = Workbook()
    ws = wb.active
    ws.title = "Front"
    front = front_table(result, top)
    for name, rows, sheet in (("Front", front, ws),
                              ("Candidates", result.rows, wb.create_sheet("Candidates")),
                              ("Rejected", result.rejected, wb.create_sheet("Rejected"))):
        cols = list(dict.fromkeys(k for r in rows for k in r)) if rows else ["(none)"]
        sheet.append(cols)
        for r in rows:
            sheet.append([r.get(c) for c in cols])
    if front:
        x, y = _chart_axes(result)
        cols = [c.value for c in ws[1]]
        if x in cols and y in cols:
            chart = ScatterChart()
            chart.title = f"Front: {y} against facility MW"
            chart.style, chart.height, chart.width = 13, 9, 18
            chart.x_axis.title, chart.y_axis.title = x, y
            chart.x_axis.delete = chart.y_axis.delete = False
            s = Series(Reference(ws, min_col=cols.index(y) + 1, min_row=2, max_row=len(front) + 1),
                       Reference(ws, min_col=cols.index(x) + 1, min_row=2, max_row=len(front) + 1),
                       title="front designs")
            s.marker.symbol, s.graphicalProperties.line.noFill = "circle", True
            chart.series.append(s)
            ws.add_chart(chart, f"A{len(front) + 4}")
    return wb


def write_synthesis(result, outdir: Path | str, top: int | None = None,
                    reports: tuple[str, ...] = ()) -> list[Path]:
    """Each front design as ``<family>-x<n>.yaml``, synthesis.json / .csv, and with
    ``reports`` synthesis.xlsx / synthesis.html."""
    from infra.reports.atomic import write_text_atomic
    from infra.synthesis.output import design_name, design_text, front_table

    from infra.reports.atomic import check_targets

    out = Path(outdir)
    rows = {design_name(r): r for r in front_table(result, top)}
    front = [(i, design_name(result.rows[i])) for i in result.front
             if design_name(result.rows[i]) in rows]
    # every target checked before the first is written: a run that cannot write one of
    # its files writes none
    check_targets([out / f"{n}.yaml" for _, n in front]
                  + [out / f"synthesis.{x}" for x in ("json", "csv", *reports)], root=out)
    paths = []
    for i, name in front:
        paths.append(write_text_atomic(out / f"{name}.yaml", design_text(result, i)))
    paths.append(write_text_atomic(out / "synthesis.json", render_synthesis(result, "json", top)))
    paths.append(write_text_atomic(out / "synthesis.csv", to_csv(list(rows.values()))))
    if "html" in reports:
        paths.append(write_text_atomic(out / "synthesis.html", synthesis_html(result, top)))
    if "xlsx" in reports:
        from infra.reports.atomic import save_workbook, write_atomic

        wb = synthesis_workbook(result, top)
        paths.append(write_atomic(out / "synthesis.xlsx", lambda p: save_workbook(wb, p)))
    return paths


__all__ = ["render_synthesis", "synthesis_html", "synthesis_workbook", "write_synthesis"]
