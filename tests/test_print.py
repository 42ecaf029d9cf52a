"""Reports that print (issue 30 item 4): every shipped design's summary prints on at most
2 A4 landscape pages, its wrapped rows tall enough not to overprint the next; pictures
one per page, each scaled to fit it (none cut); every workbook gets a page setup; the
HTML keeps a figure and its caption on one A4 landscape page.

Page counts come from the page setup and row heights (:func:`print_pages`, checked here
against hand arithmetic), as a spreadsheet lays pages out: A4 landscape is 297 x 210 mm
= 841.89 x 595.28 pt; the margins 0.4 + 0.4 inch wide and 0.5 + 0.6 inch tall leave
784.3 x 516.1 pt."""

from __future__ import annotations

import struct
import zlib

import pytest

from conftest import DESIGNS
from infra.reports.xlsx_print import print_pages, printable_pt

SHIPPED = sorted(p.stem for p in DESIGNS.glob("*.yaml"))


def _png(path, width: int, height: int):
    """A valid PNG header of the given size (the sheet reads only its IHDR)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
                     + chunk(b"IDAT", zlib.compress(b"\0" * (width * 3 + 1))) + chunk(b"IEND", b""))
    return path


@pytest.mark.parametrize("design", SHIPPED)
def test_summary_prints_on_at_most_two_pages(design):
    from openpyxl.utils.cell import range_boundaries

    from infra.analysis.summary import analyze_file
    from infra.reports.xlsx_decision import lines
    from infra.reports.xlsx_report import build_workbook

    wb = build_workbook(analyze_file(DESIGNS / f"{design}.yaml").as_dict())
    ws = wb["Summary"]
    assert ws.page_setup.orientation == "landscape" and str(ws.page_setup.paperSize) == "9"  # A4
    assert 1 <= print_pages(ws) <= 2, design
    # the printed area is the decision block: title, findings, the committee's figures
    _, first, _, last = range_boundaries(ws.print_area.split("!")[-1].replace("$", ""))
    col_a = [ws.cell(row=r, column=1).value for r in range(first, last + 1)]
    assert first == 1 and "Decision summary" in col_a and "Metric" in col_a
    assert col_a[-1] in ("All-reduce 8 GiB, all GPUs", "Worst single failure")
    assert any(str(v).startswith(("Findings: ", "FINDINGS: ")) for v in col_a)
    # a wrapped cell's row is as tall as its lines (15 pt each): nothing overprints
    for r in range(first, last + 1):
        for c in ws[r]:
            if c.alignment.wrap_text and isinstance(c.value, str) and c.coordinate not in ws.merged_cells:
                width = int(ws.column_dimensions[c.column_letter].width - 2)
                assert (ws.row_dimensions[r].height or 15) >= 15 * lines(c.value, width), c


def test_page_arithmetic():
    """Hand arithmetic: 516.08 pt of page height; rows of 200 pt fit two a page (400 pt;
    a third would need 600), so four take two pages; a manual break after row 1 puts
    rows 2-3 on page 2 and row 4 on page 3. A sheet four times too wide prints at 25 %:
    20 rows of 200 pt are 50 pt each, 10 a page (500 <= 516.08), 2 pages."""
    from openpyxl import Workbook
    from openpyxl.worksheet.pagebreak import Break

    from infra.reports.xlsx_print import page_setup

    def tall_rows(n):
        """A sheet of ``n`` rows 200 pt tall, page set up, no title rows repeated."""
        ws = Workbook().active
        for i in range(n):
            ws.append([i])
            ws.row_dimensions[i + 1].height = 200
        page_setup(ws, 1, "t")
        ws._print_rows = None
        return ws

    ws = tall_rows(4)
    assert round(printable_pt(ws)[1], 2) == round(595.28 - 72 * 1.1, 2) == 516.08
    assert print_pages(ws) == 2
    ws.row_breaks.append(Break(id=1))
    assert print_pages(ws) == 3
    ws = tall_rows(20)
    # one column 4 x the printable width: (w * 7 + 5) px x 0.75 = 4 x 784.3 pt
    ws.column_dimensions["A"].width = (4 * printable_pt(ws)[0] / 0.75 - 5) / 7
    assert print_pages(ws) == 2


def test_pictures_one_per_page_none_cut(tmp_path):
    """Three pictures (a wide diagram, a tall rack elevation, a small one) on a Diagrams
    sheet: each starts its page (a break after the row above its title) and, scaled with
    its aspect kept, fits the page with its title row; 3 pictures, 3 pages."""
    from openpyxl import Workbook

    from infra.reports.xlsx_extras import fill_diagrams
    from infra.reports.xlsx_print import COLUMN_PX, ROW_PT, finish

    sizes = [(1400, 900), (600, 2600), (700, 300)]
    pngs = [(f"d{i}", _png(tmp_path / f"d{i}.png", w, h)) for i, (w, h) in enumerate(sizes)]
    wb = Workbook()
    ws = wb.active
    ws.title = "Diagrams"
    fill_diagrams(ws, pngs)
    finish(wb, "t")
    width_pt, height_pt = printable_pt(ws)
    images = sorted(ws._images, key=lambda im: int(im.anchor[1:]))
    rows = [int(im.anchor[1:]) for im in images]
    assert sorted(b.id for b in ws.row_breaks.brk) == [r - 2 for r in rows[1:]]
    assert [ws.cell(row=r - 1, column=1).value for r in rows] == ["d0", "d1", "d2"]
    for im, (w, h) in zip(images, sizes):
        assert abs(im.width / im.height - w / h) < 0.01  # aspect kept
        assert im.height * 0.75 + 2 * ROW_PT <= height_pt  # with its title, on one page
        assert im.width <= (width_pt / 0.75 // COLUMN_PX) * COLUMN_PX  # within the print area
    assert print_pages(ws) == 3


def test_every_workbook_writer_can_set_up_its_pages():
    """print_setup (for compare, failures, sweep and diff workbooks) gives every sheet the
    page setup of the design workbook's."""
    from openpyxl import Workbook

    from infra.reports.xlsx_print import print_setup

    wb = Workbook()
    wb.active.append(["a", "b"])
    wb.create_sheet("Two").append(["x"])
    print_setup(wb, "compare: a vs b")
    for ws in wb.worksheets:
        assert ws.page_setup.orientation == "landscape" and ws.page_setup.fitToWidth == 1
        assert ws.print_title_rows == "$1:$1" and "compare: a vs b" in ws.oddFooter.left.text


