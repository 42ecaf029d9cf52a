"""Workbook extras: native charts, embedded PNG diagrams, the Sources sheet."""

from __future__ import annotations

import struct
from pathlib import Path

from openpyxl.drawing.image import Image

from infra.reports.xlsx_style import sheet_name, style_header, widths

# (table, category column, value columns, title, y axis, log scale)
LIVE_CHARTS = [
    ("power_by_rack", "layout", ["it_kw_per_rack", "liquid_kw_per_rack", "air_kw_per_rack"],
     "Power and heat per rack", "kW", False),
    ("flops_by_precision", "precision", ["peak_dense_pflops", "achievable_pflops"],
     "Peak dense vs achievable FLOPS by precision (log scale)", "PFLOPS", True),
    ("job_interruptions_by_kind", "component_kind", ["interruptions_per_day"],
     "Job interruptions per day by component kind", "interruptions per day", False),
    ("domain_availability", "spare_trays", ["closed_form", "monte_carlo"],
     "Scale-up domain availability vs spare trays", "availability", False),
]
DATA_COL = 20  # the Charts sheet keeps its own sorted chart data from column T
BLAST_BARS = 40  # a chart of 7,000 bars (1,000 layouts) reads as nothing: the worst 40


def add_charts(wb, data: dict) -> None:
    """A Charts sheet with native bar charts, only when the workbook has something to plot.

    Power, FLOPS and the failure charts reference the analysis sheets live; the blast-radius
    chart plots a copy of its table sorted by severity (GPUs lost, then domains split, then
    GPUs degraded), with parts that split a domain without losing GPUs marked in the label;
    at most :data:`BLAST_BARS` bars.
    """
    tables = data["tables"]
    plots = [c for c in LIVE_CHARTS if _plottable(tables.get(c[0]), c[1], c[2])]
    blast = [r for r in tables.get("blast_radius", []) if "component" in r]
    coll = tables.get("collectives") or []
    if not plots and not blast and not coll:
        return
    ws = wb.create_sheet("Charts", 1)
    row = 1
    for table, cat, vals, title, unit, log in plots:
        chart = _live_chart(wb, tables[table], table, cat, vals, title, unit, log)
        ws.add_chart(chart, f"A{row}")
        row += int(chart.height * 2) + 2
    for chart in collective_charts(wb, coll):
        ws.add_chart(chart, f"A{row}")
        row += int(chart.height * 2) + 2
    if blast:
        _blast_chart(ws, blast, row)


def collective_charts(wb, rows: list[dict]) -> list:
    """One scatter chart per collective: busbw (GB/s) against message size (bytes, log
    scale), one line per job size, each series a live range of the Collectives sheet
    (its rows come grouped by op, then job size, then size)."""
    from openpyxl.chart import Reference, ScatterChart, Series

    if not rows or "busbw_gbyte_s" not in rows[0]:
        return []
    src = wb[sheet_name("collectives")]
    cols = list(rows[0])
    x_col, y_col = cols.index("size_bytes") + 1, cols.index("busbw_gbyte_s") + 1
    runs: dict[str, list[tuple[int, int, int]]] = {}  # op -> [(gpus, first row, last row)]
    for i, r in enumerate(rows, start=2):
        series = runs.setdefault(r["op"], [])
        if series and series[-1][0] == r["gpus"] and series[-1][2] == i - 1:
            series[-1] = (r["gpus"], series[-1][1], i)
        else:
            series.append((r["gpus"], i, i))
    charts = []
    for op, series in runs.items():
        chart = ScatterChart()
        chart.title = f"{op.replace('_', '-')}: predicted bus bandwidth vs message size"
        chart.style, chart.height, chart.width = 13, 8, 18
        chart.x_axis.title, chart.y_axis.title = "message size (bytes, log scale)", "busbw GB/s"
        chart.x_axis.scaling.logBase = 2
        chart.x_axis.delete = chart.y_axis.delete = False
        for gpus, first, last in series:
            s = Series(Reference(src, min_col=y_col, min_row=first, max_row=last),
                       Reference(src, min_col=x_col, min_row=first, max_row=last),
                       title=f"{gpus:,} GPUs")
            s.marker.symbol = "circle"
            chart.series.append(s)
        charts.append(chart)
    return charts


def _plottable(rows, cat: str, vals: list[str]) -> bool:
    return bool(rows) and cat in rows[0] and any(
        isinstance(r.get(v), (int, float)) for r in rows for v in vals)


