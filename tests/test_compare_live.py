"""compare.xlsx stays live: a price, the energy price, the years and the discount rate
typed into Inputs, the workbook recalculated with the ``formulas`` engine, and every
dependent cell (Capex lines, TCO, Cash flow, Scenarios, Comparison, chart data) equal to
`infra compare` run on the same inputs (``--prices`` with the edited price,
``--energy-price``, ``--years``, ``--discount-rate``).

The expected values are the CLI's own JSON; the workbook computes them independently
from its formulas (the analysis never writes a computed figure into a formula cell).
Prices are read from the catalog at run time (other sessions may revise them).
"""

from __future__ import annotations

import json
import re

import openpyxl
import pytest
from xlsx_recalc import recalc

from conftest import DESIGNS
from infra.reports.compare_live_xlsx import CAPEX_COL, CAPEX_KEYS, CASH_KEYS, SCENARIO_FIGURES
from infra.reports.compare_tco_xlsx import tco_columns

OPTIONS = [str(DESIGNS / "gb200_nvl72.yaml"), str(DESIGNS / "dgx_h100_su.yaml"),
           "nvidia-h100-sxm5"]
EDITED = "nvidia-dgx-h100"  # a system price (covers: contents) of a lower-bound capex
NEW = {"base": 300_000.0, "low": 250_000.0, "high": 350_000.0}
ENERGY, YEARS, RATE = 0.12, 7, 0.08


def run_cli_module(*args: str):
    from click.testing import CliRunner

    from infra.cli.main import cli

    return CliRunner().invoke(cli, list(args), obj={})


def _rounded(got, want, what):
    """``got`` (unrounded) against the CLI's figure rounded to the digits it shows."""
    if isinstance(want, float) and not isinstance(want, bool):
        assert isinstance(got, (int, float)) and not isinstance(got, bool) and any(
            round(got, nd) == pytest.approx(want, rel=1e-12) for nd in range(7)), (what, got, want)
    else:
        _close(got, want, what)


def _close(got, want, what):
    if want is None or want == "":
        assert got in (None, ""), what
    elif isinstance(want, bool) or isinstance(want, str):
        assert got == want, what
    else:
        assert got == pytest.approx(want, rel=1e-9, abs=1e-6), what


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("live")
    r = run_cli_module("compare", *OPTIONS, "--report", "xlsx", "--name", "c", "-o", str(tmp))
    assert r.exit_code in (0, 1), r.output  # 1: a design rule broken, figures still out
    path = tmp / "c.xlsx"
    wb = openpyxl.load_workbook(path)
    inputs = wb["Inputs"]
    row = next(c.row for c in inputs["A"] if c.value == EDITED)
    chip = next(c.row for c in inputs["A"] if c.value == "nvidia-h100-sxm5")
    edits = {("Inputs", "B2"): ENERGY, ("Inputs", "B5"): YEARS, ("Inputs", "B7"): RATE,
             ("Inputs", f"B{row}"): NEW["base"], ("Inputs", f"C{row}"): NEW["low"],
             ("Inputs", f"D{row}"): NEW["high"], ("Inputs", f"B{chip}"): 20000.0,
             ("Inputs", f"C{chip}"): 18000.0, ("Inputs", f"D{chip}"): 22000.0}
    values = recalc(path, edits=edits)
    prices = tmp / "mine.yaml"
    prices.write_text(
        "as_of: 2026-01-01\ncurrency: USD\nprices:\n"
        f"  - {{slug: {EDITED}, usd: {NEW['base']}, low_usd: {NEW['low']}, "
        f"high_usd: {NEW['high']}, basis: quote, covers: contents, date: 2026-01-01,\n"
        "     source: {title: my quote, url: https://example.com/q, tag: V}}\n"
        "  - {slug: nvidia-h100-sxm5, usd: 20000, low_usd: 18000, high_usd: 22000, "
        "basis: quote, date: 2026-01-01,\n"
        "     source: {title: my quote, url: https://example.com/q, tag: V}}\n")
    j = run_cli_module("compare", *OPTIONS, "--prices", str(prices), "--energy-price",
                       str(ENERGY), "--years", str(YEARS), "--discount-rate", str(RATE),
                       "--format", "json")
    return wb, values, json.loads(j.output)


