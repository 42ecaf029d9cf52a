"""Self-contained HTML report: one file, no network, readable on a laptop, printable.

Key figures (label, value, unit, lower-bound or unknown note), every analysis table
(sortable by clicking a header; long tables folded in ``<details>``, opened for
printing), the diagrams inline as SVG, the assumptions and the sources with links.
Styles and the small sorting script are inline; nothing is fetched when the page opens.
Only formats what the analyses computed.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from infra.reports.atomic import write_text_atomic
from infra.reports.labels import column_header, metric_label, shown_unit, value_text
from infra.reports.terminal import fmt

FOLD_ROWS = 12  # tables longer than this start folded
MAX_ROWS = 2000  # rows shown per table (the workbook and JSON have them all)

CSS = """
:root { --fg:#1b1b1b; --muted:#5a5a5a; --rule:#d0d0d0; --head:#305496; --alt:#f5f7fb; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", Arial,
       sans-serif; color: var(--fg); margin: 0 auto; max-width: 1240px; padding: 24px; }
h1 { font-size: 1.6em; margin: 0 0 .2em; } h2 { font-size: 1.25em; margin: 1.6em 0 .5em;
  border-bottom: 2px solid var(--head); padding-bottom: .2em; }
.meta { color: var(--muted); margin: 0 0 1em; }
nav a { margin-right: 1em; }
.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr));
           gap: 8px; margin: 0; padding: 0; }
