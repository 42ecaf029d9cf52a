"""Terminal and Markdown text of ``infra failures`` (formats only; no figure computed).

Values are written to the precision they have: availability as a percent with the
digits its unavailability needs, with its nines and hours down per year
(:func:`availability_text`); fractions as labelled percents (``0.44 % of GPU-hours``);
rates to 4 significant figures, never rounded to 0 when they are not 0; a rate the rates
file tags ``assumption`` says so (``0.05 /yr (assumed)``).
"""

from __future__ import annotations

import math
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


def percent(x: float | None) -> str:
    """A fraction as a percent with the digits it has: near 1, enough decimals for two
    significant digits of 1 - x; below 1/2, two significant digits of x.

    >>> percent(0.992313), percent(0.993412), percent(0.9996), percent(0.94586)
    ('99.23 %', '99.34 %', '99.960 %', '94.6 %')
    >>> percent(0.004355), percent(2.6e-05), percent(0.0), percent(1.0)
    ('0.44 %', '0.0026 %', '0 %', '100 %')
    """
    if x is None:
        return "unknown"
    if x <= 0 or x >= 1:
        return f"{x * 100:g} %"
    if x >= 0.5:
        lost = (1 - x) * 100
        nd = max(1, 1 - math.floor(math.log10(lost)))
        return f"{x * 100:.{nd}f} %"
    return f"{float(f'{x * 100:.2g}'):g} %"


def nines(a: float) -> float:
    """-log10(1 - a): 0.99 -> 2, 0.999 -> 3 (infinite at 1).

    >>> round(nines(0.992313), 2)
    2.11
    """
    return math.inf if a >= 1 else -math.log10(1 - a)


def downtime_hours(a: float) -> float:
    """Hours a year not available: (1 - a) x 8,760."""
    return (1 - a) * 8760


def availability_text(a: float | None) -> str:
    """``99.23 % (2.11 nines, 67.3 h down a year)``.

    >>> availability_text(0.992313)
    '99.23 % (2.11 nines, 67.3 h down a year)'
    >>> availability_text(0.9996)
    '99.960 % (3.40 nines, 3.5 h down a year)'
    """
    if a is None:
        return "unknown"
    if a >= 1:
        return "100 % (no downtime)"
    h = downtime_hours(a)
    hours = f"{h:,.1f}" if h >= 0.1 else sig(h)
    return f"{percent(a)} ({nines(a):.2f} nines, {hours} h down a year)"


def rate_text(rate: float | None, tag: str | None, unit: str = "/yr") -> str:
    """A rate with its tag when assumed; a placeholder 0 reads ``0 (assumed)``.

    >>> rate_text(0.0809, "DER"), rate_text(0.05, "assumption"), rate_text(0, "assumption")
    ('0.0809 /yr', '0.05 /yr (assumed)', '0 /yr (assumed)')
    >>> rate_text(0.00001234, "DER")
    '1.23e-05 /yr'
    """
    if rate is None:
        return "unknown"
    text = f"{sig(float(rate))} {unit}".strip()
    return f"{text} (assumed)" if tag == "assumption" else text


def headline(m: dict[str, Any]) -> list[tuple[str, str]]:
    """The review's answer to the precision it has: availability as a percent with nines
    and hours down a year, GPU-hours lost as a labelled percent."""
    out = []
    for key, label in (("domain_full_availability_fraction",
                        "scale-up domain availability (every tray up)"),
                       ("job_all_domains_availability_fraction",
                        "job availability (all its domains at once)"),
                       ("gpu_hours_lost_fraction", "GPU-hours lost"),
                       ("job_goodput_fraction", "job goodput")):
        if m.get(key) is not None:
            out.append((label, metric_text(key, m[key])))
    return out


def headline_rows(m: dict[str, Any]) -> list[dict[str, Any]]:
    """The headline as a table (for the workbook): each figure as written, its value,
    and for an availability its nines and downtime hours a year."""
    keys = {"domain_full_availability_fraction": "scale-up domain availability (every tray up)",
            "job_all_domains_availability_fraction": "job availability (all its domains at once)",
            "gpu_hours_lost_fraction": "GPU-hours lost", "job_goodput_fraction": "job goodput"}
    out = []
    for key, label in keys.items():
        v = m.get(key)
        if v is None:
            continue
        avail = key.endswith("availability_fraction")
        out.append({"figure": label, "as_written": metric_text(key, v), "value": v,
                    "nines": round(nines(v), 3) if avail and v < 1 else None,
                    "downtime_hours": round(downtime_hours(v), 2) if avail else None})
    return out


