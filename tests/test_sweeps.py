"""Scenario sweeps: grids, scenario application, failures as rows, Pareto, diffs,
executors (serial, process pool, Dask LocalCluster) giving byte-identical files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import ROOT

from infra.analysis.summary import analyze_file
from infra.analysis.cost.tco import CostAssumptions
from infra.cli.main import cli
from infra.models.prices import load_prices
from infra.models.resolve import load_design
from infra.models.yamlio import read_yaml
from infra.sweeps import Grid, diff_designs, scenarios, sweep
from infra.sweeps.pareto import pareto_front
from infra.sweeps.paths import SweepError
from infra.sweeps.scenario import analysed, scenario_metrics

AWS = ROOT / "designs" / "aws_nvl36x2.yaml"
SU = ROOT / "designs" / "gb200_nvl72_576.yaml"


def grid(**params) -> dict:
    return {"parameters": params}


def test_product_zip_and_constraints_expand_in_grid_order():
    # product of a (2) x zip(b, c) (3) = 6 combinations; the constraint drops a=1 with
    # b=20: 5 remain, numbered by position in the full product (0..5, 1 missing)
    g = Grid.model_validate({
        "parameters": {"a": {"input": "years", "values": [1, 2]},
                       "b": {"input": "pue", "values": [1.1, 1.2, 1.3]},
                       "c": {"input": "energy_usd_per_kwh", "values": [0.1, 0.2, 0.3]}},
        "zip": [["b", "c"]], "constraints": ["not (a == 1 and b == 1.2)"]})
    got = [(s.index, s.values["a"], s.values["b"], s.values["c"]) for s in scenarios(g)]
    assert g.size() == 6
    assert got == [(0, 1, 1.1, 0.1), (2, 1, 1.3, 0.3), (3, 2, 1.1, 0.1), (4, 2, 1.2, 0.2),
                   (5, 2, 1.3, 0.3)]


def test_range_is_inclusive_and_exact():
    # 0.06, 0.08, 0.10, 0.12: (0.12 - 0.06) / 0.02 + 1 = 4 values, no 0.07999999
    g = Grid.model_validate(grid(e={"input": "energy_usd_per_kwh",
                                    "range": {"start": 0.06, "stop": 0.12, "step": 0.02}}))
    assert [s.values["e"] for s in scenarios(g)] == [0.06, 0.08, 0.1, 0.12]


@pytest.mark.parametrize("bad, msg", [
    (grid(a={"input": "years", "values": [1], "path": "name"}), "exactly one of path"),
    ({"parameters": {"a": {"input": "years", "values": [1]}}, "zip": [["a", "zz"]]}, "zip names 'zz'"),
    ({"parameters": {"a": {"input": "years", "values": [1]}},
      "constraints": ["__import__('os').system('true')"]}, "uses Call"),
    ({"parameters": {"a": {"input": "years", "values": [1]}}, "constraints": ["b > 1"]},
     "names 'b', not a parameter"),
])
def test_bad_grids_are_refused(bad, msg):
    with pytest.raises(Exception, match=msg):
        Grid.model_validate(bad)


def test_pue_sweep_matches_the_design_analysis():
    # facility power = IT power x PUE: AWS NVL36x2's IT power (from infra design's own
    # analysis of the unmodified file) times 1.1 and 1.3
    it_kw = analyze_file(AWS).metrics()["it_power_kw"]
    res = sweep(AWS, grid(pue={"path": "assumptions.pue", "values": [1.1, 1.3]}))
    assert [r["status"] for r in res.rows] == ["ok", "ok"]
    for r, pue in zip(res.rows, (1.1, 1.3)):
        assert r["it_power_kw"] == pytest.approx(it_kw, abs=0.01)
        assert r["facility_power_kw"] == pytest.approx(it_kw * pue, abs=0.01)


def test_scenario_equals_the_hand_edited_design(tmp_path):
    """A scenario of the SU with 2:1 leaves gives the figures of the same edit made by
    hand in a copy of the file (differential check of path application)."""
    data = read_yaml(SU)
    data["fabrics"]["compute"]["tiers"][0]["oversubscription"] = 2
    edited = tmp_path / "gb200_nvl72_576.yaml"
    edited.write_text(yaml.safe_dump(data))
    res = sweep(SU, grid(o={"path": "fabrics.compute.tiers[0].oversubscription", "values": [2]}))
    got = {k: v for k, v in res.rows[0].items() if k not in ("scenario", "name", "o", "status", "error")}
    want = scenario_metrics(*analysed(load_design(edited), load_prices()), CostAssumptions())
    assert got == want
    # and the edit matters: the 1:1 base has more fabric switches per GPU
    base = scenario_metrics(*analysed(load_design(SU), load_prices()), CostAssumptions())
    assert base["fabric_switches_per_gpu"] > got["fabric_switches_per_gpu"]


def test_a_failed_scenario_is_a_row_not_a_lost_sweep():
    # CX-8 (800G) trays on the SU's NDR (400G) leaves: infeasible; the CX-7 row runs
    trays = ["nvidia-gb200-compute-tray", "nvidia-gb200-compute-tray-cx8"]
    res = sweep(SU, grid(tray={"path": ["racks.nvl72.contents.2.type",
                                        "racks.nvl72.contents.4.type"], "values": trays}))
    ok, bad = res.rows
    assert ok["status"] == "ok" and ok["scale_out_gbit_s_per_gpu_nominal"] == 400
    assert bad["status"] == "error" and "800 Gb/s" in bad["error"]
    assert res.errors == 1


def test_grid_path_missing_from_the_base_is_a_clear_error():
    with pytest.raises(SweepError, match="not found"):
        sweep(AWS, grid(x={"path": "racks.nope.contents.0.type", "values": ["a"]}))


def test_catalog_override_changes_the_figure():
    # AWS NVL36x2: 36 GB200 superchips at tdp_w; raising it by 300 W adds 36 x 300 W =
    # 10.8 kW of IT power (nothing else changes)
    res = sweep(AWS, {"parameters": {"tdp": {"catalog": "nvidia-gb200.tdp_w", "values": [2700, 3000]}}})
    a, b = res.rows
    assert a["status"] == b["status"] == "ok"
    assert b["it_power_kw"] - a["it_power_kw"] == pytest.approx(10.8, abs=0.01)


def test_pareto_front_by_hand():
    # c min, p max: (1,1) and (2,3) are not dominated; (2,2) is dominated by (2,3);
    # (3,3) by (2,3); an error row and a row without p never take part
    rows = [{"c": 1, "p": 1}, {"c": 2, "p": 3}, {"c": 2, "p": 2}, {"c": 3, "p": 3},
            {"c": 0, "p": 9, "status": "error"}, {"c": 0}]
    assert pareto_front(rows, {"c": "min", "p": "max"}) == [0, 1]


def test_lower_bound_capex_never_ranks():
    rows = [{"status": "ok", "capex_usd": 1, "capex_is_lower_bound": True, "p": 1},
            {"status": "ok", "capex_usd": 5, "capex_is_lower_bound": False, "p": 1}]
    assert pareto_front(rows, {"capex_usd": "min", "p": "max"}) == [1]


def test_diff_designs_names_inputs_and_figures():
    d = diff_designs(AWS, ROOT / "designs" / "gb200_nvl72.yaml")
    paths = {c.path for c in d.inputs}
    assert "racks.nvl36.type" in paths and "racks.nvl72.type" in paths
    figs = {f.metric: f for f in d.figures}
    assert figs["racks"].a == 2 and figs["racks"].b == 1 and figs["racks"].pct == -50.0


def _big_grid(tmp_path: Path) -> Path:
    # 10 PUE values (10 design analyses) x 200 energy prices = 2,000 scenarios
    g = {"parameters": {
        "pue": {"path": "assumptions.pue", "range": {"start": 1.1, "stop": 1.55, "step": 0.05}},
        "energy": {"input": "energy_usd_per_kwh", "range": {"start": 0.005, "stop": 1.0, "step": 0.005}}},
        "objectives": {"energy_usd_per_year": "min", "pue_ratio": "min"}}
    path = tmp_path / "grid.yaml"
    path.write_text(yaml.safe_dump(g, sort_keys=False))
    return path


def _run(tmp_path: Path, name: str, *args: str) -> dict[str, bytes]:
    out = tmp_path / name
    r = CliRunner().invoke(cli, ["sweep", str(AWS), "--grid", str(_big_grid(tmp_path)), "-q",
                                 "--report", "csv", "--report", "json", "--report", "xlsx",
                                 "-o", str(out), *args], obj={})
    assert r.exit_code == 0, r.output
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def test_2000_scenarios_local_pool_and_dask_are_byte_identical(tmp_path):
    serial = _run(tmp_path, "serial", "--workers", "1")
    rows = json.loads(serial["aws_nvl36x2.sweep.json"])["rows"]
    assert len(rows) == 2000 and all(r["status"] == "ok" for r in rows)
    # energy per year = facility kW x 8,760 h x price: row 1 is PUE 1.1, $0.010/kWh
    r1 = rows[1]
    assert r1["energy_usd_per_year"] == pytest.approx(r1["facility_power_kw"] * 8760 * 0.01, abs=1)
    pool = _run(tmp_path, "pool", "--workers", "2", "--batch-size", "37")
    assert pool == serial
    pytest.importorskip("distributed")
    dask = _run(tmp_path, "dask", "--dask", "--workers", "2", "--batch-size", "101")
    assert dask == serial


def test_cli_bad_grid_exits_2_with_the_file(tmp_path):
    bad = tmp_path / "g.yaml"
    bad.write_text("parameters:\n  a: {input: years, values: [1], range: {start: 1, stop: 2, step: 1}}\n")
    r = CliRunner().invoke(cli, ["sweep", str(AWS), "--grid", str(bad)], obj={})
    assert r.exit_code == 2 and "g.yaml" in r.output and "exactly one of values, range" in r.output


def test_cli_diff_designs_scenarios(tmp_path):
    g = tmp_path / "g.yaml"
    g.write_text(yaml.safe_dump(grid(pue={"path": "assumptions.pue", "values": [1.1, 1.3]})))
    r = CliRunner().invoke(cli, ["diff-designs", "0", "1", "--base", str(AWS), "--grid", str(g),
                                 "--format", "json"], obj={})
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert [c["a"] for c in d["inputs"]] == [1.1] and [c["b"] for c in d["inputs"]] == [1.3]
    assert "facility_power_kw" in {f["metric"] for f in d["figures"]}
    assert "gpus" not in {f["metric"] for f in d["figures"]}


def test_api_example_script_runs(capsys):
    import runpy

    runpy.run_path(str(ROOT / "docs" / "api_example.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "72 GPUs, 72-GPU NVLink domain" in out
    assert "inputs differ" in out and "figures change" in out


def test_import_infra_is_lazy_and_exposes_the_api():
    import subprocess
    import sys

    code = ("import sys, infra; assert 'pandas' not in sys.modules; "
            "print(sorted(n for n in ('analyze','compare','failures','sweep','load_design','export') "
            "if callable(getattr(infra, n))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['analyze', 'compare', 'export', 'failures', 'load_design', 'sweep']"


def test_progress_is_silent_on_a_pipe_and_counts_on_a_terminal(capsys):
    from infra.reports.progress import progress_bar

    with progress_bar("x") as (start, advance):  # pytest's stderr is not a terminal
        start(3)
        advance(3)
    assert capsys.readouterr().err == ""
    seen = []
    res = sweep(AWS, grid(pue={"path": "assumptions.pue", "values": [1.1, 1.2, 1.3]}),
                progress=seen.append, on_start=seen.append)
    assert seen[0] == 3 and sum(seen[1:]) == len(res.rows) == 3


def test_failures_monte_carlo_reports_progress_per_row():
    from infra.analysis.reliability.failure_review import review_file

    ticks = []
    r = review_file(AWS, samples=2000, progress=ticks.append)
    assert len(ticks) == len(r.availability) > 0