.figures div { border: 1px solid var(--rule); border-radius: 6px; padding: 8px 10px; }
.figures dt { color: var(--muted); font-size: .85em; } .figures dd { margin: 0; font-size: 1.2em;
  font-variant-numeric: tabular-nums; } .figures .note { display: block; font-size: .75em;
  color: #9c3d00; }
.wrap { overflow-x: auto; }
table.data { border-collapse: collapse; font-size: .85em; margin: .4em 0 1em; }
table.data th { background: var(--head); color: #fff; text-align: left; padding: 4px 8px;
  cursor: pointer; position: sticky; top: 0; user-select: none; }
table.data th[aria-sort=ascending]::after { content: " \\25B2"; }
table.data th[aria-sort=descending]::after { content: " \\25BC"; }
table.data td { padding: 3px 8px; border-bottom: 1px solid var(--rule); vertical-align: top; }
table.data tr:nth-child(even) td { background: var(--alt); }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.unknown { color: var(--muted); font-style: italic; }
figure { margin: 1em 0 2em; } figcaption { font-weight: 600; margin-bottom: .4em; }
figure svg { max-width: 100%; height: auto; border: 1px solid var(--rule); }
.chart { display: inline-block; max-width: 100%; }
.chart svg { max-width: 100%; width: 640px; height: auto; }
summary { cursor: pointer; color: var(--head); margin: .3em 0; }
footer { color: var(--muted); font-size: .8em; margin-top: 3em; border-top: 1px solid var(--rule);
  padding-top: .5em; }
.decision .count { font-weight: 600; } .decision .count.bad { color: #9c0006; }
.decision ul { padding-left: 1.2em; } .decision li { margin: .2em 0; }
.decision li.error { color: #9c0006; } .decision li.warning strong { color: #9c5700; }
table.decision { border-collapse: collapse; margin: .4em 0 1em; }
table.decision th { text-align: left; font-weight: 600; padding: 3px 12px 3px 0;
  vertical-align: top; }
table.decision td { padding: 3px 8px; border-bottom: 1px solid var(--rule); vertical-align: top; }
table.decision td.note { color: var(--muted); }
@media print {
  body { max-width: none; padding: 0; font-size: 10pt; } nav { display: none; }
  table.data th { position: static; } .wrap { overflow: visible; }
  tr, .figures div, table.decision { break-inside: avoid; } h2 { break-after: avoid; }
  #decision { break-after: page; }
  figure { break-inside: avoid; break-before: page; } h2 + figure { break-before: auto; }
  figcaption { break-after: avoid; }
  figure svg { max-height: 16.5cm; max-width: 100%; width: auto; }
  .chart, .chart svg, figure img { break-inside: avoid; max-width: 100%; }
  details:not([open]) > summary::after { content: " (not printed: every row is in the workbook and JSON)"; }
  @page { size: A4 landscape; margin: 12mm; }
}
"""
PRINT_ROWS = 100  # folded tables up to this long open for printing; longer ones stay folded

# first script of the page: records any error (for the browser test and for readers)
GUARD = """
window.__errors = [];
window.addEventListener("error", function (e) { window.__errors.push(String(e.message)); });
"""

SCRIPT = """
(function () {
  function key(td) { var v = td.getAttribute("data-v"); return v === null ? td.textContent : v; }
  function sortBy(th) {
    var table = th.closest("table"), body = table.tBodies[0];
    var i = Array.prototype.indexOf.call(th.parentNode.children, th);
    var asc = th.getAttribute("aria-sort") !== "ascending";
    Array.prototype.forEach.call(th.parentNode.children, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[i]), y = key(b.cells[i]);
      var nx = parseFloat(x), ny = parseFloat(y), r;
      if (!isNaN(nx) && !isNaN(ny) && String(nx) === x && String(ny) === y) { r = nx - ny; }
      else { r = x.localeCompare(y, undefined, {numeric: true}); }
      return asc ? r : -r;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  document.querySelectorAll("table.data th").forEach(function (th) {
    th.addEventListener("click", function () { sortBy(th); });
  });
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details").forEach(function (d) {
      var n = d.getAttribute("data-rows");
      if (n === null || Number(n) <= PRINT_ROWS) { d.open = true; }
    });
  });
  document.body.setAttribute("data-diagrams", String(document.querySelectorAll("figure svg").length));
  document.body.setAttribute("data-errors", String(window.__errors.length));
})();
"""


def esc(v: Any) -> str:
    return html.escape(str(v), quote=True)


def cell(v: Any) -> str:
    """One ``<td>``: numbers right-aligned with a sort key, unknowns marked, links live."""
    if v is None:
        return '<td class="unknown" data-v="" title="unknown or not applicable">&#8211;</td>'
    if isinstance(v, bool):
        return f"<td>{'yes' if v else 'no'}</td>"
    if isinstance(v, (int, float)):
        return f'<td class="num" data-v="{v!r}">{esc(fmt(v))}</td>'
    text = str(v)
    if re.fullmatch(r"https?://\S+", text):
        return f'<td><a href="{esc(text)}">{esc(text)}</a></td>'
    return f"<td>{esc(text)}</td>"


def data_table(rows: list[dict], columns: list[str] | None = None) -> str:
    if not rows:
        return '<p class="meta">No rows in this design.</p>'
    cols = [c for c in (columns or list(rows[0])) if c in rows[0]]
    head = "".join(f'<th scope="col" title="{esc(c)}">{esc(column_header(c))}</th>' for c in cols)
    body = "".join("<tr>" + "".join(cell(r.get(c)) for c in cols) + "</tr>"
                   for r in rows[:MAX_ROWS])
    more = (f'<p class="meta">First {MAX_ROWS:,} of {len(rows):,} rows; the workbook and JSON '
            "have them all.</p>" if len(rows) > MAX_ROWS else "")
    return (f'<div class="wrap"><table class="data"><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>{more}")


def section(title: str, rows: list[dict], anchor: str, columns: list[str] | None = None) -> str:
    table = data_table(rows, columns)
    if len(rows) > FOLD_ROWS:
        table = (f'<details data-rows="{len(rows)}"><summary>{len(rows):,} rows: show</summary>'
                 f"{table}</details>")
    return f'<h2 id="{esc(anchor)}">{esc(title)}</h2>{table}'


def key_figures(metrics: dict[str, Any], notes: dict[str, str]) -> str:
    out = []
    for k, v in metrics.items():
        note = notes.get(k) or ""
        unit = "" if v is None else shown_unit(k)
        value = value_text(k, v)
        out.append(f'<div title="{esc(k)}"><dt>{esc(metric_label(k))}</dt><dd>{esc(value)} '
                   f'<small>{esc(unit)}</small>'
                   + (f'<span class="note">{esc(note)}</span>' if note else "") + "</dd></div>")
    return '<dl class="figures">' + "".join(out) + "</dl>"


def inline_svg(svg: str) -> str:
    """An SVG document as an element: no XML prolog or DOCTYPE, comments dropped."""
    svg = re.sub(r"<\?xml[^>]*\?>|<!DOCTYPE[^>]*>|<!--.*?-->", "", svg, flags=re.S)
    return svg.strip()


def page(title: str, meta: str, body: list[str], nav: list[tuple[str, str]], footer: str) -> str:
    links = "".join(f'<a href="#{esc(a)}">{esc(t)}</a>' for a, t in nav)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(title)}</title><script>{GUARD}</script><style>{CSS}</style></head>"
            f"<body><header><h1>{esc(title)}</h1><p class=\"meta\">{meta}</p>"
            f"<nav>{links}</nav></header><main>{''.join(body)}</main>"
            f"<footer>{footer}</footer>"
            f"<script>{SCRIPT.replace('PRINT_ROWS', str(PRINT_ROWS))}</script></body></html>\n")


def footer_text(name: str) -> str:
    from infra.reports.xlsx_print import report_date, version

    return esc(f"{name} | infra {version()} | {report_date()}")


def diagrams_html(diagrams: list[tuple[str, str, str]]) -> str:
    """``(stem, title, svg text)`` -> figures, each with its title as caption."""
    return "".join(f'<figure id="diagram-{esc(stem)}"><figcaption>{esc(title)}</figcaption>'
                   f"{inline_svg(svg)}</figure>" for stem, title, svg in diagrams)


def write_html(text: str, path: Path) -> Path:
    return write_text_atomic(path, text)


def write_design_html(data: dict[str, Any], diagrams: list[tuple[str, str, Path]],
                      sources: list[dict], path: Path) -> Path:
    """:func:`design_html` with the diagrams streamed from their SVG files into the page,
    one file at a time: a 2,000-layout hall inlines 200 elevation pages (170 MB of SVG),
    which as strings took the page to 1.3 GB of memory."""
    import secrets

    from infra.reports.atomic import write_atomic

    token = f"\x00infra-svg-{secrets.token_hex(8)}-"  # unguessable: no input text can hold it
    files = {f"{token}{i}\x00": Path(p) for i, (_, _, p) in enumerate(diagrams)}
    text = design_html(data, [(stem, title, mark) for (stem, title, _), mark
                              in zip(diagrams, files)], sources)
    parts = re.split(f"({re.escape(token)}\\d+\x00)", text)

    def write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8") as out:
            for part in parts:
                svg = files.get(part)
                out.write(part if svg is None else inline_svg(svg.read_text(encoding="utf-8")))

    return write_atomic(path, write)


DIAGRAM_ORDER = ("scaleup_", "fabric_", "failure_", "rack_elevations", "tray_")


def diagram_rank(stem: str) -> tuple[int, str]:
    """Headline first: scale-up domain, fabric, failure view, elevations, tray internals."""
    return next((i for i, p in enumerate(DIAGRAM_ORDER) if stem.startswith(p)), 9), stem


def design_html(data: dict[str, Any], diagrams: list[tuple[str, str, str]] = (),
                sources: list[dict] = ()) -> str:
    """The design report page (``DesignAnalysis.as_dict()`` plus rendered SVG diagrams)."""
    from infra.reports.terminal import FABRIC_METRICS, HEADLINE
    from infra.reports.xlsx_style import SHEET_NAMES, summary_note

    m, t = data["metrics"], data["tables"]
    name = data["design"]["name"]
    key = {k: m[k] for k in HEADLINE
           if k in m and not (k.startswith(FABRIC_METRICS) and not t.get("fabric"))}
    notes = {k: summary_note(k, m) for k in m}
    body = [decision_html(data)]
    body += [f'<h2 id="key">Key figures</h2>{key_figures(key, notes)}',
            section("All figures", [{"metric": metric_label(k), "value": _shown(k, v),
                                     "unit": shown_unit(k), "note": notes.get(k, ""),
                                     "field": k} for k, v in m.items()], "all-figures")]
    nav = [("decision", "Decision summary"), ("key", "Key figures")]
    if diagrams:
        ordered = sorted(diagrams, key=lambda d: diagram_rank(d[0]))
        body.append(f'<h2 id="diagrams">Diagrams</h2>{diagrams_html(ordered)}')
        nav.append(("diagrams", "Diagrams"))
    for table, rows in t.items():
        if table == "assumptions":
            continue
        title = SHEET_NAMES.get(table, table.replace("_", " ").capitalize())
        body.append(section(title, rows, table))
        if table == "collectives" and rows:
            body.append(collective_figures(rows))
        nav.append((table, title))
    body.append(section("Assumptions and gaps", t.get("assumptions", []), "assumptions"))
    nav.append(("assumptions", "Assumptions"))
    if sources:
        body.append(section("Sources of the catalog figures", list(sources), "sources"))
        nav.append(("sources", "Sources"))
    meta = f"Design file <code>{esc(data['design']['source_file'])}</code>"
    return page(name, meta, body, nav, footer_text(name))


def decision_html(data: dict[str, Any]) -> str:
    """The decision summary under the title (:mod:`infra.reports.decision`): findings
    counted and named (design rules broken first, with their kind), then the figures a
    committee decides on. The broken rules' list is ``#findings``."""
    from infra.reports.decision import decision_summary, findings_line

    block = decision_summary(data)
    errors = data.get("findings") or ()
    items = [f'<li class="error"><strong>{esc(f.get("kind"))}</strong>: '
             f'{esc(f.get("text") or f.get("message"))}</li>' for f in errors]
    items += [f'<li class="warning"><strong>warning</strong>: {esc(text)}</li>'
              for severity, text in block["findings"] if severity == "warning"]
    anchor = ' id="findings"' if errors else ""
    listing = f'<ul{anchor} class="findings">{"".join(items)}</ul>' if items else ""
    rows = "".join(
        f'<tr title="{esc(f["key"])}"><th scope="row">{esc(f["label"])}</th>'
        f'<td class="num">{esc(value_text(f["key"], f["value"]))}</td><td>{esc(f["unit"])}</td>'
        f'<td class="note">{esc(f["note"])}</td></tr>' for f in block["figures"])
    count = findings_line(block["counts"])
    return (f'<section id="decision" class="decision"><h2>Decision summary</h2>'
            f'<p class="count{" bad" if errors else ""}">{esc(count)}</p>{listing}'
            f'<table class="decision"><tbody>{rows}</tbody></table></section>')


