"""Reports lead with the decision (issue 30 items 1, 7, 8, 9): `infra design` prints the
decision summary by default, findings first, in one 80 x 50 screen, for every shipped
design; `--full` adds every table; words are never broken; labels say what they are."""

from __future__ import annotations

import re
import textwrap

import pytest
from click.testing import CliRunner

from conftest import DESIGNS
from infra.cli.main import cli

SHIPPED = sorted(p.name for p in DESIGNS.glob("*.yaml"))


def _design(*args: str, columns: str = "80"):
    return CliRunner().invoke(cli, ["design", *args], obj={}, env={"COLUMNS": columns})


@pytest.fixture(scope="module")
def analyses():
    from infra.analysis.summary import analyze_file

    return {name: analyze_file(DESIGNS / name).as_dict() for name in SHIPPED}


@pytest.mark.parametrize("name", SHIPPED)
def test_default_output_is_one_80x50_screen_findings_first(name, analyses):
    res = _design(str(DESIGNS / name))
    assert res.exit_code == 0, res.output
    lines = res.output.rstrip("\n").split("\n")
    assert len(lines) <= 50, (name, len(lines))
    assert max(map(len, lines)) <= 80, name
    data = analyses[name]
    assert lines[0] == data["design"]["name"]
    # the findings are counted first (errors, then warnings), before any figure
    warnings = [a["value"] for a in data["tables"]["assumptions"] if a["item"] == "warning"]
    s = "" if len(warnings) == 1 else "s"
    assert lines[3] == f"Findings: no design rule broken; {len(warnings)} warning{s}"
    figures = lines.index("Decision figures:")
    shown = [ln for ln in lines[4:figures] if ln.startswith("  - warning: ")]
    more = [ln for ln in lines[4:figures] if ln.startswith("  ... ")]
    assert len(shown) + (int(more[0].split()[1]) if more else 0) == len(warnings)
    for line, text in zip(shown, warnings):  # each warning's own first words
        assert text.startswith(line[len("  - warning: "):].split("...")[0].rstrip()), line
    # the committee's figures follow, in this order, and no table
    labels = [ln[2:].split("  ")[0] for ln in lines[figures + 1:]
              if ln.startswith("  ") and ln[2:3].strip()]
    assert labels[:7] == ["GPUs", "Racks", "Peak dense BF16", "Achievable BF16",
                          "IT power (design maximum)", "Facility power", "Highest IT per rack"]
    assert "Worst single failure" in labels and "Capex, priced lines" in labels
    assert "Bill of materials" not in res.output and "Blast radius" not in res.output


def test_the_figures_are_the_analysis_figures(analyses):
    """DGX SuperPOD H100: 127 DGX H100 (31 racks of 4 + 1 of 3: 31 x 4 + 3 = 127), 8 GPUs
    each: 127 x 8 = 1,016 GPUs; a 4-DGX rack at 10.2 kW each (DGX H100 user guide,
    system power 10.2 kW max) is 4 x 10.2 = 40.8 kW, all of it air; the IT power's kW
    shown in MW (1,374.05 kW = 1.374 MW)."""
    res = _design(str(DESIGNS / "dgx_h100_superpod.yaml"), columns="100")
    out = res.output
    m = analyses["dgx_h100_superpod.yaml"]["metrics"]
    assert m["gpus"] == 127 * 8 == 1016
    assert "  GPUs " in out and " 1,016  GPUs  nvidia-h100-sxm5\n" in out
    # Racks: every rack on the floor, the fabric's 4 leaf + 1 spine network racks too
    assert (m["compute_racks"], m["network_racks"]) == (32, 5)
    assert m["racks"] == m["compute_racks"] + m["other_racks"] + m["network_racks"]
    other = f" + {m['other_racks']} management/storage" if m["other_racks"] else ""
    assert f" {m['racks']}  racks  32 compute{other} + 5 network\n" in out
    assert f" {m['it_power_kw'] / 1000:.3f}  MW" in out and " 1.374  MW" in out
    assert " 40.8  kW  layout dgx4 x 31: liquid 0 kW + air 40.8 kW" in out
    assert f" {m['capex_priced_usd']:,.0f}  USD  lower bound: " \
           f"{m['capex_unpriced_sku_count']} SKUs unpriced; scope systems" in out
    assert " 32  GPUs lost  dgx4 (generic-42u-air-rack)" in out  # a whole 4-DGX rack
    assert f" {m['allreduce_busbw_8gib_design_gbyte_s']:,.2f}  GB/s busbw (predicted)" in out
    assert "FP4 n/a" in out  # Hopper has no FP4: not 0 PFLOPS


