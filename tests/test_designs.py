"""Shipped designs against figures computed by hand from the catalog's datasheet values."""

from __future__ import annotations

import json

import openpyxl
import pytest

from conftest import DESIGNS


def test_aws_nvl36x2_counts(aws):
    m = aws.metrics()
    # 2 racks x 9 trays = 18 trays; x 2 GB200 = 36 superchips = 36 Grace + 72 B200
    assert (m["racks"], m["compute_trays"], m["cpus"], m["gpus"]) == (2, 18, 36, 72)
    bom = {r.slug: r.count for r in aws.bom}
    assert bom["aws-nitro-400g"] == 18 * 8  # 8 x 400G Nitro per tray
    assert bom["aws-nitro-200g-dpu"] == 18
    assert bom["nvidia-nvlink5-switch-tray"] == 2 * 9
    assert bom["nvidia-nvlink5-switch-chip"] == 2 * 9 * 2  # 36 chips, vs 18 in NVL72
    assert bom["aws-in-rack-tor"] == 2 * 6


def test_aws_nvl36x2_compute(aws):
    m = aws.metrics()
    # HBM: 72 x 186 GB = 13,392 vendor GB, which are GiB (NVIDIA's "13.4 TB" is that sum / 1,000)
    # = 13,392 x 2^30 B = 14.38 x 10^12 B (GB200 page: 372 GB per superchip)
    assert m["hbm_gib"] == 13392
    assert m["hbm_tbyte"] == pytest.approx(14.38, abs=1e-3)
    # 72 x 8 TB/s = 576 TB/s (NVL72 page: 576 TB/s)
    assert m["hbm_tbyte_s"] == pytest.approx(576)
    # dense: 72 x 2,500 TF BF16 = 180 PF; FP8 72 x 5,000 = 360 PF; FP4 72 x 10,000 = 720 PF
    assert m["peak_dense_pflops_bf16"] == pytest.approx(180)
    assert m["peak_dense_pflops_fp8"] == pytest.approx(360)
    assert m["peak_dense_pflops_fp4"] == pytest.approx(720)
    # GB200 MAMF (stas00 v2 table, a published measurement): 72 x 1,822 TF = 131.184 PF
    assert m["achievable_pflops_bf16"] == pytest.approx(131.184)
    assert aws.compute.gpus_without_mamf == {}


def test_aws_nvl36x2_power(aws):
    m = aws.metrics()
    # per tray: 2 x 2,650 W GB200 (NVIDIA PRS budget) + 8 x 25 W Nitro 400G [est] + 150 W
    # Nitro DPU [est] + 4 x 50 W PCIe switches [est] + 500 W overhead [est] = 6,350 W
    # per rack: 9 x 6.35 + 9 x 1.24 kW switch trays + 6 x 274 W ToRs [est] = 69.954 kW
    # two racks 139.908 kW + cross-rack NVLink copper: 648 links x 1.5 W [est] = 0.972 kW
    # -> 140.88 kW; facility x PUE 1.2 = 169.056 kW
    assert m["it_power_kw"] == pytest.approx(140.88)
    assert m["facility_power_kw"] == pytest.approx(169.056)
    # liquid: superchips and switch trays: 2 x (9 x 5.3 + 9 x 1.24) = 117.72 kW
    assert m["liquid_heat_kw"] == pytest.approx(117.72)
    assert m["power_unknown_parts_count"] == 0 and not aws.power.unknown  # no silent 0 W


def test_aws_irhx_count_unknown_not_guessed(aws):
    (row,) = aws.cooling.rows
    assert row.unit == "aws-irhx" and row.needed is None
    bom = {r.slug: r.count for r in aws.bom}
    assert bom["aws-irhx"] is None  # unknown stays unknown in the BOM, never a guessed 1
    assert row.heat_kw == pytest.approx(117.72)  # 2 x (9 x 5.3 + 9 x 1.24)


def test_nvl72_figures(nvl72):
    m = nvl72.metrics()
    # 18 trays x 4 B200 = 72 GPUs, 36 Grace
    assert (m["gpus"], m["cpus"], m["racks"], m["compute_trays"]) == (72, 36, 1, 18)
    # tray: 2 x 2,650 W GB200 (NVIDIA PRS) + 4 x 25 W CX-7 [est] + 2 x 150 W BlueField-3
    # + 450 W overhead [est] = 6,150 W; rack 18 x 6.15 + 9 x 1.24 switch trays + 2 x 0.15
    # SN2201 = 110.7 + 11.16 + 0.3 = 122.16 kW of DC load (NVIDIA ~120 kW); at the feeds,
    # through the MGX shelves at 97.5 %: 122.16 / 0.975 = 125.2923 kW
    assert m["it_power_kw"] == pytest.approx(122.16 / 0.975)
    # liquid: superchips + CX-7 (tuning guide: CX7 liquid-cooled) 18 x 5.4 + switch trays
    # 11.16 = 108.36 kW; air 18 x (0.3 + 0.45) + 0.3 = 13.8 kW + the shelves' loss
    # 122.16 / 0.975 - 122.16 = 3.1323 kW (heat in the rack's air) = 16.9323 kW
    assert m["liquid_heat_kw"] == pytest.approx(108.36)
    assert m["air_heat_kw"] == pytest.approx(13.8 + 122.16 / 0.975 - 122.16)
    (rack,) = nvl72.power.racks
    assert rack.supply_kw == 8 * 33  # 8 x 33 kW power shelves = 264 kW installed
    assert rack.supply.usable_kw == 4 * 33  # N+N: one feed's 4 shelves = 132 kW usable
    assert rack.supply.survives_feed_loss is True  # 122.16 <= 132
    cdu = next(r for r in nvl72.cooling.rows if r.unit == "supermicro-gb300-in-rack-cdu")
    assert cdu.capacity_kw == 250 and cdu.needed == 1  # ceil(108.36 / 250) = 1