def test_capex_lines_follow_the_edited_price(live):
    wb, v, data = live
    ws = wb["Capex lines"]
    n = 0
    for i, want in enumerate(data["capex_lines"], start=2):
        assert ws[f"A{i}"].value == want["option"] and ws[f"B{i}"].value == want["line"]
        low = None if want["status"] != "priced" else want["count"] * (
            want["low_usd"] or want["unit_usd"])
        high = None if want["status"] != "priced" else want["count"] * (
            want["high_usd"] or want["unit_usd"])
        if want["status"] == "included":
            low = high = 0
        for key, w in (("unit_usd", want["unit_usd"] if want["status"] != "included" else None),
                       ("total_usd", want["total_usd"]), ("status", want["status"]),
                       ("low_total_usd", low), ("high_total_usd", high)):
            _close(v.get(("CAPEX LINES", f"{CAPEX_COL[key]}{i}")), w, (want["sku"], key))
        n += want["sku"] == EDITED
    assert n and len(CAPEX_KEYS) == 18


def test_tco_sheet_follows_every_input(live):
    wb, v, data = live
    keys = tco_columns("bf16")
    for r, want in enumerate(data["tco"], start=2):
        for c, key in enumerate(keys, start=1):
            col = openpyxl.utils.get_column_letter(c)
            got = v.get(("TCO", f"{col}{r}"))
            if key == "pue_used":
                _close(got, want["pue_ratio"], key)
            elif key == "annuity_factor":  # (1 - 1.08^-7) / 0.08 = 5.2064
                assert got == pytest.approx((1 - 1.08 ** -7) / 0.08)
            else:
                _close(got, want[key], (want["option"], key))


def test_cash_flow_sums_to_the_npv(live):
    wb, v, data = live
    ws = wb["Cash flow"]
    flows = {}
    for f in data["cash_flow"]:
        flows.setdefault(f["option"], []).append(f)
    for o in data["tco"]:
        top = next(c.row for c in ws["A"] if c.value == o["option"]) + 2
        rows = flows[o["option"]]
        assert len(rows) == YEARS + 1
        for f in rows:
            for c, key in enumerate(CASH_KEYS, start=1):
                col = openpyxl.utils.get_column_letter(c)
                _close(v.get(("CASH FLOW", f"{col}{top + f['year']}")), f[key], (o["option"], key))
        assert v.get(("CASH FLOW", f"C{top + YEARS + 1}")) is None  # past the horizon: blank
        npv = next(c.row for c in ws["A"][top:] if c.value == "NPV")
        _close(v.get(("CASH FLOW", f"H{npv}")), o["npv_usd"], "npv")
        note = v.get(("CASH FLOW", f"B{top - 2}")) or ""
        assert note.startswith("\u2265 capex is a lower bound") == o["capex_lower_bound"].startswith(
            "lower bound"), (o["option"], note)


def test_scenarios_low_base_high(live):
    wb, v, data = live
    want = {(s["option"], s["figure"]): s for s in data["scenarios"]}
    ws = wb["Scenarios"]
    names = {text: key for key, text in SCENARIO_FIGURES}
    n = 0
    for row in ws.iter_rows(min_row=2):
        if row[1].value not in names:
            continue
        s = want[(row[0].value, names[row[1].value])]
        for col, key in (("C", "low"), ("D", "base"), ("E", "high")):
            _close(v.get(("SCENARIOS", f"{col}{row[0].row}")), s[key], (s["option"], s["figure"], key))
        mark = v.get(("SCENARIOS", f"F{row[0].row}"))
        assert mark == ("\u2265 lower bound" if s["bound"] == "lower" else None), s
        n += 1
    assert n == len(data["scenarios"]) == 5 * len(OPTIONS)
    dgx = want[("dgx_h100_su", "capex_usd")]
    assert dgx["low"] < dgx["base"] < dgx["high"] and dgx["bound"] == "lower"


LIVE_CHIP_ROWS = ("price_usd", "peak_dense_tflops_bf16_per_1000_usd", "hbm_gib_per_1000_usd")


