"""Like-for-like cost ranking and the live TCO sheet of compare.xlsx.

Shipped designs and their capex scopes with the shipped prices:
  aws_nvl36x2  : nothing priced                        -> none
  gb200_nvl72  : populated rack, covers its contents   -> full
  dgx_h100_su  : DGX systems and QM9700 switches priced; optics, fibres, racks,
                 PDUs and room cooling unpriced        -> systems
"""

from __future__ import annotations

import json

import openpyxl
import pytest
from xlsx_recalc import recalc

from conftest import DESIGNS
from infra.analysis.cost.compare import compare
from infra.analysis.cost.tco import CostAssumptions
from infra.models.prices import load_prices
from infra.reports.compare_tco_xlsx import tco_columns

SHIPPED3 = [str(DESIGNS / f"{n}.yaml") for n in ("aws_nvl36x2", "gb200_nvl72", "dgx_h100_su")]


@pytest.fixture(scope="module")
def book(catalog):
    return load_prices(catalog=catalog)


def test_mixed_scopes_not_ranked(catalog, book):
    cmp = compare(SHIPPED3, book, catalog)
    s = cmp.scope
    assert not s.comparable and not s.ranked
    assert s.scopes["aws_nvl36x2"] == "none" and s.scopes["gb200_nvl72"] == "full"
    rows = {r["metric"]: r for r in cmp.rows()}
    assert rows["usd_per_dense_pflop_year_bf16"]["ranking"] == "not ranked: mixed capex scopes"
    assert rows["usd_per_gpu_hour"]["ranking"].startswith("not ranked")
    assert rows["gpus"]["ranking"] == ""  # only cost metrics are ranked
    # what to price to reach 'full': everything still unpriced in the SU
    assert {"nvidia-mms4x00-ns", "fibre-link", "generic-42u-air-rack"} <= set(
        s.missing["dgx_h100_su"])
    assert "aws-gb200-compute-tray" in s.missing["aws_nvl36x2"]
    assert "To compare at scope full, price" in s.message


def test_allow_mixed_ranks_flagged(catalog, book):
    cmp = compare(SHIPPED3[1:], book, catalog, allow_mixed_scope=True)
    rows = {r["metric"]: r for r in cmp.rows()}
    # GB200 5,233 $/PF-yr vs DGX (systems + switches): ranked, flagged as mixed
    assert rows["usd_per_dense_pflop_year_bf16"]["ranking"] == "lowest: gb200_nvl72 (mixed scopes)"


def test_charts_leave_lower_bounds_out(catalog, book):
    charts = {r["option"]: r for r in compare(SHIPPED3, book, catalog).chart_rows()}
    dgx = charts["dgx_h100_su [systems]"]
    aws = charts["aws_nvl36x2 [none]"]
    nvl = charts["gb200_nvl72 [full]"]
    assert dgx["peak_dense_pflops_bf16_per_musd_capex"] is None  # lower bound: left out
    assert aws["energy_usd_tco"] is None  # unknown capex: no (cheap-looking) TCO bar at all
    rack = book.get("nvidia-gb200-nvl72-rack").usd  # 180 PFLOPS BF16 per rack / its price
    assert nvl["peak_dense_pflops_bf16_per_musd_capex"] == pytest.approx(180 / (rack / 1e6),
                                                                         abs=1e-3)
    assert nvl["bounds"] == {}  # complete capex: no bound anywhere
    allowed = compare(SHIPPED3[1:], book, catalog, allow_mixed_scope=True).chart_rows()
    dgx = allowed[1]  # drawn; each figure marked by what a lower-bound capex makes it
    assert dgx["option"] == "dgx_h100_su [systems]"
    assert dgx["bounds"]["peak_dense_pflops_bf16_per_musd_capex"] == "upper"
    assert "peak_dense_pflops_bf16_per_facility_mw" not in dgx["bounds"]


def test_same_scope_is_ranked(catalog, book):
    """Two chips, both priced as chips (gpus-only): ranked. H100 $8,293 vs B200 HGX
    35,000 + facility 1.0 kW x 11.7M/MW x 1/3 = 3,900 + 5 x (1.58 x 8760 x 0.0806 + 1,750)
    = 53,227.9 / (2.25 PF x 5) = $4,731 per PF-year."""
    cmp = compare(["nvidia-h100-sxm5", "nvidia-b200-hgx"], book, catalog)
    assert cmp.scope.comparable and cmp.scope.scope == "gpus-only"
    rows = {r["metric"]: r for r in cmp.rows()}
    assert rows["usd_per_dense_pflop_year_bf16"]["nvidia-b200-hgx"] == 4731
    assert rows["usd_per_dense_pflop_year_bf16"]["ranking"] == "lowest: nvidia-b200-hgx"


@pytest.mark.parametrize("price", [0.12, 0.0])
def test_compare_xlsx_recalculated_after_energy_edit(tmp_path, run_cli, catalog, book, price):
    """compare.xlsx with the default energy price, then 'energy_usd_per_kwh' typed in:
    every live figure equals `infra compare --energy-price <price>`."""
    r = run_cli("compare", *SHIPPED3[1:], "nvidia-h100-sxm5", "--report", "xlsx",
                "--name", "compare", "-o", str(tmp_path))
    assert r.exit_code == 0, r.output
    path = tmp_path / "compare.xlsx"
    wb = openpyxl.load_workbook(path)
    assert wb.defined_names["energy_usd_per_kwh"].attr_text == "Inputs!$B$2"
    v = recalc(path, keep=("Inputs", "TCO", "Capex lines"), edits={("Inputs", "B2"): price})
    j = run_cli("compare", *SHIPPED3[1:], "nvidia-h100-sxm5", "--energy-price", str(price),
                "--format", "json")
    want = {o["label"]: o["metrics"] for o in json.loads(j.output)["options"]}
    ws = wb["TCO"]
    header = tco_columns("bf16")
    for row in ws.iter_rows(min_row=2, max_row=1 + len(want)):
        label = row[0].value
        got = {h: v[("TCO", c.coordinate)] for h, c in zip(header, row)}
        m = want[label]
        assert got["energy_usd_per_year"] == pytest.approx(m["energy_usd_per_year"], abs=0.5)
        assert got["tco_usd"] == pytest.approx(m["tco_usd_5y"], abs=0.5)
        assert got["usd_per_dense_pflop_year_bf16"] == pytest.approx(
            m["usd_per_dense_pflop_year_bf16"], abs=0.5)
        assert got["usd_per_gpu_hour"] == pytest.approx(m["usd_per_gpu_hour"], abs=5e-4)


def test_years_and_discount_cells(tmp_path, catalog, book):
    """Years 3 and an 8 % discount rate typed into the sheet = the tool with them."""
    from infra.reports.compare_xlsx import write_compare_xlsx

    path = write_compare_xlsx(compare(SHIPPED3[1:2], book, catalog).as_dict(),
                              tmp_path / "c.xlsx")
    v = recalc(path, keep=("Inputs", "TCO", "Capex lines"),
               edits={("Inputs", "B5"): 3, ("Inputs", "B7"): 0.08})
    t = compare(SHIPPED3[1:2], book, catalog,
                CostAssumptions(years=3, discount_rate=0.08)).options[0].tco
    header = tco_columns("bf16")
    col = lambda h: openpyxl.utils.get_column_letter(header.index(h) + 1)  # noqa: E731
    assert v[("TCO", f"{col('tco_usd')}2")] == pytest.approx(t.tco_usd, abs=0.5)
    assert v[("TCO", f"{col('usd_per_gpu_hour')}2")] == pytest.approx(t.usd_per_gpu_hour, abs=1e-4)
