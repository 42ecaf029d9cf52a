"""The terminal summary of a large hall stays a summary (issue 17): each table prints at
most ``--rows`` rows, its most telling first, and says how many the reports hold."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from conftest import ROOT, write_hall
from infra.analysis.summary import analyze_file
from infra.cli.main import cli
from infra.reports.terminal import render_summary


@pytest.fixture(scope="module")
def hall(tmp_path_factory):
    return write_hall(30, tmp_path_factory.mktemp("rows"))


def _section(text: str, title: str) -> list[str]:
    """The body lines of the section whose title starts with ``title``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    body = []
    for line in lines[start + 1:]:
        if not line.strip():
            break
        body.append(line)
    return body


def test_long_tables_print_their_most_telling_rows(hall):
    data = analyze_file(hall).as_dict()
    racks, blast = data["tables"]["power_by_rack"], data["tables"]["blast_radius"]
    # 30 compute layouts, then the 3-tier fabric's network racks (drawn and counted too)
    network = [r for r in racks if r["layout"].startswith("network: ")]
    assert len(racks) - len(network) == 30 and network and len(blast) > 5
    text = render_summary(data, width=200, max_rows=5)
    assert f"Power per rack [5 of {len(racks)} rows, highest IT kW first]:" in text
    body = _section(text, "Power per rack")[2:]  # below the header and its rule
    assert len(body) == 5
    shown = [float(line.split()[2]) for line in body]  # layout, racks, IT kW per rack
    # the five largest per-rack IT figures of the analysis, in descending order
    assert shown == [round(x, 2) for x in  # as printed, to 2 decimals
                     sorted((r["it_kw_per_rack"] for r in racks), reverse=True)[:5]]
    assert f"Blast radius (full_bandwidth NVLink partitions) [5 of {len(blast):,} rows" in text
    worst = max(r["gpus_lost"] for r in blast)
    first = _section(text, "Blast radius")[2]
    assert re.search(rf"\s{worst}\s", first), first  # the worst failure heads the table
    warnings = [a for a in data["tables"]["assumptions"] if a["item"] != "note"]
    assert f"... and {len(warnings) - 5:,} more" in text
    assert "--rows 0 prints every row" in text


def test_rows_zero_prints_every_row_and_small_designs_are_unchanged(hall):
    res = CliRunner().invoke(cli, ["design", str(hall), "--rows", "0"], obj={})
    assert res.exit_code == 0, res.output
    assert " of 30 rows" not in res.output
    assert len([ln for ln in _section(res.output, "Power per rack")
                if re.match(r"\s+l\d+\s", ln)]) == 30
    res = CliRunner().invoke(cli, ["design", str(ROOT / "designs" / "aws_nvl36x2.yaml")],
                             obj={})
    assert res.exit_code == 0 and " rows, " not in res.output and "--rows 0" not in res.output


def test_rows_must_be_a_count():
    res = CliRunner().invoke(cli, ["design", str(ROOT / "designs" / "aws_nvl36x2.yaml"),
                                   "--rows", "-1"], obj={})
    assert res.exit_code == 2 and "--rows" in res.output


def test_failure_review_prints_the_largest_shares_of_interruptions(hall, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")  # 12 columns do not fit: one record per row
    from infra.analysis.reliability.failure_review import review_file
    from infra.reports.failures_text import render_review

    data = review_file(hall, samples=1000).as_dict()
    rows = data["tables"]["failures"]
    text = render_review(data, max_rows=3)
    assert f"[3 of {len(rows):,} rows, largest share of interruptions first" in text
    shown = [line.split(": ", 1)[1] for line in text.splitlines()
             if line.startswith("  component: ")]
    # the three largest shares, by hand from the rows (ties broken by GPU-hours lost)
    top = sorted(rows, key=lambda r: (r["share_of_interruptions"] or 0,
                                      r["gpu_hours_lost_per_year"] or 0), reverse=True)[:3]
    assert shown == [r["component"][:57] + "..." if len(r["component"]) > 60
                     else r["component"] for r in top]
    assert "[" not in render_review(data, max_rows=0).split("Failures per component")[1][:90]


def test_compare_groups_alike_domains_and_cooling_of_many_layouts(hall, catalog):
    from infra.analysis.cost.compare import compare
    from infra.models.prices import load_prices

    cmp = compare([hall, hall], load_prices((), catalog), catalog)
    rows = {r["metric"]: r for r in cmp.rows()}
    # hall(30): the first 30 generated layouts all hold 16 GB200 trays (64 GPUs, one NVLink
    # domain per rack) and one in-rack CDU; 30 layouts x 2 racks = 60 domains and 60 CDUs
    split = rows["scale_up_domain_split"]["hall30"]
    assert split == "64 GPUs over 1 rack(s) (rack) x 60 domains"
    assert rows["cooling_units"]["hall30"] == (
        "supermicro-gb300-in-rack-cdu (in_rack_cdu, 30 scopes) x 60")
