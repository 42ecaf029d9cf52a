"""Hostile sweep grids (issue 31: E2, E3, E5, C4, C5, D2, D5, F2): every cost bounded
before it is paid, every wrong grid an exit 2 naming the grid file, line and YAML path,
nothing written; a bug in a scenario is never a quiet exit 0."""

from __future__ import annotations

import tracemalloc

import pytest
import yaml
from click.testing import CliRunner
from conftest import ROOT

from infra.cli.main import cli
from infra.sweeps import Grid, scenarios
from infra.sweeps.grid import Range
from infra.sweeps.paths import SweepError

NVL72 = str(ROOT / "designs" / "gb200_nvl72.yaml")
PUE2 = {"pue": {"input": "pue", "values": [1.1, 1.2]}}


def _sweep(tmp_path, grid: dict, *extra: str):
    g = tmp_path / "g.yaml"
    g.write_text(yaml.safe_dump(grid, sort_keys=False, width=10**6))
    out = tmp_path / "out"
    res = CliRunner().invoke(cli, ["sweep", NVL72, "--grid", str(g), "-o", str(out),
                                   "--workers", "1", "-q", *extra], obj={})
    written = sorted(p.name for p in out.rglob("*")) if out.exists() else []
    return res, written


@pytest.mark.parametrize("constraint, says", [
    # E2: each allocated 50 MB (the fuzz run's 3 GB with a bigger factor) and passed
    ("'x' * 50000000 == 'x'", "Mult of str and int"),
    ("'%050000000d' % 1 == ''", "Mod of str and int"),
    ("('x',) * 50000000 == ()", "Mult of tuple and int"),
    ("(pue * 10 ** 0) > 0", "uses Pow"),
    ("9" * 60 + " * " + "9" * 60 + " > 0", "an integer of over 100 digits"),
    # C4: RecursionError (internal error, exit 1) in the interpreter or the parser
    ("not " * 1200 + "True", "over 1,000 characters"),
    ("-" * 200 + "1 > 0", "nests over 40 levels"),
    ("+".join(["1"] * 300) + " > 0", "nests over 40 levels"),
])
def test_constraints_are_bounded_before_they_allocate_or_recurse(tmp_path, constraint, says):
    tracemalloc.start()
    try:
        res, written = _sweep(tmp_path, {"parameters": PUE2,
                                         "constraints": ["pue > 0", constraint]})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert res.exit_code == 2, res.output
    assert "g.yaml" in res.output and "constraints[1]" in res.output, res.output
    assert says in res.output and "internal error" not in res.output, res.output
    assert peak < 40 * 2**20, peak  # nothing of the 50 MB the expression asked for
    assert written == []


def test_string_joins_and_number_arithmetic_still_work(tmp_path):
    g = Grid.model_validate({"parameters": {"t": {"input": "years", "values": [3, 5]},
                                            "n": {"path": "name", "values": ["a", "b"]}},
                             "constraints": ["n + '-x' != 'b-x' and t * 2 % 4 == 2"]})
    # t * 2 % 4 == 2 keeps t = 3 and 5 (6 % 4 = 2, 10 % 4 = 2); n = 'b' is dropped
    assert [(s.values["t"], s.values["n"]) for s in scenarios(g)] == [(3, "a"), (5, "a")]


def test_a_range_of_1000001_values_is_refused_without_listing_them():
    # E3: (stop - start) / step = 1,000,000 passed the range check (off by one) and the
    # grid then listed 1,000,001 huge floats several times before refusing (27 s)
    with pytest.raises(ValueError, match="range has 1,000,001 values"):
        Range(start=0, stop=1.0e308, step=1.0e302)
    r = Range(start=0, stop=1.0e308, step=1.0e303)  # 100,001 values: counted, not listed
    assert r.count() == 100_001
    g = Grid.model_validate({"parameters": {"r": {"input": "pue", "range": r.model_dump()}}})
    assert g.size() == 100_001 and "_values" not in r.__dict__
    assert r.values()[:2] == [0.0, 1e303] and r.values()[-1] == 1e308


