"""The failure review to the precision it has, and one combined report for two designs.

Figures from the review's own JSON (aws_nvl36x2, 2,000 samples); the reports must
write them so that distinct values read distinct:
  0.992313 -> 99.23 %, 0.993412 -> 99.34 % (both were "0.99")
  0.9996   -> 99.960 %, 0.9997 -> 99.970 % (both were "1")
  nines = -log10(1 - a): 1 - 0.992313 = 0.007687 -> 2.114; hours down = 0.007687 x 8,760
  = 67.34 h; GPU-hours lost 0.004355 -> "0.44 % of GPU-hours" (was "0 fraction").
"""

from __future__ import annotations

import re

import pytest

from conftest import DESIGNS
from infra.reports.failures_text import availability_text, metric_text, percent, rate_text

AWS, NVL72 = str(DESIGNS / "aws_nvl36x2.yaml"), str(DESIGNS / "gb200_nvl72.yaml")


def test_precision_by_hand():
    assert percent(0.992313) != percent(0.993412)
    assert (percent(0.9996), percent(0.9997)) == ("99.960 %", "99.970 %")
    assert availability_text(0.992313) == "99.23 % (2.11 nines, 67.3 h down a year)"
    assert metric_text("gpu_hours_lost_fraction", 0.004355) == "0.44 % of GPU-hours"
    assert metric_text("job_goodput_fraction", 0.8176) == "81.8 %"
    assert rate_text(0.000137, "assumption", "per day") == "0.000137 per day (assumed)"
    assert rate_text(3e-7, "DER") == "3.00e-07 /yr"  # small, never 0


@pytest.fixture(scope="module")
def one(tmp_path_factory):
    from click.testing import CliRunner

    from infra.cli.main import cli

    out = tmp_path_factory.mktemp("one")
    r = CliRunner().invoke(cli, ["failures", AWS, "--samples", "2000", "--report", "html",
                                 "--report", "md", "-o", str(out)], obj={})
    assert r.exit_code == 0, r.output
    j = CliRunner().invoke(cli, ["failures", AWS, "--samples", "2000", "--format", "json"], obj={})
    import json

    return r.output, out, json.loads(j.output)


def test_html_and_md_write_what_the_review_has(one):
    text, out, data = one
    page = (out / "aws_nvl36x2.failures.html").read_text()
    md = (out / "aws_nvl36x2.failures.md").read_text()
    m = data["metrics"]
    for doc in (page, md):
        assert not re.search(r"\d fraction", doc)  # no "0 fraction", "94.6% fraction"
        assert metric_text("gpu_hours_lost_fraction", m["gpu_hours_lost_fraction"]) in doc
        assert availability_text(m["domain_full_availability_fraction"]) in doc
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", page)
    # no non-zero interruption rate or share reads 0 (a 0 share is a 0 rate or no interrupt)
    for r in data["tables"]["job_interruptions_by_kind"]:
        assert r["interruptions_per_day"] > 0
    assert not [c for c in cells if re.fullmatch(r"0(\.0+)? per day", c)]
    for r in data["tables"]["failures"]:
        if r["share_of_interruptions"]:
            assert not percent(r["share_of_interruptions"]).startswith("0 ")
        if r["rate_per_year"] == 0:
            assert r["tag"] == "assumption"  # a 0 rate is an assumption and says so
    assert "0 /yr" not in cells and "0 /yr (assumed)" in cells
    assumed = [r for r in data["tables"]["failures"] if r["tag"] == "assumption"]
    assert assumed and all(rate_text(r["rate_per_year"], "assumption") in page for r in assumed)
    # the terminal says it too, under the metric lines
    assert "  GPU-hours lost: " + metric_text("gpu_hours_lost_fraction",
                                             m["gpu_hours_lost_fraction"]) in text


def test_two_designs_one_combined_report(tmp_path, run_cli):
    r = run_cli("failures", NVL72, AWS, "--samples", "2000", "--report", "html",
                "--report", "md", "--report", "xlsx", "-o", str(tmp_path))
    assert r.exit_code == 0, r.output
    files = sorted(p.name for p in tmp_path.iterdir())
    stem = "failures-gb200_nvl72-vs-aws_nvl36x2"
    assert files == [f"{stem}.html", f"{stem}.md", f"{stem}.xlsx"]  # one report, no pair
    page = (tmp_path / f"{stem}.html").read_text()
    assert "Side by side" in page and "gb200_nvl72: Failures per component" in page
    assert "aws_nvl36x2: Failures per component" in page and "nines" in page
    md = (tmp_path / f"{stem}.md").read_text()
    assert "## Side by side" in md and "## aws_nvl36x2:" in md and "## gb200_nvl72:" in md
    import openpyxl
    from xlsx_recalc import recalc

    wb = openpyxl.load_workbook(tmp_path / f"{stem}.xlsx")
    assert wb.sheetnames[:3] == ["Side by side", "Events by kind", "Availability"]
    av = wb["Availability"]
    v = recalc(tmp_path / f"{stem}.xlsx", keep=("Availability",))
    for row in av.iter_rows(min_row=2):
        a = row[3].value  # closed form
        if a is not None and a < 1:
            g = v[("AVAILABILITY", f"G{row[0].row}")]
            assert g == pytest.approx(-__import__("math").log10(1 - a))
            assert v[("AVAILABILITY", f"H{row[0].row}")] == pytest.approx((1 - a) * 8760)


def test_workbook_answer_sheet(tmp_path, run_cli):
    """The single-design workbook gets an Answer sheet: each availability as written,
    with its nines and downtime hours a year (0.94586: 1.267 nines, 474.3 h)."""
    import openpyxl

    r = run_cli("failures", AWS, "--samples", "2000", "--report", "xlsx", "-o", str(tmp_path))
    assert r.exit_code == 0, r.output
    wb = openpyxl.load_workbook(tmp_path / "aws_nvl36x2.failures.xlsx")
    rows = list(wb["Answer"].iter_rows(values_only=True))
    assert rows[0][:5] == ("Figure", "As written", "Value", "Nines", "Downtime (hours)")
    by = {r[0]: r for r in rows[1:]}
    a = by["scale-up domain availability (every tray up)"]
    assert a[3] == pytest.approx(-__import__("math").log10(1 - a[2]), abs=1e-3)
    assert a[4] == pytest.approx((1 - a[2]) * 8760, abs=0.01)
    assert by["GPU-hours lost"][1].endswith("% of GPU-hours")