def _live_chart(wb, rows, table, cat, vals, title, unit, log):
    from openpyxl.chart import BarChart, Reference
    from openpyxl.chart.series import SeriesLabel

    from infra.reports.labels import metric_label

    src = wb[sheet_name(table)]
    cols = list(rows[0])
    chart = BarChart()
    chart.type = "col"
    chart.title, chart.y_axis.title = title, unit
    chart.height, chart.width = 8, 18
    for v in vals:
        if v in cols and any(isinstance(r.get(v), (int, float)) for r in rows):
            j = cols.index(v) + 1
            chart.add_data(Reference(src, min_col=j, min_row=2, max_row=len(rows) + 1))
            chart.series[-1].tx = SeriesLabel(v=metric_label(v))
    chart.set_categories(Reference(src, min_col=cols.index(cat) + 1, min_row=2,
                                   max_row=len(rows) + 1))
    if log:
        chart.y_axis.scaling.logBase = 10
    chart.x_axis.title = metric_label(cat)
    chart.x_axis.delete = chart.y_axis.delete = False
    return chart


def severity(r: dict) -> tuple:
    """Sort key: most GPUs lost first, then domains split, then GPUs degraded."""
    return (-(r.get("gpus_lost") or 0), -(r.get("domains_broken") or 0),
            -(r.get("gpus_degraded") or 0))


def _blast_chart(ws, rows: list[dict], at_row: int) -> None:
    from openpyxl.chart import BarChart, Reference
    from openpyxl.chart.series import SeriesLabel

    total = len(rows)
    rows = sorted(rows, key=severity)[:BLAST_BARS]
    c0 = DATA_COL
    head = ["Component (one failure)", "GPUs lost", "GPUs degraded", "Largest job still placeable"]
    for j, h in enumerate(head):
        ws.cell(row=1, column=c0 + j, value=h)
    style_header(ws, 1)
    for i, r in enumerate(rows, start=2):
        label = r["component"]
        if (r.get("domains_broken") or 0) > 0 and not r.get("gpus_lost"):
            label += " [splits the NVLink domain]"
        for j, v in enumerate([label, r.get("gpus_lost"), r.get("gpus_degraded"),
                               r.get("largest_placeable_job_gpus")]):
            ws.cell(row=i, column=c0 + j, value=v)
    n = len(rows) + 1
    chart = BarChart()
    chart.type = "bar"
    chart.title = "Blast radius of one failure, most severe first" + (
        f" ({len(rows)} of {total:,}; all on the Blast radius sheet)" if total > len(rows) else "")
    chart.y_axis.title = "GPUs"
    chart.height, chart.width = 7 + 0.45 * len(rows), 24
    for j in range(1, 4):
        chart.add_data(Reference(ws, min_col=c0 + j, min_row=2, max_row=n))
        chart.series[-1].tx = SeriesLabel(v=head[j])
    chart.set_categories(Reference(ws, min_col=c0, min_row=2, max_row=n))
    chart.x_axis.scaling.orientation = "maxMin"  # first (most severe) row on top
    chart.x_axis.delete = chart.y_axis.delete = False
    ws.add_chart(chart, f"A{at_row}")
    ws.column_dimensions["T"].width = 60


class PngImage(Image):
    """An openpyxl image from PNG bytes, without Pillow (size read from the IHDR chunk),
    shown at most ``max_width`` px wide (as wide as the renderer draws a workbook's
    pictures, ``infra.reports.diagrams.render.EMBED_PNG``)."""

    def __init__(self, path: Path, max_width: int = 1400) -> None:  # noqa: D107 - no super()
        self.format = "png"
        self.ref = str(path)
        self._bytes = Path(path).read_bytes()
        w, h = struct.unpack(">II", self._bytes[16:24])
        scale = min(1.0, max_width / w) if w else 1.0
        self.width, self.height = int(w * scale), int(h * scale)

    def _data(self) -> bytes:
        return self._bytes


def add_diagrams(wb, pngs) -> None:
    """A Diagrams sheet: each PNG under its title."""
    fill_diagrams(wb.create_sheet("Diagrams"), pngs)


def fill_diagrams(ws, pngs) -> None:
    """Each PNG under its title on ``ws`` (iterating ``pngs`` waits for the renderer)."""
    row = 1
    for title, path in pngs:
        ws.cell(row=row, column=1, value=title).font = _bold()
        img = PngImage(path)
        img.anchor = f"A{row + 1}"
        ws.add_image(img)
        row += int(img.height / 20) + 3


def add_sources(wb, rows: list[dict]) -> None:
    """The Sources sheet: every catalog figure behind the BOM's parts, with its source and
    tag (``rows``: :func:`infra.models.listing.bom_source_rows`)."""
    from infra.reports.xlsx_stream import stream_table

    ws = wb.create_sheet("Sources")
    cols = ["slug", "field", "value", "tag", "source", "url", "choice"]
    ws.append(cols)
    ws.freeze_panes = "A2"
    if rows:  # streamed: the cells as they are, URLs as hyperlinks, long text wrapped
        stream_table(ws, cols, cols, [{c: r.get(c) for c in cols} for r in rows], hatch=False)
    else:
        ws.auto_filter.ref = ws.dimensions
        widths(ws)
    style_header(ws, 1)


def _bold():
    from openpyxl.styles import Font

    return Font(bold=True, size=12)