def test_comparison_formulas_follow(live):
    """Every formula cell of the Comparison sheet equals the CLI's (rounded) figure."""
    wb, v, data = live
    ws = wb["Comparison"]
    labels = [o["label"] for o in data["options"]]
    key_col = 7 + len(labels)
    rows = {re.sub(r"^tco_usd_\d+y$", "tco_usd", r["metric"]): r for r in data["comparison"]}
    n = 0
    seen: set[str] = set()
    for row in ws.iter_rows(min_row=2):
        key = re.sub(r"^tco_usd_\d+y$", "tco_usd", row[key_col - 1].value)
        for j, label in enumerate(labels):
            c = row[3 + j]
            if c.data_type != "f":
                continue
            want = rows[key][label]
            got = v.get(("COMPARISON", c.coordinate))
            _rounded(got, want, (key, label))
            n += 1
        if key == "tco_usd":
            assert v[("COMPARISON", f"B{row[0].row}")] == f"TCO over {YEARS} years"
        if key in LIVE_CHIP_ROWS:
            seen.add(key)
            assert row[5].data_type == "f", key  # the chip's price and what it buys: live
    assert rows["price_usd"]["nvidia-h100-sxm5"] == 20000  # the edited price
    assert seen == set(LIVE_CHIP_ROWS)  # every one of those rows is there, and live
    assert n > 20


def test_chart_data_follows(live):
    wb, v, data = live
    ws = wb["Charts"]
    n = len([k for k in data["charts"][0] if k not in ("option", "bounds")])
    for i, want in enumerate(data["charts"], start=2):
        for c in ws[i][1:n + 1]:  # the figures; the label columns follow
            if c.data_type != "f":
                continue
            key = list(want)[c.column - 1]
            _rounded(v.get(("CHARTS", c.coordinate)), want[key], (want["option"], key))


def test_sized_capex_and_tco_follow_a_price(tmp_path):
    """--target 1 EFLOPS on one H100 (989 TFLOPS BF16): ceil(1000 / 0.989) = 1,012 GPUs;
    sized capex = capex x 1,012 / 1. A new H100 price typed into Inputs = the CLI with
    that price in a --prices file."""
    args = ["compare", "nvidia-h100-sxm5", str(DESIGNS / "gb200_nvl72.yaml"), "--target",
            "1 EFLOPS"]
    r = run_cli_module(*args, "--report", "xlsx", "--name", "t", "-o", str(tmp_path))
    assert r.exit_code in (0, 1), r.output
    wb = openpyxl.load_workbook(tmp_path / "t.xlsx")
    row = next(c.row for c in wb["Inputs"]["A"] if c.value == "nvidia-h100-sxm5")
    v = recalc(tmp_path / "t.xlsx", keep=("Inputs", "TCO", "Capex lines", "Comparison"),
               edits={("Inputs", f"B{row}"): 20000})
    prices = tmp_path / "p.yaml"
    prices.write_text(
        "as_of: 2026-01-01\ncurrency: USD\nprices:\n"
        "  - {slug: nvidia-h100-sxm5, usd: 20000, basis: quote, date: 2026-01-01,\n"
        "     source: {title: my quote, url: https://example.com/q, tag: V}}\n")
    j = run_cli_module(*args, "--prices", str(prices), "--format", "json")
    want = {r["metric"]: r for r in json.loads(j.output)["comparison"]}
    assert want["sized_gpus"]["nvidia-h100-sxm5"] == 1012
    ws = wb["Comparison"]
    n = 0
    for cells in ws.iter_rows(min_row=2):
        key = cells[-1].value
        if key in ("sized_capex_usd", "sized_tco_usd"):
            for c, label in zip(cells[3:5], ("nvidia-h100-sxm5", "gb200_nvl72")):
                assert c.data_type == "f"
                _rounded(v.get(("COMPARISON", c.coordinate)), want[key][label], (key, label))
                n += 1
    assert n == 4
    assert want["sized_capex_usd"]["nvidia-h100-sxm5"] == 1012 * 20000


