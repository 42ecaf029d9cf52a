"""Streamed table sheets (issue 17): rows written as sheet XML without openpyxl cells,
read back with openpyxl and compared with the JSON tables cell by cell."""

from __future__ import annotations

import json
import math

import openpyxl
import pytest

from conftest import DESIGNS, write_hall
from infra.analysis.layout.elevation import elevation_runs
from infra.analysis.summary import analyze_file
from infra.reports.labels import column_header
from infra.reports.xlsx_report import sheet_name, write_xlsx


def _as_cell(v):
    """What a JSON value reads back as: lists and dicts as their text, NaN as blank."""
    if isinstance(v, (list, tuple, dict)):
        return str(v)
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _sheet_rows(ws) -> tuple[list, list[tuple]]:
    rows = list(ws.iter_rows(values_only=True))
    return list(rows[0]), rows[1:]


def _check_tables(wb, data: dict) -> int:
    """Every table but the BOM (formulas, checked by recalculation elsewhere): same
    headers, same rows, same values. Returns the number of cells compared."""
    from infra.reports.xlsx_report import _unknown_power

    n = 0
    for table, rows in data["tables"].items():
        if table == "bill_of_materials" or not rows:
            continue
        if table == "rack_elevation":
            rows = elevation_runs(rows)
        rows = _unknown_power(table, rows)
        head, got = _sheet_rows(wb[sheet_name(table)])
        cols = list(rows[0])
        assert head == [column_header(c) for c in cols], table
        assert len(got) == len(rows), table
        for r, g in zip(rows, got):
            want = tuple(_as_cell(r.get(c)) for c in cols)
            assert g[:len(cols)] == want, (table, r)
            n += len(cols)
    return n


def test_headline_tables_read_back_as_json(tmp_path, run_cli):
    res = run_cli("design", str(DESIGNS / "aws_nvl36x2.yaml"), "--report", "json",
                  "--report", "xlsx", "--no-diagrams", "-o", str(tmp_path), "-q")
    assert res.exit_code == 0, res.output
    data = json.loads((tmp_path / "aws_nvl36x2.json").read_text())
    wb = openpyxl.load_workbook(tmp_path / "aws_nvl36x2.xlsx")
    assert _check_tables(wb, data) > 500


@pytest.fixture(scope="module")
def hall(tmp_path_factory):
    return analyze_file(write_hall(12, tmp_path_factory.mktemp("hall")))


def test_hall_tables_read_back_as_json(hall, tmp_path):
    data = hall.as_dict()
    path = write_xlsx(data, tmp_path / "h.xlsx", hall)
    wb = openpyxl.load_workbook(path)
    assert _check_tables(wb, data) > 2000
    ws = wb["Rack elevation"]
    head = [c.value for c in ws[1]]
    # the sheet says its rows are runs of units (as the JSON's, format 2)
    assert "one row per run" in ws.cell(row=1, column=head.index("Count") + 1).comment.text.lower()
    # frozen header, filter over every row, widths set
    assert ws.freeze_panes == "A2"
    assert ws.auto_filter.ref == f"A1:{ws.cell(row=1, column=len(head)).column_letter}" \
                                 f"{len(elevation_runs(data['tables']['rack_elevation'])) + 1}"
    assert ws.dimensions == ws.auto_filter.ref


def _one_table(rows, tmp_path):
    data = {"design": {"name": "t", "source_file": "t.yaml"}, "metrics": {},
            "tables": {"things": rows}}
    return openpyxl.load_workbook(write_xlsx(data, tmp_path / "t.xlsx"))["Things"]


def test_streamed_cells_kinds_and_styles(tmp_path):
    long_note = "a note longer than forty characters, so it wraps in its cell"
    rows = [
        {"name": "a & <b> > c", "power_w": 1.5, "racks": 3, "ok": True, "note": long_note,
         "url": "https://example.com/a?x=1&y=2", "tags": ["x", "y"], "unit_price_usd": 10.0},
        {"name": "  padded ", "power_w": None, "racks": 10**20, "ok": False,
         "note": "=SUM(A1:A2)", "url": "not a link", "tags": {"k": 1}, "unit_price_usd": None},
        {"name": "bell\x07char", "power_w": float("nan"), "racks": None, "ok": None,
         "note": None, "url": None, "tags": None, "unit_price_usd": 0},
    ]
    ws = _one_table(rows, tmp_path)
    values = [list(r) for r in ws.iter_rows(min_row=2, values_only=True)]
    assert values == [
        ["a & <b> > c", 1.5, 3, True, long_note, "https://example.com/a?x=1&y=2",
         "['x', 'y']", 10],
        ["  padded ", None, 10**20, False, "=SUM(A1:A2)", "not a link", "{'k': 1}", None],
        # a control character XML cannot hold is dropped; NaN is a blank, never a number
        ["bellchar", None, None, None, None, None, None, 0],
    ]
    assert ws["E3"].data_type == "s"  # text that looks like a formula stays text
    # watts get the W number format (whole watts); blanks in numeric columns are hatched (unknown)
    assert ws["B2"].number_format == "#,##0" and ws["B4"].number_format == "#,##0"
    assert ws["B3"].fill.fill_type == "lightGray" and ws["B4"].fill.fill_type == "lightGray"
    assert ws["C4"].fill.fill_type == "lightGray"
    assert ws["A3"].fill.fill_type is None  # a text column's blank is just blank
    assert "never 0" in ws["B1"].comment.text and ws["A1"].comment is None
    assert ws["H1"].comment is None  # a blank price is an input cell, not hatched
    # long notes wrap, short ones do not; URLs are hyperlinks
    assert ws["E2"].alignment.wrap_text and not ws["E3"].alignment.wrap_text
    assert ws["F2"].hyperlink.target == "https://example.com/a?x=1&y=2"
    assert ws["F3"].hyperlink is None
    # a price column is an input (pale yellow, validated >= 0), blank = unknown
    assert ws["H2"].fill.fgColor.rgb.endswith("FFF2CC")
    (dv,) = ws.data_validations.dataValidation
    assert str(dv.sqref) == "H2:H4" and dv.formula1 == "0"
    # the header is styled and the table filtered
    assert ws["A1"].font.b and ws.auto_filter.ref == "A1:H4"


def test_streamed_sheet_page_setup_and_widths(tmp_path):
    rows = [{"layout": f"layout-{i:04d}", "power_w": i * 1.25} for i in range(1, 1500)]
    ws = _one_table(rows, tmp_path)
    # widths from the first 1,000 rows, + 2: "layout-0001" is 11 characters (13); the
    # widest number there, 999 * 1.25 = "1248.75", is 7, under the header "Power (W)", 9 (11)
    assert ws.column_dimensions["A"].width == 13
    assert ws.column_dimensions["B"].width == 11
    assert ws.print_title_rows == "$1:$1" and ws.page_setup.orientation == "landscape"
    assert ws.max_row == 1500


def test_footer_version_is_the_installed_version():
    """The footer reads ``infra.__version__`` (the package metadata cost 60 ms a
    workbook): the two must agree."""
    from importlib.metadata import version as installed

    from infra.reports.xlsx_print import version

    assert version() == installed("infra")
