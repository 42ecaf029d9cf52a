"""HTML pages of ``infra failures``: one design's review, or several side by side.

Formats ``FailureReview.as_dict()`` to the precision it has
(:mod:`infra.reports.failures_text`): availability as a percent with its nines and
hours down a year, fractions as labelled percents, rates to 4 significant figures
(never a non-zero rate as 0), assumed rates marked "(assumed)".
"""

from __future__ import annotations

import re
from typing import Any

from infra.reports.failures_text import (
    availability_text, compare_rows, metric_text, percent, rate_text, sig)
from infra.reports.html_report import esc, footer_text, page
from infra.reports.labels import metric_label

FOLD = 12


def aid(text: str) -> str:
    """An element id from a title: letters, digits, _ and - only."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-")


def _td(text: Any, sort: Any = None, num: bool = False) -> str:
    text = "\u2013" if text is None else str(text)
    key = "" if sort is None else f' data-v="{esc(sort)}"'
    cls = ' class="num"' if num else ""
    if re.fullmatch(r"https?://\S+", text):
        return f'<td><a href="{esc(text)}">{esc(text)}</a></td>'
    return f"<td{cls}{key}>{esc(text)}</td>"


def _n(v: Any, text: str | None = None) -> str:
    """A numeric cell: its text (``sig`` by default) and the exact value as sort key."""
    if v is None:
        return '<td class="unknown" data-v="">&#8211;</td>'
    return _td(sig(v) if text is None else text, v, True)


def table(title: str, anchor: str, head: list[str], rows: list[list[str]],
          note: str = "", fold: bool = True) -> str:
    th = "".join(f'<th scope="col">{esc(h)}</th>' for h in head)
    body = "".join("<tr>" + "".join(r) + "</tr>" for r in rows)
    html = (f'<div class="wrap"><table class="data"><thead><tr>{th}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>")
    if fold and len(rows) > FOLD:
        html = f"<details><summary>{len(rows):,} rows: show</summary>{html}</details>"
    if not rows:
        html = '<p class="meta">None.</p>'
    note = f'<p class="meta">{esc(note)}</p>' if note else ""
    return f'<h2 id="{esc(aid(anchor))}">{esc(title)}</h2>{note}{html}'


def key_figures(m: dict[str, Any]) -> str:
    items = "".join(f'<div title="{esc(k)}"><dt>{esc(metric_label(k))}</dt>'
                    f"<dd>{esc(metric_text(k, v))}</dd></div>" for k, v in m.items())
    return f'<dl class="figures">{items}</dl>'


def sections(data: dict[str, Any], prefix: str = "") -> tuple[list[str], list[tuple[str, str]]]:
    """The tables of one review (anchors prefixed for a combined page)."""
    t, m = data["tables"], data["metrics"]
    tag = {r["kind"]: r["tag"] for r in t.get("failure_rates", [])}
    fail = sorted(t["failures"], key=lambda r: -(r.get("share_of_interruptions") or 0))
    rows = [[_td(r["component_kind"]), _td(r["component"]), _n(r["count"]),
             _n(r["rate_per_year"], rate_text(r["rate_per_year"], r.get("tag"))),
             _n(r["gpus_lost"]), _td("yes" if r["interrupts"] else "no"),
             _n(r["events_per_year"]), _n(r.get("gpu_hours_lost_per_year")),
             _n(r.get("share_of_interruptions"), percent(r.get("share_of_interruptions")))]
            for r in fail]
    out = [table(f"{prefix}Failures per component", f"{prefix}failures",
                 ["Kind", "Component", "Count", "Rate per unit", "GPUs lost", "Interrupts",
                  "Events per year", "GPU-hours lost per year", "Share of interruptions"], rows,
                 "Events = count x rate; rates tagged assumption in the rates file read "
                 "'(assumed)'.")]
    rows = [[_td(r["component_kind"]),
             _n(r["interruptions_per_day"], rate_text(r["interruptions_per_day"],
                                                      tag.get(r["component_kind"]), "per day")),
             _n(r["share_of_job_interruptions"], percent(r["share_of_job_interruptions"]))]
            for r in t["job_interruptions_by_kind"]]
    out.append(table(f"{prefix}Job interruptions by kind", f"{prefix}job-interruptions",
                     ["Kind", "Interruptions per day", "Share"], rows,
                     f"A job of {m['job_gpus']:,} GPUs."))
    rows = [[_n(a["job_gpus_per_domain"]), _n(a["spare_trays"]),
             _n(a["closed_form"], availability_text(a["closed_form"])),
             _n(a["monte_carlo"], percent(a["monte_carlo"])),
             _td(f"{percent(a['mc_ci_low'])} \u2013 {percent(a['mc_ci_high'])}"),
             _td("yes" if a["agrees"] else "no"),
             _n(a["job_availability"], availability_text(a["job_availability"]))]
            for a in t["domain_availability"]]
    out.append(table(f"{prefix}Scale-up domain availability", f"{prefix}availability",
                     ["Job GPUs per domain", "Spare trays", "Domain (closed form)",
                      "Monte Carlo", "99 % CI", "Agrees", "Whole job"], rows,
                     "Closed form beside a seeded Monte Carlo with its 99 % confidence "
                     "interval; nines = -log10(1 - availability)."))
    rows = [[_td(r["component_kind"]), _n(r["rate_per_year"],
                                          rate_text(r["rate_per_year"], tag.get(r["component_kind"]))),
             _td(r["why"])] for r in t.get("not_modelled", [])]
    out.append(table(f"{prefix}Rated kinds not in this design", f"{prefix}not-modelled",
                     ["Kind", "Rate per unit", "Why not counted"], rows))
    rows = [[_td(a["item"].replace("_", " ")), _n(a["value"]),
             _td("assumed" if a["tag"] == "assumption" else a["tag"]), _td(a["basis"])]
            for a in t.get("job_assumptions", [])]
    out.append(table(f"{prefix}Job assumptions", f"{prefix}job-assumptions",
                     ["Item", "Value", "Given or assumed", "Basis"], rows))
    rows = [[_td(r["kind"]), _n(r["rate_per_year"], rate_text(r["rate_per_year"], r["tag"])),
             _td(f"{sig(r['rate_low_per_year'])} \u2013 {sig(r['rate_high_per_year'])}"
                 if r.get("rate_low_per_year") is not None else None),
             _n(r.get("repair_hours")), _td(r.get("counted_as")),
             _td("assumed" if r["tag"] == "assumption" else r["tag"]), _td(r.get("basis")),
             _td(r.get("source")), _td(r.get("url"))] for r in t.get("failure_rates", [])]
    out.append(table(f"{prefix}Failure rates used", f"{prefix}rates",
                     ["Kind", "Rate per unit", "Range", "Repair hours", "Counted as", "Tag",
                      "Basis", "Source", "Link"], rows))
    nav = [(aid(f"{prefix}failures"), "Per component"),
           (aid(f"{prefix}availability"), "Availability"), (aid(f"{prefix}rates"), "Rates")]
    return out, nav


def failures_page(data: dict[str, Any]) -> str:
    """One design's failure review."""
    name = f"Failure review: {data['design']['name']}"
    body = [f'<h2 id="key">Key figures</h2>{key_figures(data["metrics"])}']
    more, nav = sections(data)
    rates = ", ".join(data["design"].get("rates_files", []))
    meta = (f"Design file <code>{esc(data['design']['source_file'])}</code>; rates "
            f"<code>{esc(rates)}</code>")
    return page(name, meta, body + more, [("key", "Key figures")] + nav,
                footer_text(data["design"]["name"]))


