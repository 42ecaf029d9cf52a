"""Collectives in every report: key figures, the Collectives table, its charts (xlsx
native scatter charts, HTML inline SVG), compare side by side, sweep objectives."""

from __future__ import annotations

import json
import zipfile

import openpyxl
import pytest
import yaml

from conftest import DESIGNS


def test_design_json_has_key_figures_and_table(run_cli, tmp_path):
    r = run_cli("design", str(DESIGNS / "gb200_nvl72_576.yaml"), "--report", "json",
                "-o", str(tmp_path), "--no-diagrams")
    assert r.exit_code == 0, r.output
    data = json.loads((tmp_path / "gb200_nvl72_576.json").read_text())
    m, rows = data["metrics"], data["tables"]["collectives"]
    # 5 ops x 4 job sizes (8, 72, 144, 576) x 8 message sizes (1 MiB .. 16 GiB)
    assert len(rows) == 5 * 4 * 8
    assert sorted({x["gpus"] for x in rows}) == [8, 72, 144, 576]
    import infra

    (one,) = infra.collectives(DESIGNS / "gb200_nvl72_576.yaml", ops=["all_reduce"], gpus=[72],
                               sizes=[8 * 2**30])
    (whole,) = infra.collectives(DESIGNS / "gb200_nvl72_576.yaml", ops=["all_reduce"],
                                 gpus=[576], sizes=[8 * 2**30])
    assert m["allreduce_busbw_8gib_domain_gbyte_s"] == one.busbw_gbyte_s
    assert m["allreduce_busbw_8gib_design_gbyte_s"] == whole.busbw_gbyte_s


def test_workbook_sheet_and_live_charts(run_cli, tmp_path):
    r = run_cli("design", str(DESIGNS / "dgx_h100_su.yaml"), "--report", "xlsx",
                "-o", str(tmp_path), "--no-diagrams")
    assert r.exit_code == 0, r.output
    path = tmp_path / "dgx_h100_su.xlsx"
    ws = openpyxl.load_workbook(path)["Collectives"]
    header = [c.value for c in ws[1]]
    assert header[:4] == ["Op", "GPUs", "Nodes", "Size bytes"] or "op" in str(header[0]).lower()
    assert ws.max_row == 1 + 5 * 3 * 8  # dgx_h100_su: jobs of 8 (= one domain), 16, 256
    charts = [n for n in zipfile.ZipFile(path).namelist() if n.startswith("xl/charts/chart")]
    xml = [zipfile.ZipFile(path).read(n).decode() for n in charts]
    coll = [x for x in xml if "Collectives" in x]
    assert len(coll) == 5  # one per op, each series a live range of the Collectives sheet
    assert all('logBase val="2"' in x for x in coll)


def test_html_has_one_chart_per_op(run_cli, tmp_path):
    r = run_cli("design", str(DESIGNS / "mi300x_cluster.yaml"), "--report", "html",
                "-o", str(tmp_path), "--no-diagrams")
    assert r.exit_code == 0, r.output
    page = (tmp_path / "mi300x_cluster.html").read_text()
    for op in ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast"):
        start = page.index(f'<div class="chart" id="collectives-{op}">')
        assert page[start:].index("<svg") < 80 and "1,024 GPUs" in page[start:start + 20000]


def test_no_model_no_figures(run_cli, tmp_path):
    r = run_cli("design", str(DESIGNS / "gaudi3_cluster.yaml"), "--report", "json",
                "-o", str(tmp_path), "--no-diagrams")
    assert r.exit_code == 0, r.output
    data = json.loads((tmp_path / "gaudi3_cluster.json").read_text())
    assert data["tables"]["collectives"] == []
    assert data["metrics"]["allreduce_busbw_8gib_domain_gbyte_s"] is None