def with_headline(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with the headline as its first table (``answer``), for the workbook."""
    return {**data, "tables": {"answer": headline_rows(data["metrics"]), **data["tables"]}}


def metric_text(name: str, value: Any) -> str:
    """One figure of the review as every report writes it, unit included."""
    if value is None:
        return "unknown"
    if name.endswith("availability_fraction"):
        return availability_text(value)
    if name == "gpu_hours_lost_fraction":
        return f"{percent(value)} of GPU-hours"
    if name.endswith("_fraction"):
        return percent(value)
    u = "GPU-hours per year" if name == "gpu_hours_lost_per_year" else unit(name)
    return sig(value) if u == "count" else f"{sig(value)} {u}"


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
    out += [f"  {label}: {text}" for label, text in headline(m)]
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
    out += ["Checkpoint and restart times behind the goodput, and their basis:"]
    out += [f"  {n}: {a['item']} = {sig(a['value'])} [{a['tag']}: {a['basis']}]"
            for n, d in zip(names, datas) for a in d["tables"].get("job_assumptions", [])] + [""]
    out += ["Interrupting events per year by component kind:",
            table(_pretty(c["interrupting_events_per_year_by_kind"]), ["component_kind", *names]),
            ""]
    out += ["Scale-up domain availability (closed form; seeded Monte Carlo, 99 % CI):",
            table(_pretty(c["domain_availability"]))]
    return "\n".join(out) + "\n"


def markdown(data: dict[str, Any]) -> str:
    """Markdown report of one review."""
    from infra.reports.labels import metric_label

    m, t = data["metrics"], data["tables"]
    out = [f"# Failure review: {data['design']['name']}", "",
           f"Design `{data['design']['source_file']}`; rates "
           + ", ".join(f"`{f}`" for f in data["design"]["rates_files"]) + ".", "",
           "| Figure | Value |", "|---|---:|"]
    out += [f"| {metric_label(k)} | {metric_text(k, v)} |" for k, v in m.items()]
    out += _md_sections(t)
    return "\n".join(out) + "\n"


def _md_sections(t: dict[str, list[dict]], level: str = "##") -> list[str]:
    out = []
    for name, rows in t.items():
        out += ["", f"{level} {name.replace('_', ' ').capitalize()}", "",
                _md_table(_md_rows(name, rows))]
    return out


def _md_rows(name: str, rows: list[dict]) -> list[dict]:
    """Rows with rates tagged when assumed, shares and availabilities as percents."""
    out = []
    for r in rows:
        r = dict(r)
        if "rate_per_year" in r and "tag" in r:
            r["rate_per_year"] = rate_text(r["rate_per_year"], r["tag"])
        for k in ("closed_form", "job_availability"):
            if k in r:
                r[k] = availability_text(r[k])
        for k in ("monte_carlo", "mc_ci_low", "mc_ci_high", "share_of_interruptions",
                  "share_of_job_interruptions", "degraded_bandwidth_fraction"):
            if isinstance(r.get(k), float):
                r[k] = percent(r[k])
        out.append(r)
    return out


def markdown_compare(datas: list[dict[str, Any]], names: list[str]) -> str:
    """One Markdown report of two or more reviews: side by side, then each review."""
    from infra.reports.labels import metric_label

    c = compare_rows(datas, names)
    out = ["# Failure review: " + " vs ".join(names), ""]
    out += [f"- **{n}**: {d['design']['name']} (`{d['design']['source_file']}`)"
            for n, d in zip(names, datas)]
    out += ["", "## Side by side", "", "| Figure | " + " | ".join(names) + " |",
            "|---|" + "---:|" * len(names)]
    out += ["| " + " | ".join([metric_label(r["metric"])]
                              + [metric_text(r["metric"], r[n]) for n in names]) + " |"
            for r in c["metrics"]]
    out += ["", "## Interrupting events per year by kind", "",
            _md_table(c["interrupting_events_per_year_by_kind"]),
            "", "## Scale-up domain availability", "",
            _md_table(_md_rows("domain_availability", c["domain_availability"]))]
    for n, d in zip(names, datas):
        out += ["", f"## {n}: {d['design']['name']}"]
        out += _md_sections(d["tables"], "###")
    return "\n".join(out) + "\n"


def _md_table(rows: list[dict]) -> str:
    if not rows:
        return "(none)"
    cols = list(rows[0])
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(sig(r.get(c)).replace("|", "/") for c in cols) + " |")
    return "\n".join(lines)
