"""Design-rule findings in every report, first (issue 28 item 4): the xlsx Summary sheet's
first rows, the top of the HTML page, the Markdown report and a row of `infra compare`
for each option. GB300 NVL72 under N+N: 141.48 kW IT, 4 x 33 = 132 kW usable, 9.48 kW
short (tests/test_power.py)."""

from __future__ import annotations

import json
import textwrap

import pytest

from conftest import DESIGNS
from test_power import GB300_NN


@pytest.fixture
def short_design(tmp_path):
    p = tmp_path / "gb300nn.yaml"
    p.write_text(textwrap.dedent(GB300_NN))
    return p


def test_design_reports_name_the_finding_first(short_design, tmp_path, run_cli):
    out = tmp_path / "out"
    res = run_cli("design", str(short_design), "-q", "--no-diagrams", "--report", "xlsx",
                  "--report", "html", "--report", "md", "--report", "json", "-o", str(out))
    assert res.exit_code == 1, res.output
    (finding,) = json.loads((out / "gb300nn.json").read_text())["findings"]
    assert "draws 141.5 kW IT" in finding["message"] and "9.5 kW short" in finding["hint"]
    # xlsx: Summary is the first sheet; the findings sit above the metrics
    from openpyxl import load_workbook

    ws = load_workbook(out / "gb300nn.xlsx").worksheets[0]
    assert ws.title == "Summary"
    rows = [[c.value for c in r] for r in ws.iter_rows(max_row=12)]
    col_a = [r[0] for r in rows]
    top = col_a.index("FINDINGS: 1 design rule broken (every figure is computed all the same; "
                      "exit status 1)")
    assert rows[top + 1][:4] == ["Finding", "Kind", "Where", "Fix"]
    assert rows[top + 2][0] == finding["message"] and rows[top + 2][1] == "power_supply"
    assert rows[top + 2][2].endswith("racks.nvl72.contents")
    assert top < col_a.index("Metric")  # before every figure
    # HTML: the first section of the page, and in the navigation
    page = (out / "gb300nn.html").read_text()
    assert page.index('id="findings"') < page.index('id="key"')
    assert "draws 141.5 kW IT" in page[page.index('id="findings"'):page.index('id="key"')]
    # Markdown: right under the title
    md = (out / "gb300nn.md").read_text()
    assert md.index("## Findings") < md.index("draws 141.5 kW IT") < md.index("IT power")
    assert "- **power_supply**: " in md


def test_clean_design_reports_have_no_findings_section(tmp_path, run_cli):
    out = tmp_path / "out"
    res = run_cli("design", str(DESIGNS / "gb300_nvl72.yaml"), "-q", "--no-diagrams",
                  "--report", "html", "--report", "md", "-o", str(out))
    assert res.exit_code == 0, res.output
    assert 'id="findings"' not in (out / "gb300_nvl72.html").read_text()
    md = (out / "gb300_nvl72.md").read_text()  # counted, none named
    assert "## Findings" not in md and "Findings: no design rule broken; 0 warnings" in md


def test_compare_has_a_findings_row_per_option_and_exits_1(short_design, run_cli):
    res = run_cli("compare", str(short_design), str(DESIGNS / "gb300_nvl72.yaml"),
                  "nvidia-b300-gb300", "--format", "json")
    assert res.exit_code == 1
    data = json.loads(res.output[:res.output.rindex("}") + 1])
    first = data["comparison"][0]
    assert first["metric"] == "design_rule_findings" and first["section"] == "findings"
    # one cell per option: the broken design's finding, 'none' for the clean design, and
    # nothing for a GPU (design rules do not apply to a bare chip)
    assert first["gb300nn"].startswith("1: ") and "9.5 kW short" in first["gb300nn"]
    assert first["gb300_nvl72"] == "none" and first["nvidia-b300-gb300"] is None
    assert "finding: gb300nn: " in res.output
    # a comparison of clean options has no such row and exits 0
    res = run_cli("compare", str(DESIGNS / "gb300_nvl72.yaml"), "nvidia-b300-gb300",
                  "--format", "csv")
    assert res.exit_code == 0 and "design_rule_findings" not in res.output
