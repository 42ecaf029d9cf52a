"""infra compare: chip and system figures checked by hand against the catalog values.

Catalog values used (hardware-facts.md §1):
  H100 SXM5   : BF16 989 TF, FP8 1,979 TF, 80 GB, 3.35 TB/s, 700 W, MAMF 794.5 (v2), $27,500
  B200 HGX    : BF16 2,250 TF, FP4 9,000 TF, 180 GB, 8.0 TB/s, 1,000 W, $35,000
  Gaudi 3     : BF16 1,677 TF (1,835 x 1,600 / 1,750 MHz), 128 GB, 3.67 TB/s, 900 W, 7 peers x 75 GB/s,
                $15,625
  GB200 NVL72 : 72 x B200 (2,500 TF BF16), PUE 1.2, rack $3.5M; IT 122.16 kW =
                18 trays x (2 x 2,650 W GB200 + 4 x 25 W CX-7 + 2 x 150 W BlueField-3 + 450 W
                overhead = 6,150 W) + 9 x 1,240 W switch trays + 2 x 150 W SN2201
"""

from __future__ import annotations

import json
import math

import pytest

from infra.analysis.cost.compare import compare
from infra.analysis.cost.target import parse_target
from infra.analysis.cost.tco import CostAssumptions
from infra.errors import CompareError, PriceError
from infra.models.prices import load_prices

from pathlib import Path

DESIGNS = Path(__file__).resolve().parents[1] / "designs"

NVL72 = str(DESIGNS / "gb200_nvl72.yaml")
AWS = str(DESIGNS / "aws_nvl36x2.yaml")
DGX = str(DESIGNS / "dgx_h100_su.yaml")


@pytest.fixture(scope="module")
def book(catalog):
    return load_prices(catalog=catalog)


def _m(cmp, i=0):
    return cmp.options[i].metrics


def test_chip_figures_by_hand(catalog, book):
    cmp = compare(["nvidia-h100-sxm5", "nvidia-b200-hgx", "intel-gaudi3-hl325l"], book, catalog)
    h, b, g = (_m(cmp, i) for i in range(3))
    # ridge point = TFLOPS / (TB/s): H100 989 / 3.35 = 295.2 FLOP/byte; FP8 1979 / 3.35 = 590.7
    assert h["ridge_flop_per_byte_bf16"] == pytest.approx(295.2, abs=0.05)
    assert h["ridge_flop_per_byte_fp8"] == pytest.approx(590.7, abs=0.05)
    assert h["ridge_flop_per_byte_fp4"] is None  # 0 TF: not supported, no ridge point
    # B200: 2250 / 8 = 281.25; FP4 9000 / 8 = 1125
    assert b["ridge_flop_per_byte_bf16"] == pytest.approx(281.2, abs=0.06)
    assert b["ridge_flop_per_byte_fp4"] == pytest.approx(1125.0)
    # Gaudi 3: 1677 / 3.67 = 456.95
    assert g["ridge_flop_per_byte_bf16"] == pytest.approx(456.9, abs=0.06)
    # TFLOPS per W: 989 / 700 = 1.4129; 2250 / 1000 = 2.25; 1677 / 900 = 1.8633
    assert h["peak_dense_tflops_bf16_per_w"] == pytest.approx(1.4129, abs=1e-4)
    assert b["peak_dense_tflops_bf16_per_w"] == pytest.approx(2.25)
    assert g["peak_dense_tflops_bf16_per_w"] == pytest.approx(1.8633, abs=1e-4)
    # TFLOPS per $1,000: 989 / 27.5 = 35.96; 2250 / 35 = 64.29; 1677 / 15.625 = 107.33
    assert h["peak_dense_tflops_bf16_per_1000_usd"] == pytest.approx(35.96, abs=0.01)
    assert b["peak_dense_tflops_bf16_per_1000_usd"] == pytest.approx(64.29, abs=0.01)
    assert g["peak_dense_tflops_bf16_per_1000_usd"] == pytest.approx(107.33, abs=0.01)
    # vendor HBM GB (GiB-sized) per $1,000: 80 / 27.5 = 2.909; 128 / 15.625 = 8.192
    assert h["hbm_gib"] == 80 and g["hbm_gib"] == 128
    assert h["hbm_gib_per_1000_usd"] == pytest.approx(2.909, abs=1e-3)
    assert g["hbm_gib_per_1000_usd"] == pytest.approx(8.192, abs=1e-3)
    # achievable: only BF16 MAMF; 794.5 / 989 = 0.8033
    assert h["achievable_tflops_bf16"] == 794.5
    assert h["mamf_bf16_efficiency_fraction"] == pytest.approx(0.8033, abs=1e-4)
    # B200 (HGX): stas00's v2 MAMF table 1,745.0 TF; 1,745 / 2,250 = 0.7756
    assert b["achievable_tflops_bf16"] == 1745.0
    assert b["mamf_bf16_efficiency_fraction"] == pytest.approx(0.7756, abs=1e-4)
    # scale-up: H100 18 x 25 = 450 GB/s per direction, domain 8 (DGX H100);
    # Gaudi 3 7 x 75 = 525 GB/s, mesh of 7 peers -> 8; B200 HGX 8 on the HGX board
    assert h["scale_up_gbyte_s_per_gpu"] == 450 and h["largest_scale_up_domain_gpus"] == 8
    assert g["scale_up_gbyte_s_per_gpu"] == 525 and g["largest_scale_up_domain_gpus"] == 8
    assert b["largest_scale_up_domain_gpus"] == 8
    assert _m(compare(["nvidia-b200-gb200"], book, catalog))["largest_scale_up_domain_gpus"] == 72