def failures_compare_page(datas: list[dict[str, Any]], names: list[str]) -> str:
    """Two or more reviews on one page: the figures side by side, then each review."""
    c = compare_rows(datas, names)
    rows = [[_td(metric_label(r["metric"]))] + [_n(r[n], metric_text(r["metric"], r[n]))
                                                for n in names] for r in c["metrics"]]
    body = [table("Side by side", "side-by-side", ["Figure", *names], rows, fold=False)]
    rows = [[_td(r["component_kind"])] + [_n(r.get(n)) for n in names]
            for r in c["interrupting_events_per_year_by_kind"]]
    body.append(table("Interrupting events per year by kind", "events", ["Kind", *names], rows))
    rows = [[_td(a["design"]), _n(a["job_gpus_per_domain"]), _n(a["spare_trays"]),
             _n(a["closed_form"], availability_text(a["closed_form"])),
             _n(a["monte_carlo"], percent(a["monte_carlo"])), _td("yes" if a["agrees"] else "no")]
            for a in c["domain_availability"]]
    body.append(table("Scale-up domain availability", "availability",
                      ["Design", "Job GPUs per domain", "Spare trays", "Closed form",
                       "Monte Carlo", "Agrees"], rows))
    nav = [("side-by-side", "Side by side"), ("events", "Events"), ("availability", "Availability")]
    for n, d in zip(names, datas):
        more, _ = sections(d, prefix=f"{n}: ")
        body += more
        nav.append((aid(f"{n}: failures"), n))
    meta = "Designs: " + esc("; ".join(f"{n} = {d['design']['name']} "
                                        f"({d['design']['source_file']})"
                                        for n, d in zip(names, datas)))
    return page("Failure review: " + " vs ".join(names), meta, body, nav,
                footer_text("infra failures"))


__all__ = ["failures_compare_page", "failures_page"]