def test_compare_side_by_side(run_cli):
    r = run_cli("compare", str(DESIGNS / "dgx_h100_su.yaml"), str(DESIGNS / "mi300x_cluster.yaml"),
                "--format", "csv")
    assert r.exit_code == 0, r.output
    line = next(x for x in r.output.splitlines() if ",allreduce_busbw_8gib_domain_gbyte_s," in x)
    # H100: NVLS 1.07 x 450 = 481.5 GB/s busbw term (8 GiB: 481.115 with 25 us latency);
    # MI300X: ring over 7 x 48 = 336 GB/s (335.58 with latency)
    assert line.split(",")[2:4] == ["481.115", "335.58"]


LEAF_GRID = {"parameters": {"leaf": {"path": "fabrics.compute.tiers.0.oversubscription",
                                     "values": [1, 4]}}}


def _sweep_rows(run_cli, tmp_path, grid: dict):
    """Run ``grid`` over mi300x_cluster; (exit code, output, JSON rows or None)."""
    g = tmp_path / "grid.yaml"
    g.write_text(yaml.safe_dump(grid))
    r = run_cli("sweep", str(DESIGNS / "mi300x_cluster.yaml"), "--grid", str(g), "-q",
                "--report", "json", "-o", str(tmp_path))
    out = tmp_path / "mi300x_cluster.sweep.json"
    rows = json.loads(out.read_text())["rows"] if r.exit_code == 0 else None
    return r.exit_code, r.output, rows


def test_sweep_objective(run_cli, tmp_path):
    code, output, rows = _sweep_rows(run_cli, tmp_path, {
        **LEAF_GRID,
        "objectives": {"allreduce_busbw_8gib_design_gbyte_s": "max", "it_power_kw": "min"}})
    assert code == 0, output
    vals = [x["allreduce_busbw_8gib_design_gbyte_s"] for x in rows]
    # leaf 4:1 divides what crosses the spines by 4: the 1,024-GPU all-reduce slows down
    assert vals[1] < vals[0]


def test_sweep_on_training_figures(run_cli, tmp_path):
    """A grid's ``train:`` adds train_* metrics to every scenario, usable as objectives."""
    grid = {**LEAF_GRID, "train": {"model": "llama-3-8b", "tokens": 1e12},
            "objectives": {"train_days": "min", "it_power_kw": "min"}}
    code, output, rows = _sweep_rows(run_cli, tmp_path, grid)
    assert code == 0, output
    assert all(x["train_days"] > 0 for x in rows)
    # 4:1 leaves slow the data-parallel traffic that crosses the spines: never faster
    assert rows[1]["train_days"] >= rows[0]["train_days"]
    code, output, _ = _sweep_rows(run_cli, tmp_path, {**grid, "train": {"model": "llama-9",
                                                                          "tokens": 1e12}})
    assert code == 2 and "unknown model slug" in output


def test_compare_train_ranks_designs(run_cli):
    r = run_cli("compare", str(DESIGNS / "gb200_nvl72_576.yaml"), str(DESIGNS / "dgx_b200_su.yaml"),
                "--train", "llama-3-70b", "--tokens", "15e12", "--format", "csv")
    assert r.exit_code == 0, r.output
    rows = {x.split(",")[1]: x.split(",") for x in r.output.splitlines() if x.startswith("training,")}
    days = [float(v) for v in rows["train_days"][2:4]]
    assert rows["train_days"][-1] == ("lowest: gb200_nvl72_576" if days[0] < days[1]
                                      else "lowest: dgx_b200_su")
    # GPU-hours = GPUs x days x 24 for each option (576 and 256 GPUs)
    hours = [float(v) for v in rows["train_gpu_hours"][2:4]]
    assert hours[0] == pytest.approx(576 * days[0] * 24, rel=1e-3)
    assert hours[1] == pytest.approx(256 * days[1] * 24, rel=1e-3)
    bad = run_cli("compare", str(DESIGNS / "dgx_b200_su.yaml"), "--train", "llama-3-70b")
    assert bad.exit_code == 2 and "--train and --tokens go together" in bad.output
