"""Workbook extras: native charts, embedded PNG diagrams, the Sources sheet."""

from __future__ import annotations

import struct
from pathlib import Path

from openpyxl.drawing.image import Image

from infra.reports.xlsx_report import sheet_name, style_header, widths

CHARTS = [  # (table, category column, value columns, title, y axis)
    ("power_by_rack", "layout", ["it_kw_per_rack", "liquid_kw_per_rack", "air_kw_per_rack"],
     "Power and heat per rack", "kW"),
    ("flops_by_precision", "precision", ["peak_dense_pflops", "achievable_pflops"],
     "Peak dense vs achievable FLOPS by precision", "PFLOPS"),
    ("blast_radius", "component", ["gpus_lost", "gpus_degraded"],
     "Blast radius: GPUs lost / degraded by one failure", "GPUs"),
]


def add_charts(wb, data: dict) -> None:
    """A Charts sheet with bar charts over the analysis sheets (live references)."""
    from openpyxl.chart import BarChart, Reference

    ws = wb.create_sheet("Charts", 1)
    row = 1
    for table, cat, vals, title, unit in CHARTS:
        rows = data["tables"].get(table)
        if not rows or cat not in rows[0]:
            continue
        src = wb[sheet_name(table)]
        header = [c.value for c in src[1]]
        chart = BarChart()
        chart.type = "bar" if table == "blast_radius" else "col"
        chart.title, chart.y_axis.title = title, unit
        chart.height, chart.width = (7 + 0.4 * len(rows), 24) if table == "blast_radius" else (8, 18)
        for v in vals:
            if v in header:
                j = header.index(v) + 1
                chart.add_data(Reference(src, min_col=j, min_row=1, max_row=len(rows) + 1),
                               titles_from_data=True)
        j = header.index(cat) + 1
        chart.set_categories(Reference(src, min_col=j, min_row=2, max_row=len(rows) + 1))
        ws.add_chart(chart, f"A{row}")
        row += int(chart.height * 2) + 2


class PngImage(Image):
    """An openpyxl image from PNG bytes, without Pillow (size read from the IHDR chunk)."""

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
    ws = wb.create_sheet("Diagrams")
    row = 1
    for title, path in pngs:
        ws.cell(row=row, column=1, value=title).font = _bold()
        img = PngImage(path)
        img.anchor = f"A{row + 1}"
        ws.add_image(img)
        row += int(img.height / 20) + 3


def add_sources(wb, data: dict, catalog) -> None:
    """Every catalog figure behind the BOM's parts, with its source and tag."""
    from infra.models.listing import entry_rows

    ws = wb.create_sheet("Sources")
    cols = ["slug", "field", "value", "tag", "source", "url", "choice"]
    ws.append(cols)
    for slug in dict.fromkeys(r["slug"] for r in data["tables"].get("bill_of_materials", [])):
        if slug not in catalog:  # generic rows (e.g. fibre links) have no catalog entry
            continue
        for r in entry_rows(catalog, slug):
            ws.append([r.get(c) for c in cols])
    style_header(ws, 1)
    ws.freeze_panes = "A2"
    ws.auto_filter.ref = ws.dimensions
    widths(ws)


def _bold():
    from openpyxl.styles import Font

    return Font(bold=True, size=12)