def test_html_print_keeps_a_figure_and_caption_on_one_page():
    """A4 landscape is 21 cm tall; less the 12 mm margins, 18.6 cm: a diagram at most
    16.5 cm tall leaves 2.1 cm for its caption, and a figure never breaks inside."""
    import re

    from infra.reports.html_report import CSS

    block = CSS[CSS.index("@media print"):]
    assert "@page { size: A4 landscape; margin: 12mm; }" in block
    assert re.search(r"figure[^{]*\{[^}]*break-inside: avoid", block)
    assert re.search(r"figcaption[^{]*\{[^}]*break-after: avoid", block)
    (height,) = re.findall(r"figure svg \{[^}]*max-height: ([\d.]+)cm", block)
    assert float(height) + 2.0 <= 21.0 - 2 * 1.2
    # no picture wider than the page, and no chart (inline SVG) split across pages
    assert re.search(r"figure svg \{[^}]*max-width: 100%", block)
    assert re.search(r"\.chart[^{]*\{[^}]*break-inside: avoid[^}]*max-width: 100%", block)


def test_sweep_and_diff_workbooks_print(tmp_path, run_cli):
    """The sweep and diff workbooks carry the page setup (landscape A4, fitted to width,
    header row repeated, footer naming the command)."""
    import openpyxl

    from infra.reports.diff_report import build_workbook

    res = run_cli("sweep", str(DESIGNS / "gb200_nvl72_576.yaml"), "--grid",
                  str(DESIGNS.parent / "sweeps" / "nvl72_nic_oversub.yaml"), "--report", "xlsx",
                  "-o", str(tmp_path))
    assert res.exit_code == 0, res.output
    (book,) = tmp_path.glob("*.xlsx")
    diff = build_workbook({"findings": [], "summary": {"hosts": 0}, "design": "d.yaml",
                           "inventory": "inv", "host_pattern": "*", "switch_map": []})
    for wb, title in ((openpyxl.load_workbook(book), "infra sweep"), (diff, "infra diff: d.yaml")):
        _sheets_print_legibly(wb)  # a wide Scenarios sheet: 2-3 pages wide, legible
        for ws in wb.worksheets:
            assert title in ws.oddFooter.left.text


def _sheets_print_legibly(wb, summary: str | None = None) -> dict[str, tuple]:
    """Every sheet of ``wb``: landscape A4, fitted to width (1 to MAX_PAGES_WIDE pages
    wide, the first column repeated when more than one), as many pages tall as needed
    (``summary``: at most 2), its header row repeated, printed at MIN_SCALE or more
    unless already MAX_PAGES_WIDE wide, no chart across a page foot. Returns
    ``{sheet: (scale, pages wide)}``."""
    from infra.reports.xlsx_print import MAX_PAGES_WIDE, MIN_SCALE, print_scale

    out = {}
    for ws in wb.worksheets:
        ps = ws.page_setup
        assert ps.orientation == "landscape" and str(ps.paperSize) == "9", ws.title  # A4
        assert ws.sheet_properties.pageSetUpPr.fitToPage, ws.title
        wide = int(ps.fitToWidth)
        assert 1 <= wide <= MAX_PAGES_WIDE, ws.title
        assert int(ps.fitToHeight) == (2 if ws.title == summary else 0), ws.title
        if wide > 1:
            assert ws.print_title_cols == "$A:$A", ws.title
        if ws.max_row > 1 and not getattr(ws, "_images", None):
            assert ws.print_title_rows, ws.title  # the header row on every page
        scale = print_scale(ws)
        assert scale >= MIN_SCALE or wide == MAX_PAGES_WIDE, (ws.title, scale)
        if getattr(ws, "_charts", None):
            assert not _charts_cut(ws), ws.title
        out[ws.title] = (round(scale, 2), wide)
    return out


