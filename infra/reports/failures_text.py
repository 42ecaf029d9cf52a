"""Terminal and Markdown text of ``infra failures`` (formats only; no figure computed)."""

from __future__ import annotations

from typing import Any

from infra.reports.labels import metric_unit
from infra.reports.terminal import DEFAULT_ROWS, fmt, shown_rows, table

EXTRA_UNITS = (("_minutes", "minutes"), ("_seconds", "seconds"), ("_per_year", "per year"))
FAILURE_COLUMNS = ["component_kind", "component", "count", "rate_per_year", "tag", "gpus_lost",
                   "gpus_degraded", "interrupts", "events_per_year", "events_per_day",
                   "gpu_hours_lost_per_year", "share_of_interruptions"]
AVAIL_COLUMNS = ["job_gpus_per_domain", "spare_trays", "closed_form", "monte_carlo",
                 "mc_ci_low", "mc_ci_high", "agrees", "job_availability"]


def sig(value: Any) -> str:
    """4 significant figures (rates are small), thousands separators, yes/no."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if value == 0 or abs(value) >= 1000:
            return f"{value:,.0f}"
        return f"{value:.4g}" if abs(value) >= 1e-4 else f"{value:.2e}"
    return fmt(value, "-")


def _pretty(rows: list[dict]) -> list[dict]:
    return [{k: sig(v) for k, v in r.items()} for r in rows]


def unit(name: str) -> str:
    for suffix, u in EXTRA_UNITS:
        if name.endswith(suffix):
            return u
    return metric_unit(name)


def _cut(rows: list[dict], key: str, width: int = 60) -> list[dict]:
    return [{**r, key: r[key] if len(str(r[key])) <= width else str(r[key])[: width - 3] + "..."}
            for r in rows]


def render_review(data: dict[str, Any], max_rows: int | None = DEFAULT_ROWS) -> str:
    """Terminal text of one design's review (the ``as_dict()`` contract); the per-component
    table prints at most ``max_rows`` rows (0 or None: all), the largest share of
    interruptions first, and says how many the reports hold."""
    m, t = data["metrics"], data["tables"]
    out = [f"{data['design']['name']}  ({data['design']['source_file']})",
           f"  rates: {', '.join(data['design']['rates_files'])}", ""]
    width = max(len(k) for k in m)
    out += [f"  {k.ljust(width)}  {sig(v):>12}  {unit(k)}" for k, v in m.items()]
    for a in t.get("job_assumptions", []):
        out.append(f"  goodput assumes {a['item']} = {sig(a['value'])} [{a['tag']}: {a['basis']}]")
    rows, cut = shown_rows("failures", t["failures"], max_rows)
    out += ["", "Failures per component (events = count x rate; share of interrupting events)"
            + (f" [{cut}; every row: --rows 0, or --format json / --report xlsx]" if cut else "")
            + ":", table(_pretty(_cut(rows, "component")), FAILURE_COLUMNS)]
    out += ["", f"Job of {m['job_gpus']} GPUs: interruptions per day by kind:",
            table(_pretty(t["job_interruptions_by_kind"]))]
    out += ["", "Scale-up domain availability (closed form vs seeded Monte Carlo, 99 % CI):",
            table(_pretty(t["domain_availability"]), AVAIL_COLUMNS)]
    if t["not_modelled"]:
        out += ["", "Rated kinds this design has none of (not counted):",
                "  " + ", ".join(r["component_kind"] for r in t["not_modelled"])]
    return "\n".join(out) + "\n"


def compare_rows(datas: list[dict[str, Any]], names: list[str]) -> dict[str, list[dict]]:
    """Side-by-side tables: metrics, events per year by kind, domain availability."""
    metrics = [{"metric": k, **{n: d["metrics"].get(k) for n, d in zip(names, datas)},
                "unit": unit(k)} for k in datas[0]["metrics"]]
    kinds: dict[str, dict] = {}
    for n, d in zip(names, datas):
        for r in d["tables"]["failures"]:
            row = kinds.setdefault(r["component_kind"], {"component_kind": r["component_kind"]})
            if r["interrupts"] and r["events_per_year"]:
                row[n] = round(row.get(n) or 0.0, 6) + r["events_per_year"]
    for row in kinds.values():
        for n in names:
            row[n] = None if row.get(n) is None else round(row[n], 4)
    events = [r for r in kinds.values() if any(r.get(n) for n in names)]
    avail = [{"design": n, **{k: a[k] for k in ("job_gpus_per_domain", "spare_trays",
                                                 "closed_form", "monte_carlo", "agrees")}}
             for n, d in zip(names, datas) for a in d["tables"]["domain_availability"]]
    return {"metrics": metrics, "interrupting_events_per_year_by_kind": events,
            "domain_availability": avail}


def render_compare(datas: list[dict[str, Any]], names: list[str]) -> str:
    c = compare_rows(datas, names)
    out = ["Designs: " + "; ".join(f"{n} = {d['design']['name']}" for n, d in zip(names, datas)), ""]
    out += [table(_pretty(c["metrics"]), ["metric", *names, "unit"]), ""]
    out += ["Interrupting events per year by component kind:",
            table(_pretty(c["interrupting_events_per_year_by_kind"]), ["component_kind", *names]),
            ""]
    out += ["Scale-up domain availability (closed form; seeded Monte Carlo, 99 % CI):",
            table(_pretty(c["domain_availability"]))]
    return "\n".join(out) + "\n"


def markdown(data: dict[str, Any]) -> str:
    """Markdown report of one review."""
    m, t = data["metrics"], data["tables"]
    out = [f"# Failure review: {data['design']['name']}", "",
           f"Design `{data['design']['source_file']}`; rates "
           + ", ".join(f"`{f}`" for f in data["design"]["rates_files"]) + ".", "",
           "| metric | value | unit |", "|---|---:|---|"]
    out += [f"| {k} | {sig(v)} | {unit(k)} |" for k, v in m.items()]
    for name, rows in t.items():
        out += ["", f"## {name.replace('_', ' ').capitalize()}", "", _md_table(rows)]
    return "\n".join(out) + "\n"


def _md_table(rows: list[dict]) -> str:
    if not rows:
        return "(none)"
    cols = list(rows[0])
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(sig(r.get(c)).replace("|", "/") for c in cols) + " |")
    return "\n".join(lines)