def test_chip_cost_by_hand(catalog, book):
    m = _m(compare(["nvidia-h100-sxm5"], book, catalog))
    # energy: 0.7 kW x PUE 1.58 x 8,760 h x $0.0806 = $780.9 per year
    assert m["energy_usd_per_year"] == 781
    # facility: 0.0007 MW x $11.7M/MW x 5/15 years of the building's life = $2,730
    assert m["facility_usd"] == 2730
    # TCO 5 y: 27,500 + 2,730 + 5 x (780.90 + 0.05 x 27,500) = 41,009.5; / (0.989 PF x 5 y)
    # = 8,293; per GPU-hour: 41,009.5 / (8,760 h x 5 y) = $0.936
    assert m["tco_usd_5y"] == pytest.approx(41009.5, abs=1)
    assert m["usd_per_dense_pflop_year_bf16"] == 8293
    assert m["usd_per_gpu_hour"] == pytest.approx(0.936, abs=1e-3)
    assert m["capex_scope"] == "gpus-only"  # a chip is priced as a chip, never a system
    unpriced = _m(compare(["amd-mi300x"], book, catalog))
    assert unpriced["price_usd"] is None and unpriced["capex_usd"] is None
    assert unpriced["tco_usd_5y"] is None  # unknown stays unknown


def test_nvl72_system_figures_by_hand(catalog, book):
    m = _m(compare([NVL72], book, catalog))
    # IT = 122.16 kW of DC load / 0.975 (the MGX shelves' AC->DC loss) = 125.2923 kW;
    # facility x 1.2 = 150.3508 kW; 180 PF / 0.1503508 MW = 1,197.20 PF/MW
    assert m["facility_power_kw"] == pytest.approx(122.16 / 0.975 * 1.2, abs=0.01)
    assert m["peak_dense_pflops_bf16_per_facility_mw"] == pytest.approx(1197.20, abs=0.01)
    assert m["gpus_per_facility_mw"] == pytest.approx(72 / 0.1503508, abs=0.01)  # 478.88
    assert m["floor_tiles"] == 2  # 1 rack x 2 tiles
    # capex: the populated rack $3.5M covers its contents; nothing else is listed
    assert m["capex_usd"] == 3_500_000 and m["capex_is_lower_bound"] is False
    assert m["capex_integrated_rack_system_usd"] == 3_500_000
    # (with 102.6 kW IT:) energy 123.12 x 8760 x 0.0806 = 86,929.6; facility 0.1026 MW x $11.7M x 5/15 = 400,140
    # TCO = 3.5M + 400,140 + 5 x (86,929.6 + 175,000) = 5,209,788; / (180 x 5) = 5,789 $/PF-yr
    # (maintenance 5 % a year of the $3.5M capex = 175,000).
    # Written on the design's IT power so a new power figure keeps the arithmetic checked:
    it = m["it_power_kw"]  # 122.16 kW today
    energy = it * 1.2 * 8760 * 0.0806
    tco = 3_500_000 + it / 1000 * 11_700_000 * 5 / 15 + 5 * (energy + 175_000)
    assert m["energy_usd_per_year"] == pytest.approx(energy, abs=0.5)
    assert m["facility_usd"] == pytest.approx(it / 1000 * 11_700_000 / 3, abs=0.5)
    assert m["tco_usd_5y"] == pytest.approx(tco, abs=1)
    assert m["usd_per_dense_pflop_year_bf16"] == round(tco / 900)
    assert m["usd_per_gpu_hour"] == pytest.approx(tco / (72 * 8760 * 5), abs=1e-3)
    assert m["capex_scope"] == "full" and m["capex_completeness_fraction"] == 1.0