def test_json_and_xlsx_reports_agree(tmp_path, run_cli):
    res = run_cli("design", str(DESIGNS / "aws_nvl36x2.yaml"), "--report", "json",
                  "--report", "xlsx", "-o", str(tmp_path), "-q")
    assert res.exit_code == 0, res.output
    data = json.loads((tmp_path / "aws_nvl36x2.json").read_text())
    for key in ["gpus", "cpus", "racks", "compute_trays", "hbm_tbyte", "peak_dense_pflops_bf16",
                "peak_dense_pflops_fp8", "peak_dense_pflops_fp4", "it_power_kw",
                "facility_power_kw"]:
        assert key in data["metrics"]
    assert data["design"]["source_file"].endswith("aws_nvl36x2.yaml")
    wb = openpyxl.load_workbook(tmp_path / "aws_nvl36x2.xlsx")
    ws = wb["Summary"]
    sheet = {r[4]: r[1] for r in ws.iter_rows(min_row=5, values_only=True)}  # Field column
    from xlsx_recalc import recalc  # capex cells are formulas on the BOM: recalculate them

    values = recalc(tmp_path / "aws_nvl36x2.xlsx", keep=("Summary", "Bill of materials"))
    for r in ws.iter_rows(min_row=5):
        if isinstance(r[1].value, str) and r[1].value.startswith("="):
            sheet[r[4].value] = values[("SUMMARY", r[1].coordinate)]
    for key, value in data["metrics"].items():
        assert sheet[key] == value, key
    bom = wb["Bill of materials"]
    header = [c.value for c in bom[1]]
    n = len(data["tables"]["bill_of_materials"])
    rows = [dict(zip(header, [values.get(("BILL OF MATERIALS", c.coordinate), c.value)
                              if isinstance(c.value, str) and c.value.startswith("=") else c.value
                              for c in r]))
            for r in bom.iter_rows(min_row=2, max_row=n + 1)]
    assert [{k: r[k] for k in d} for r, d in zip(rows, data["tables"]["bill_of_materials"])] == \
        data["tables"]["bill_of_materials"]


def test_fp4_zero_where_unsupported(catalog):
    from collections import Counter

    from infra.analysis.compute import aggregate

    # a GPU with fp4: 0 (unsupported) sums to 0, an unknown precision gives None
    b200 = catalog.get("nvidia-b200-gb200")
    fake = b200.model_copy(update={"peak_dense_tflops": b200.peak_dense_tflops.model_copy(
        update={"fp4": 0.0, "fp6": None})})
    s = aggregate(Counter({"x": 2}), {"x": fake})
    assert s.peak_dense_pflops["fp4"] == 0
    assert s.peak_dense_pflops["fp6"] is None


def test_achievable_bf16_set_for_every_shipped_gpu_design():
    """Issue 28 item 2: achievable_pflops_bf16 was empty where a GPU had no published
    MAMF. GB300, MI350X and the 96 GB GH200 now carry an estimate tagged `estimate`,
    its method in the source and choices, and the design report says so.

    GB300 NVL72: 72 x 1,847.1 TF (HGX B300 1,769.0 x GB200/B200 1,822.0/1,745.0) = 132.99 PF.
    DGX GH200: 256 x 794.5 TF (H100 SXM5's measured MAMF, same 989 TF peak) = 203.39 PF.
    MI350X: 2,306.9 x 1,565.0 / 2,516.6 (MI355X's measured 62.2 % of peak) = 1,434.6 TF.
    """
    from infra.analysis.summary import analyze_file
    from infra.models.catalog import load_catalog

    cat = load_catalog()
    assert 1769.0 * 1822.0 / 1745.0 == pytest.approx(1847.1, abs=0.05)
    assert 2306.9 * 1565.0 / 2516.6 == pytest.approx(1434.6, abs=0.05)
    for slug, mamf in (("nvidia-b300-gb300", 1847.1), ("amd-mi350x", 1434.6),
                       ("nvidia-h100-gh200", 794.5)):
        g = cat.get(slug)
        assert g.mamf_bf16_tflops == mamf and g.source_of("mamf_bf16_tflops").tag == "estimate"
        assert "estimate" in g.choices["mamf_bf16_tflops"]
    gb300 = analyze_file(DESIGNS / "gb300_nvl72.yaml", cat)
    assert gb300.metrics()["achievable_pflops_bf16"] == pytest.approx(72 * 1847.1 / 1000)
    (row,) = [r for r in gb300.tables()["assumptions"] if "estimated MAMF" in r["item"]]
    assert row["value"] == "72 x nvidia-b300-gb300: 1847.1 TF" and row["source"].startswith("[estimate]")
    gh200 = analyze_file(DESIGNS / "dgx_gh200_256.yaml", cat)
    assert gh200.metrics()["achievable_pflops_bf16"] == pytest.approx(256 * 794.5 / 1000)
    # every shipped design whose chips are GPUs (TPU v5p and Trainium2 are not: no MAMF
    # method is defined for them yet)
    for d in sorted(DESIGNS.glob("*.yaml")):
        if d.stem in ("tpu_v5p_pod", "trn2_ultraserver"):
            continue
        a = analyze_file(d, cat)
        assert a.metrics()["achievable_pflops_bf16"] is not None, d.stem
        assert a.compute.gpus_without_mamf == {}, d.stem
