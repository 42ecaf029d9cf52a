"""The terminal summary of a large hall stays a summary (issue 17): each table prints at
most ``--rows`` rows, its most telling first, and says how many the reports hold."""

from __future__ import annotations

import importlib.util
import re

import pytest
from click.testing import CliRunner

from conftest import ROOT
from infra.analysis.summary import analyze_file
from infra.cli.main import cli
from infra.reports.terminal import render_summary


@pytest.fixture(scope="module")
def hall(tmp_path_factory):
    spec = importlib.util.spec_from_file_location("bench_hetero",
                                                  ROOT / "benchmarks" / "bench_hetero.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    f = tmp_path_factory.mktemp("rows") / "hall30.yaml"
    f.write_text(mod.hall(30))
    return f


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
    assert len(racks) == 30 and len(blast) > 5
    text = render_summary(data, width=200, max_rows=5)
    assert "Power per rack [5 of 30 rows, highest IT kW first]:" in text
    body = _section(text, "Power per rack")[2:]  # below the header and its rule
    assert len(body) == 5
    shown = [float(line.split()[2]) for line in body]  # layout, racks, IT kW per rack
    # the five largest per-rack IT figures of the analysis, in descending order
    assert shown == sorted((r["it_kw_per_rack"] for r in racks), reverse=True)[:5]
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