def _charts_cut(ws) -> list[int]:
    """Top rows of the charts that cross a page foot: rows fill pages whole (the
    printable height over the print scale; 15 pt rows unless set), manual breaks start
    pages, a chart spans the rows its height in cm covers."""
    from infra.reports.xlsx_print import _anchor_row, _row_pt, chart_bottom_row, print_scale

    page = printable_pt(ws)[1] / print_scale(ws)
    breaks = {b.id for b in ws.row_breaks.brk} if ws.row_breaks else set()
    spans = [(_anchor_row(c), chart_bottom_row(ws, c), c.height / 2.54 * 72) for c in ws._charts]
    n, used, page_of = 1, 0.0, {}
    for r in range(1, max(b for _, b, _ in spans) + 1):
        h = _row_pt(ws, r)
        if used + h > page + 1e-6 and used > 0:
            n, used = n + 1, 0.0
        page_of[r] = n
        used += h
        if r in breaks:
            n, used = n + 1, 0.0
    return [top for top, bottom, tall in spans
            if tall <= page - 15 and page_of[top] != page_of[bottom]]


@pytest.mark.parametrize("design", SHIPPED)
def test_every_sheet_of_every_shipped_design_workbook_prints(design):
    """Issue 30: every sheet of each shipped design's workbook (Sources included) prints
    landscape A4, fitted to width, header repeated, at a legible scale (11 pt text at
    6 pt or more: a table wider than that prints 2-3 pages wide, its first column
    repeated), no chart cut; the Summary at most 2 pages."""
    from infra.analysis.summary import analyze_file
    from infra.reports.xlsx_report import build_workbook

    a = analyze_file(DESIGNS / f"{design}.yaml")
    wb = build_workbook(a.as_dict(), a)
    shown = _sheets_print_legibly(wb, summary="Summary")
    assert "Sources" in shown and "Bill of materials" in shown
    assert print_pages(wb["Summary"]) <= 2


def test_bill_of_materials_was_3pt_and_now_prints_legibly():
    """The review measured the DGX SuperPOD BOM at about 3 pt (one page wide: 20 columns
    of about 2,400 pt on 784 pt, a scale of 0.33); it now prints 2 pages wide at 0.55 or
    more, the line number repeated."""
    from infra.analysis.summary import analyze_file
    from infra.reports.xlsx_print import content_pt, print_scale
    from infra.reports.xlsx_report import build_workbook

    ws = build_workbook(analyze_file(DESIGNS / "dgx_h100_superpod.yaml").as_dict())[
        "Bill of materials"]
    width = printable_pt(ws)[0]
    assert width / content_pt(ws) < 0.4  # what one page wide would print at
    assert int(ws.page_setup.fitToWidth) >= 2 and print_scale(ws) >= 0.55


def test_compare_and_failures_workbooks_print(tmp_path, run_cli):
    """The compare workbook (charts included: none cut by a page) and the combined
    failures workbook use every workbook's page setup."""
    import openpyxl

    a, b = str(DESIGNS / "dgx_b200_su.yaml"), str(DESIGNS / "gb200_nvl72_x4.yaml")
    res = run_cli("compare", a, b, "--report", "xlsx", "-o", str(tmp_path / "c"))
    assert res.exit_code == 0, res.output
    (book,) = (tmp_path / "c").glob("*.xlsx")
    wb = openpyxl.load_workbook(book)
    shown = _sheets_print_legibly(wb)
    assert "Charts" in shown and "Comparison" in shown
    assert all("infra compare" in ws.oddFooter.left.text for ws in wb.worksheets)
    import infra
    from infra.reports.compare_xlsx import build_workbook  # openpyxl reads no chart back

    built = build_workbook(infra.compare(a, b).as_dict())
    assert len(built["Charts"]._charts) == 4
    _sheets_print_legibly(built)  # the four charts: none across a page foot
    res = run_cli("failures", a, b, "--report", "xlsx", "-o", str(tmp_path / "f"))
    assert res.exit_code == 0, res.output
    (book,) = (tmp_path / "f").glob("*.xlsx")
    wb = openpyxl.load_workbook(book)
    _sheets_print_legibly(wb)
    assert all("infra failures" in ws.oddFooter.left.text for ws in wb.worksheets)