def test_dgx_capex_is_lower_bound_with_unpriced_parts(catalog, book):
    cmp = compare([DGX], book, catalog)
    m = _m(cmp)
    # 32 DGX H100 systems x $270,000 (their H100s included) + 12 QM9700 x $36,000
    assert m["capex_usd"] == 32 * 270_000 + 12 * 36_000
    assert m["capex_is_lower_bound"] is True and m["unpriced_sku_count"] > 0
    assert m["capex_scope"] == "systems"
    lines = [r for r in cmp.capex_rows() if r["status"] == "unpriced"]
    assert {"nvidia-mms4x00-ns", "generic-42u-air-rack"} <= {r["sku"] for r in lines}
    gpu = next(r for r in cmp.capex_rows() if r["sku"] == "nvidia-h100-sxm5")
    assert gpu["status"] == "included" and gpu["included_in"] == "nvidia-dgx-h100"


def test_assumptions_flags_override(catalog, book):
    a = CostAssumptions(energy_usd_per_kwh=0.12, pue=1.1, years=3,
                        maintenance_fraction_per_year=0.0)
    m = _m(compare([NVL72], book, catalog, a))
    # (with 102.6 kW IT:) 102.6 x 1.1 = 112.86 kW x 8760 x 0.12 = 118,638.43; facility 0.1026 x 11.7M x 3/15
    # = 240,084; TCO = 3.5M + 240,084 + 3 x 118,638.43 (on the design's IT power)
    it = m["it_power_kw"]
    energy = it * 1.1 * 8760 * 0.12
    assert m["energy_usd_per_year"] == pytest.approx(energy, abs=0.5)
    assert m["tco_usd_3y"] == pytest.approx(3_500_000 + it / 1000 * 11.7e6 * 3 / 15 + 3 * energy,
                                            abs=1)
    items = {r["item"]: r for r in compare([NVL72], book, catalog, a).assumptions}
    assert items["PUE"]["value"] == 1.1 and items["years (TCO horizon)"]["value"] == 3
    with pytest.raises(CompareError, match="PUE"):
        CostAssumptions(pue=0.9)


@pytest.mark.parametrize("path", [NVL72, AWS, DGX])
def test_target_round_trip(catalog, book, path):
    """Sizing a design to its own capacity gives back the design."""
    own = _m(compare([path], book, catalog))
    # power targets fit whole blocks under the limit (floor); the printed figures are
    # rounded to 0.01 kW, so add 0.01 kW lest the limit sit a hair below the exact power
    up = lambda kw: round(kw + 0.01, 2)  # noqa: E731
    for text in (f"{own['peak_dense_pflops_bf16']} PFLOPS bf16",
                 f"{up(own['facility_power_kw'])} kW", f"{up(own['it_power_kw'])} kW IT"):
        m = _m(compare([path], book, catalog, target=parse_target(text)))
        assert m["sized_blocks"] == 1, text
        assert m["sized_gpus"] == own["gpus"] and m["sized_racks"] == own["racks"]
        assert m["sized_capex_usd"] == own["capex_usd"]
        assert m["sized_tco_usd"] == own["tco_usd_5y"]


def test_target_sizing_by_hand(catalog, book):
    t = parse_target("1 EFLOPS bf16")
    cmp = compare(["nvidia-h100-sxm5", NVL72, DGX], book, catalog, target=t)
    h, n, d = (_m(cmp, i) for i in range(3))
    assert h["sized_blocks"] == math.ceil(1000 / 0.989) == 1012
    assert h["sized_capex_usd"] == 1012 * 27_500
    assert n["sized_blocks"] == math.ceil(1000 / 180) == 6 and n["sized_racks"] == 6
    assert n["sized_capex_usd"] == 6 * 3_500_000
    assert d["sized_blocks"] == 4 and d["sized_gpus"] == 1024  # 4 SUs of 253.184 PF
    # 50 MW facility: floor(50 / 0.1503508) = 332 NVL72 racks (122.16 / 0.975 x 1.2 each)
    m = _m(compare([NVL72], book, catalog, target=parse_target("50 MW")))
    assert m["sized_blocks"] == 332 and m["sized_gpus"] == 332 * 72


@pytest.mark.parametrize("text", ["1 parsec", "ten MW", "-5 MW", "1 EFLOPS fp12", "5 MW cold"])
def test_bad_target(text):
    with pytest.raises(CompareError):
        parse_target(text)