def _shown(name: str, value: Any) -> Any:
    """A metric's cell value: a number, or the text a number would mislead as (a peak
    FLOPS of 0 is n/a, a fraction a percent)."""
    text = value_text(name, value)
    return text if text == "n/a" or text.endswith("%") else value


def findings_html(findings) -> list[str]:
    """The design-rule findings at the top of a page (none: nothing)."""
    from infra.reports.xlsx_style import findings_title

    if not findings:
        return []
    items = "".join(f'<li><strong>{esc(f.get("kind"))}</strong>: {esc(f.get("text") or f.get("message"))}</li>'
                    for f in findings)
    return [f'<h2 id="findings" class="findings">Findings</h2>'
            f'<p class="findings"><strong>{esc(findings_title(len(findings)))}</strong></p>'
            f'<ul class="findings">{items}</ul>']


def collective_figures(rows: list[dict]) -> str:
    """One busbw-vs-size chart per collective (log x), a line per job size."""
    from infra.reports.svg_chart import line_chart

    by_op: dict[str, dict[str, list[tuple[float, float]]]] = {}
    for r in rows:
        by_op.setdefault(r["op"], {}).setdefault(f"{r['gpus']:,} GPUs", []).append(
            (r["size_bytes"], r["busbw_gbyte_s"]))
    return "".join(
        f'<div class="chart" id="collectives-{esc(op)}">'
        + line_chart(f"{op.replace('_', '-')}: predicted bus bandwidth", series, "busbw GB/s")
        + "</div>" for op, series in by_op.items())