def test_training_dollars_differs_and_ranking_follow(tmp_path):
    """With --train, the training run's dollars are formulas: the TCO per GPU-hour times
    the run's GPU-hours (the sheet multiplies the whole GPU-hours it shows, so it may
    differ from the CLI by at most half a GPU-hour's price), and per million tokens that
    over the tokens trained. Differs and Ranking of every live row are formulas too:
    after an energy-price and years edit they read what ``infra compare`` prints on the
    same inputs."""
    opts = [str(DESIGNS / "dgx_b200_su.yaml"), str(DESIGNS / "gb200_nvl72_x4.yaml")]
    train = ["--train", "llama-3-70b", "--tokens", "15e12"]
    r = run_cli_module("compare", *opts, *train, "--report", "xlsx", "--name", "t",
                       "-o", str(tmp_path))
    assert r.exit_code in (0, 1), r.output
    wb = openpyxl.load_workbook(tmp_path / "t.xlsx")
    v = recalc(tmp_path / "t.xlsx", keep=("Inputs", "TCO", "Capex lines", "Comparison"),
               edits={("Inputs", "B2"): ENERGY, ("Inputs", "B5"): YEARS})
    j = run_cli_module("compare", *opts, *train, "--energy-price", str(ENERGY), "--years",
                       str(YEARS), "--format", "json")
    data = json.loads(j.output)
    want = {re.sub(r"^tco_usd_\d+y$", "tco_usd", row["metric"]): row
            for row in data["comparison"]}
    labels = [o["label"] for o in data["options"]]
    tco = {o["option"]: o for o in data["tco"]}
    ws = wb["Comparison"]
    n = len(labels)
    seen, live_marks = set(), 0
    for cells in ws.iter_rows(min_row=2):
        key = re.sub(r"^tco_usd_\d+y$", "tco_usd", cells[6 + n].value)
        if key in ("train_usd_per_run", "train_usd_per_million_tokens", "train_tokens"):
            seen.add(key)
        for c, label in zip(cells[3:3 + n], labels):
            got, w = v.get(("COMPARISON", c.coordinate)), want[key][label]
            if key == "train_usd_per_run":
                assert c.data_type == "f" and w is not None
                assert abs(got - w) <= tco[label]["usd_per_gpu_hour"] / 2 + 1, (label, got, w)
            elif key == "train_usd_per_million_tokens":
                assert c.data_type == "f"
                assert round(got, 3) == pytest.approx(w, abs=1e-9), (label, got, w)
        for col, name in ((4 + n, "differs"), (5 + n, "ranking")):
            if cells[col].data_type == "f":
                live_marks += 1
                assert (v.get(("COMPARISON", cells[col].coordinate)) or "") == \
                    (want[key].get(name) or ""), (key, name)
    assert seen == {"train_usd_per_run", "train_usd_per_million_tokens", "train_tokens"}
    assert want["train_tokens"][labels[0]] == 15e12
    assert live_marks > 10


def test_training_dollars_follow_prices_on_the_command_line(tmp_path):
    """``infra compare --train ... --prices``: the run's dollars use the same prices as the
    option's TCO. A DGX B200 quoted at $1,030,000 (twice the shipped $515,000) raises the
    TCO per GPU-hour, and the run costs that rate x its GPU-hours (both as the CLI prints
    them: at most half a GPU-hour's price and a dollar of rounding apart)."""
    opts = [str(DESIGNS / "dgx_b200_su.yaml")]
    train = ["--train", "llama-3-70b", "--tokens", "15e12", "--format", "json"]
    prices = tmp_path / "p.yaml"
    prices.write_text(
        "as_of: 2026-01-01\ncurrency: USD\nprices:\n"
        "  - {slug: nvidia-hgx-b200, usd: 1030000, basis: quote, covers: contents,\n"
        "     date: 2026-01-01, source: {title: my quote, url: https://example.com/q, tag: V}}\n")
    runs = []
    for extra in ([], ["--prices", str(prices)]):
        d = json.loads(run_cli_module("compare", *opts, *train, *extra).output)
        rows = {r["metric"]: r for r in d["comparison"]}
        (tco,) = d["tco"]
        label = tco["option"]
        usd, hours = rows["train_usd_per_run"][label], rows["train_gpu_hours"][label]
        assert abs(usd - tco["usd_per_gpu_hour"] * hours) <= tco["usd_per_gpu_hour"] / 2 + 1
        runs.append(usd)
    assert runs[1] > runs[0] * 1.2  # the quote moved the run's dollars, not only the TCO