def test_full_prints_every_table_below_the_decision_summary():
    res = _design(str(DESIGNS / "dgx_h100_superpod.yaml"), "--full", columns="100")
    assert res.exit_code == 0
    out = res.output
    assert out.index("Findings:") < out.index("Decision figures:") < out.index("Key figures:") \
        < out.index("Bill of materials") < out.index("Blast radius")
    assert re.search(r"\n  Peak dense FP4 +n/a  PFLOPS\n", out)  # not 0
    assert "(decision summary: --full" not in out
    # --wide and --rows shape tables: either prints them
    for flag in (["--wide"], ["--rows", "5"]):
        assert "Bill of materials" in _design(str(DESIGNS / "aws_nvl36x2.yaml"), *flag).output


def test_findings_come_first_and_whole_findings_are_counted(tmp_path):
    """A broken design (GB300 NVL72 under N+N, tests/test_power.py) names its finding
    before any figure and exits 1; a design with more warnings than a screen holds says
    how many more there are and stays within 50 lines."""
    from test_power import GB300_NN

    p = tmp_path / "nn.yaml"
    p.write_text(textwrap.dedent(GB300_NN))
    res = _design(str(p))
    assert res.exit_code == 1
    lines = res.output.split("\n")
    assert lines[3] == "FINDINGS: 1 design rule broken (exit status 1); 0 warnings"
    assert lines[4].startswith("  - error:") and "draws 141.5 kW IT" in res.output
    assert res.output.index("draws 141.5 kW IT") < res.output.index("GPUs")

    from infra.analysis.summary import analyze_file
    from infra.reports.decision import decision_summary, render_decision

    data = analyze_file(DESIGNS / "dgx_h100_superpod.yaml").as_dict()
    warn = next(a for a in data["tables"]["assumptions"] if a["item"] == "warning")
    data["tables"]["assumptions"] += [warn] * 20  # 22 warnings of 4 lines each
    text = render_decision(decision_summary(data), 80)
    lines = text.split("\n")
    assert len(lines) <= 50 and lines[3] == "Findings: no design rule broken; 22 warnings"
    shown = sum(ln.startswith("  - warning:") for ln in lines)
    assert f"  ... {22 - shown} more (--full lists every one)" in lines


def test_words_are_never_broken():
    from infra.reports.decision import fit

    text = "removed by 8 x supermicro-gb300-in-rack-cdu and nvidia-quantum-2-qm9700"
    for width in (20, 30, 44, 80):
        lines = fit(text, width)
        assert all(len(ln) <= width for ln in lines)
        words = " ".join(ln.strip() for ln in lines).split()
        # every word whole, or cut only at the end of its line with '...'
        assert all(w in text.split() or w.endswith("...") for w in words), (width, lines)
    res = _design(str(DESIGNS / "gb200_nvl72_576.yaml"))
    assert "supermicro-gb300-in-rack-cdu" in res.output  # 28 characters, on one line


def test_labels_name_what_they_show(analyses):
    """One label per metric (CPU memory and CPU memory bandwidth are two), fractions as
    percents without the word fraction, peak FLOPS of an unsupported precision as n/a."""
    from infra.reports.labels import column_header, metric_label, shown_unit, value_text

    for name, data in analyses.items():
        labels = [metric_label(k) for k in data["metrics"]]
        dup = {x for x in labels if labels.count(x) > 1}
        assert not dup, (name, dup)
    assert metric_label("cpu_memory_tbyte_s") == "CPU memory bandwidth"
    assert value_text("capex_completeness_fraction", 0.0) == "0%"
    assert value_text("capex_completeness_fraction", 1 / 3) == "33.3%"
    assert shown_unit("capex_completeness_fraction") == ""
    assert value_text("peak_dense_pflops_fp4", 0) == "n/a"
    assert value_text("peak_dense_pflops_fp4", None) == "unknown"
    assert column_header("peak_dense_pflops_bf16") == "Peak dense BF16 (PFLOPS)"


def test_leaf_and_spine_of_one_switch_model_are_named_apart(analyses):
    """DGX SuperPOD H100: 32 leaf and 16 spine QM9700 (NVIDIA's 4-SU table), one model in
    both tiers; their blast-radius rows say which tier they are."""
    rows = {r["component"]: r["count"] for r in analyses["dgx_h100_superpod.yaml"]["tables"]["blast_radius"]
            if r["component_kind"] in ("leaf_switch", "spine_switch")}
    assert rows == {"nvidia-quantum-2-qm9700 leaf (compute)": 32,
                    "nvidia-quantum-2-qm9700 spine (compute)": 16}
