"""Numeric domains: finite, strict, physically bounded numbers; 1 to 10^8 GPUs (issue 18, 31)."""

from __future__ import annotations

import json
import shutil
import textwrap

import pytest

from conftest import CATALOGS, DESIGNS

DESIGN = textwrap.dedent("""\
    name: t
    racks:
      r:
        type: generic-42u-air-rack
        contents:
          - {type: nvidia-dgx-h100, count: 4}
    build: {r: 1}
    """)


def refused(run_cli, tmp_path, text, *fragments, cmd=("validate",)):
    p = tmp_path / "d.yaml"
    p.write_text(text)
    res = run_cli(*cmd, str(p))
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    for f in fragments:
        assert f in res.output, (f, res.output)
    return res.output


@pytest.mark.parametrize("value, fragment", [
    ("true", "valid integer"),  # before: counted 1 DGX
    ("4.0", "valid integer"),
    ("'4'", "valid integer"),
    ("1001", "less than or equal to 1000"),  # a rack of 1,001 DGX
])
def test_rack_content_count(run_cli, tmp_path, value, fragment):
    refused(run_cli, tmp_path, DESIGN.replace("count: 4}", f"count: {value}}}"),
            "d.yaml:6:", "racks.r.contents[0].count", fragment)


def test_a_million_0u_pdus_in_one_rack(run_cli, tmp_path):
    # Before: validate said ok; design wrote 1,000,004 elevation rows (281 MB).
    text = DESIGN.replace(
        "count: 4}", "count: 4}\n      - {type: apc-ap8886, count: 1000000}")
    refused(run_cli, tmp_path, text, "d.yaml:7:", "contents[1].count")


@pytest.mark.parametrize("value", ["true", ".inf", "'inf'", "1e999", "1e300"])
def test_pue_must_be_a_finite_number_in_range(run_cli, tmp_path, value):
    text = DESIGN.replace("build:", f"assumptions: {{pue: {value}}}\nbuild:")
    refused(run_cli, tmp_path, text, "assumptions.pue")


def test_build_count_of_2_to_the_63(run_cli, tmp_path):
    refused(run_cli, tmp_path, DESIGN.replace("{r: 1}", "{r: 9223372036854775808}"),
            "d.yaml:7:", "build.r", "less than or equal to 1000000000000")


def test_design_of_more_than_10_12_gpus(run_cli, tmp_path):
    # 10^12 racks of 4 x 8 GPUs: each count is allowed, the total is not supported.
    refused(run_cli, tmp_path, DESIGN.replace("{r: 1}", "{r: 1000000000000}"),
            "d.yaml:7:", "32,000,000,000,000 GPUs: beyond the 100,000,000")


def test_design_without_gpus(run_cli, tmp_path):
    # Before: design exit 0 with every figure 0; compare: ZeroDivisionError.
    text = DESIGN.replace("nvidia-dgx-h100, count: 4", "apc-ap8886, count: 1")
    for cmd in (("validate",), ("design", "-q"), ("compare",), ("failures",)):
        refused(run_cli, tmp_path, text, "d.yaml:7:", "the design has no GPUs", cmd=cmd)


@pytest.fixture
def catalog_copy(tmp_path):
    dst = tmp_path / "cat"
    shutil.copytree(CATALOGS, dst)
    return dst


@pytest.mark.parametrize("value, fragment", [
    (".inf", "finite number"),  # before: it_power_kw inf, JSON 'Infinity'
    ("150000", "less than or equal to 100000"),  # no GPU draws 150 kW
    ("true", "valid number"),
])
def test_catalog_figures_are_finite_and_bounded(run_cli, catalog_copy, value, fragment):
    f = catalog_copy / "gpus" / "nvidia" / "nvidia-h100-sxm5.yaml"
    text = f.read_text()
    assert "tdp_w: 700" in text
    f.write_text(text.replace("tdp_w: 700", f"tdp_w: {value}"))
    res = run_cli("validate", "--catalog", str(catalog_copy), str(f))
    assert res.exit_code == 2, res.output
    assert "nvidia-h100-sxm5.yaml:" in res.output and "tdp_w" in res.output
    assert fragment in res.output


def test_schema_states_the_bounds():
    schema = json.loads((DESIGNS.parent / "schemas" / "catalog-gpu.schema.json").read_text())
    tdp = schema["properties"]["tdp_w"]["anyOf"][0]
    assert tdp["maximum"] == 100000 and tdp["exclusiveMinimum"] == 0


def test_json_report_never_carries_nan():
    from infra.reports.json_report import to_json

    with pytest.raises(ValueError):
        to_json({"x": float("nan")})