def test_aws_vs_nvl72_one_table_shows_differences(catalog, book):
    cmp = compare([AWS, NVL72], book, catalog)
    rows = {r["metric"]: r for r in cmp.rows()}
    differ = {k for k, r in rows.items() if r["differs"]}
    for k in ("racks", "scale_up_domain_split", "cooling_units", "power_shelves",
              "it_power_kw_per_rack", "scale_out_gbit_s_per_gpu_nominal",
              "nvlink_switch_tray_failure_gpus_lost", "capex_usd"):
        assert k in differ, k
    assert rows["nvlink_switch_tray_failure_gpus_lost"]["aws_nvl36x2"] == 36
    assert rows["nvlink_switch_tray_failure_gpus_lost"]["gb200_nvl72"] == 72
    assert rows["capex_usd"]["aws_nvl36x2"] is None  # nothing in that design is priced
    assert "gpus" not in differ and "scale_up_domain_gpus" not in differ


def test_cli_table_json_csv_and_reports(run_cli, tmp_path):
    r = run_cli("compare", AWS, NVL72, "--report", "md", "--report", "xlsx", "-o", str(tmp_path))
    assert r.exit_code == 0, r.output
    assert "scale_up_domain_split" in r.output and "Assumptions:" in r.output
    md = (tmp_path / "compare-aws_nvl36x2-vs-gb200_nvl72.md").read_text()  # named from inputs
    assert "## Assumptions" in md and "aws_nvl36x2" in md
    from openpyxl import load_workbook

    wb = load_workbook(tmp_path / "compare-aws_nvl36x2-vs-gb200_nvl72.xlsx")
    assert {"Comparison", "Capex lines", "Assumptions", "Charts"} <= set(wb.sheetnames)
    assert len(wb["Charts"]._charts) == 4
    j = run_cli("compare", "nvidia-h100-sxm5", "--format", "json", "--target", "1 EFLOPS")
    data = json.loads(j.output)
    assert data["target"] == "1000 PFLOPS dense bf16"
    assert data["options"][0]["metrics"]["sized_blocks"] == 1012
    c = run_cli("compare", "nvidia-h100-sxm5", "nvidia-dgx-h100", "--format", "csv")
    assert c.output.splitlines()[0].startswith("section,metric,nvidia-h100-sxm5,nvidia-dgx-h100")


@pytest.mark.parametrize("args,text", [
    (("nvidia-h100-sxm", ), "nvidia-h100-sxm5"),
    (("nvidia-h100-sxm5", "--target", "1 parsec"), "unknown unit 'parsec'"),
    (("nvidia-grace",), "compare takes GPUs"),
    (("designs/nope.yaml",), "not found"),
    (("nvidia-h100-sxm5", "--pue", "0.5"), "PUE"),
])
def test_cli_errors_exit_2(run_cli, args, text):
    r = run_cli("compare", *args)
    assert r.exit_code == 2
    assert text in r.output


def test_price_file_override_and_unknown_slug(catalog, tmp_path):
    mine = tmp_path / "mine.yaml"
    mine.write_text(
        "as_of: 2026-01-01\ncurrency: USD\nprices:\n"
        "  - {slug: nvidia-h100-sxm5, usd: 20000, basis: street, date: 2026-01-01,\n"
        "     source: {title: my quote, url: https://example.com/q, tag: 3P}}\n")
    book = load_prices([mine], catalog)
    assert book.get("nvidia-h100-sxm5").usd == 20000
    assert book.get("nvidia-b200-hgx").usd == 35000  # defaults kept
    bad = tmp_path / "bad.yaml"
    bad.write_text(mine.read_text().replace("nvidia-h100-sxm5", "nvidia-h100-sxm6"))
    with pytest.raises(PriceError, match="unknown catalog slug") as e:
        load_prices([bad], catalog)
    assert "nvidia-h100-sxm5" in str(e.value) and e.value.line == 4


def test_prices_years_apart_are_named(catalog, book):
    """A 2023 price beside a 2026 one is not like for like in date (accuracy-audit-3 row 17):
    the assumptions say so. DGX H100 $270k is dated 2023-05-01, the GB200 NVL72 rack $3.5M
    2026-05-01: 1,096 days / 365.25 = 3.0 years."""
    items = {r["item"]: r for r in compare([DGX, NVL72], book, catalog).assumptions}
    row = items["price dates"]
    assert row["value"] == "2023-05-01 to 2026-05-01"
    assert "nvidia-dgx-h100 is priced 3.0 years before nvidia-gb200-nvl72-rack" in row["source"]
    # one generation's prices alone: no such row (DGX B200 2025-03-16 with QM9700 2024-08-22:
    # 206 days apart)
    same = {r["item"] for r in compare([str(DESIGNS / "dgx_b200_su.yaml")], book, catalog).assumptions}
    assert "price dates" not in same
