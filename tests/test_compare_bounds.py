"""Bound marks: what a lower-bound capex (or IT power) makes each derived figure.

dgx_h100_su with the shipped prices: DGX systems and QM9700 switches priced; optics,
fibres, racks, PDUs and room cooling unpriced, so its capex is a lower bound (the true
capex is at least the priced sum). Then (the direction of each figure in capex):
  capex, capex by category, maintenance (= 5 % x capex)      grow with capex -> lower bound
  TCO, NPV, $ per PFLOP-year, $ per GPU-hour (capex + ...)    grow with capex -> lower bound
  PFLOPS per $M of capex (PFLOPS / capex)                     shrink          -> upper bound
  energy, facility, PFLOPS / GPUs / racks per facility MW     no capex in them -> no bound
"""

from __future__ import annotations

import openpyxl
import pytest

from conftest import DESIGNS
from infra.analysis.cost.compare import compare
from infra.analysis.cost.compare_bounds import bound_of, marked
from infra.models.prices import load_prices

DGX, NVL72 = str(DESIGNS / "dgx_h100_su.yaml"), str(DESIGNS / "gb200_nvl72.yaml")

LOWER = ["capex_usd", "capex_compute_usd", "capex_network_switches_usd",
         "maintenance_usd_per_year", "tco_usd_5y", "usd_per_dense_pflop_year_bf16",
         "usd_per_gpu_hour"]
NONE = ["energy_usd_per_year", "facility_usd", "peak_dense_pflops_bf16_per_facility_mw",
        "gpus_per_facility_mw", "racks_per_facility_mw", "it_power_kw", "gpus",
        "peak_dense_pflops_bf16", "capex_completeness_fraction", "unpriced_line_count"]


@pytest.fixture(scope="module")
def cmp(catalog):
    return compare([NVL72, DGX], load_prices(catalog=catalog), catalog, allow_mixed_scope=True)


def test_each_metric_mark_for_a_lower_bound_capex(cmp):
    m = cmp.options[1].metrics
    assert m["capex_is_lower_bound"] and m["power_unknown_parts_count"] == 0
    b = cmp.bounds()["dgx_h100_su"]
    for k in LOWER:
        assert m[k] is not None and b.get(k) == "lower", k
    for k in NONE:
        assert m[k] is not None and k not in b, k
    assert set(b) == set(LOWER)  # nothing else is marked
    assert cmp.bounds()["gb200_nvl72"] == {}  # complete capex: no marks at all


def test_each_chart_mark_for_a_lower_bound_capex(cmp):
    dgx = cmp.chart_rows()[1]
    assert dgx["bounds"] == {"peak_dense_pflops_bf16_per_musd_capex": "upper",
                             "capex_compute_usd": "lower", "capex_network_switches_usd": "lower",
                             "maintenance_usd_tco": "lower"}
    # drawn but unmarked: the per-MW ratio, energy and facility do not involve capex
    for k in ("peak_dense_pflops_bf16_per_facility_mw", "energy_usd_tco", "facility_usd"):
        assert dgx[k] is not None and k not in dgx["bounds"]


def test_scenarios_and_rules(cmp):
    s = {(r["option"], r["figure"]): r["bound"] for r in cmp.as_dict()["scenarios"]}
    assert s[("dgx_h100_su", "usd_per_gpu_hour")] == "lower"
    assert s[("gb200_nvl72", "tco_usd")] is None
    # IT power a lower bound (a part of unknown power): per-MW ratios become upper bounds,
    # energy a lower bound; with both inputs low, PFLOPS per $M stays an upper bound
    assert bound_of("peak_dense_pflops_bf16_per_facility_mw", {"power"}) == "upper"
    assert bound_of("energy_usd_per_year", {"power"}) == "lower"
    assert bound_of("peak_dense_pflops_bf16_per_musd_capex", {"capex", "power"}) == "upper"
    assert bound_of("usd_per_gpu_hour", {"capex", "power"}) == "lower"
    assert marked("1", "lower") == "\u2265 1" and marked("1", None) == "1"


def test_workbook_marks_are_live(tmp_path, cmp):
    """The Bounds column and the chart labels follow the capex: with every unpriced SKU
    given a price on Inputs, the DGX SU's capex is complete and its marks go."""
    from xlsx_recalc import recalc

    from infra.reports.compare_xlsx import write_compare_xlsx

    path = write_compare_xlsx(cmp.as_dict(), tmp_path / "c.xlsx")
    wb = openpyxl.load_workbook(path)
    ws = wb["Charts"]
    titles = " ".join(str(ch.title.tx.rich.p[0].r[0].t) for ch in ws._charts)
    assert "lower-bound capex left out" not in titles and "\u2264: upper bound" in titles
    head = {c.value: c.column_letter for c in ws[1]}
    keys = {r[-1].value: r[0].row for r in wb["Comparison"].iter_rows(min_row=2)}
    bcol = "F"  # Section, Figure, Unit, 2 options, Bounds
    assert wb["Comparison"]["F1"].value == "Bounds"
    unpriced = [c.row for c in wb["Inputs"]["B"][12:] if c.value is None
                and wb["Inputs"][f"A{c.row}"].value]
    assert unpriced  # optics, fibres, racks, PDUs, room cooling of the SU
    keep = ("Inputs", "TCO", "Capex lines", "Comparison", "Charts")
    for edits, lower in (({}, True), ({("Inputs", f"B{r}"): 1000 for r in unpriced}, False)):
        v = recalc(path, keep=keep, edits=edits)
        got = {k: v.get(("COMPARISON", f"{bcol}{row}")) for k, row in keys.items()}
        label = {h: v.get(("CHARTS", f"{c}3")) for h, c in head.items() if h.startswith("Label")}
        if lower:
            assert got["usd_per_gpu_hour"] == "dgx_h100_su: \u2265 (lower bound)"
            assert got["capex_usd"] == "dgx_h100_su: \u2265 (lower bound)"
            assert label["Label: PFLOPS per $M"] == "\u2264 dgx_h100_su [systems]"
            assert label["Label: TCO"] == "\u2265 dgx_h100_su [systems]"
        else:
            assert got["usd_per_gpu_hour"] is None and got["capex_usd"] is None
            assert label["Label: PFLOPS per $M"] == "dgx_h100_su [systems]"
            assert label["Label: TCO"] == "dgx_h100_su [systems]"
        assert got["gpus_per_facility_mw"] is None  # never a bound under capex
        assert label["Label: PFLOPS per MW"] == "dgx_h100_su [systems]"