def test_a_grid_over_the_scenario_budget_is_refused_before_it_runs(tmp_path):
    # E5: 400 x 400 cost inputs = 160,000 scenarios, over the default budget of 100,000
    energy = {"input": "energy_usd_per_kwh", "range": {"start": 0.01, "stop": 0.4, "step": 0.001}}
    years = {"input": "maintenance_fraction_per_year",
             "range": {"start": 0.001, "stop": 0.4, "step": 0.001}}
    grid = {"parameters": {"e": energy, "m": years}}
    g = Grid.model_validate(grid)
    assert g.size() == 391 * 400  # (0.4 - 0.01) / 0.001 + 1 = 391; 0.399 / 0.001 + 1 = 400
    res, written = _sweep(tmp_path, grid)
    assert res.exit_code == 2, res.output
    assert "156,400 scenarios (1 design analyses), over the budget of 100,000" in res.output
    assert "g.yaml" in res.output and "--max-scenarios" in res.output and written == []
    with pytest.raises(SweepError, match="more than 10 scenarios after its constraints .of 156,400 combinations., over the budget of 10"):
        scenarios(Grid.model_validate({**grid, "constraints": ["e > 0"]}), max_scenarios=10)
    assert len(scenarios(Grid.model_validate(
        {**grid, "constraints": ["e < 0.0105 and m < 0.0025"]}), max_scenarios=10)) == 2


def test_non_finite_grid_values_are_refused(tmp_path):
    # D5: {path: assumptions.pue, values: [.nan]} wrote a bare NaN into the sweep JSON
    res, written = _sweep(tmp_path, {"parameters": {"p": {"path": "assumptions.pue",
                                                          "values": [1.2, float("nan")]}}},
                          "--report", "json")
    assert res.exit_code == 2 and "g.yaml" in res.output, res.output
    assert "not finite" in res.output and written == []


def test_constraints_that_leave_nothing_are_an_error_not_an_empty_csv(tmp_path):
    # F2: a 0-byte gb200_nvl72.sweep.csv, exit 0
    res, written = _sweep(tmp_path, {"parameters": PUE2, "constraints": ["pue > 5"]})
    assert res.exit_code == 2 and "leave no scenario of the 2 combinations" in res.output
    assert "g.yaml" in res.output and written == []


@pytest.mark.parametrize("objectives, says", [
    (",,,", "names no objective"),
    ("capex_usd", "give the direction"),
    ("it_power_kw:min,it_power_kw:max", "named twice with opposite directions"),
    (":max", "names no metric"),
])
def test_objectives_are_checked(tmp_path, objectives, says):
    # D2: each ran with exit 0 (no front, a silent 'min', contradictory objectives)
    res, written = _sweep(tmp_path, {"parameters": PUE2}, "--objectives", objectives)
    assert res.exit_code == 2 and says in res.output, res.output
    assert written == []


def test_a_bug_in_a_scenario_is_not_a_quiet_exit_0(tmp_path, monkeypatch):
    # C5: rows said 'internal error ... please report' and the sweep exited 0
    import infra.sweeps.scenario as scenario

    real = scenario.scenario_metrics

    def flaky(da, capex, a):
        if a.pue > 1.15:
            raise TypeError("'<=' not supported between instances of 'float' and 'str'")
        return real(da, capex, a)

    monkeypatch.setattr(scenario, "scenario_metrics", flaky)
    res, written = _sweep(tmp_path, {"parameters": PUE2})
    assert res.exit_code == 3, res.output
    assert "internal error in 1 of 2 scenarios of " in res.output
    assert "scenario 1" in res.output and "please report" in res.output
    assert written == ["gb200_nvl72.sweep.csv"]  # every row kept, the good one too


def test_control_characters_in_grid_values_reach_the_workbook_escaped(tmp_path):
    # found by the release fuzz run (sweep#429, #482): a grid value holding ESC made
    # openpyxl raise IllegalCharacterError while the workbook was written (internal error)
    import openpyxl

    grid = {"parameters": {"pue": {"input": "pue", "values": [1.1, 1.2]},
                           "red": {"path": "racks.nvl72.power_redundancy",
                                   "values": ["N+N", "\x1b[31m"]}}}
    res, written = _sweep(tmp_path, grid, "--report", "xlsx")
    assert res.exit_code == 0, res.output
    ws = openpyxl.load_workbook(tmp_path / "out" / "gb200_nvl72.sweep.xlsx")["Scenarios"]
    names = [row[1] for row in ws.iter_rows(min_row=2, values_only=True)]
    assert "pue=1.1,red=\\x1b[31m" in names, names
