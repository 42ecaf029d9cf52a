"""History: events import, the Gamma-Poisson rates, drift, and infra failures --rates-db.

Database tests run on SQLite and PostgreSQL (``history_support.db_url``).
"""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine, func, select

from conftest import DESIGNS
from history_support import copy_inventory, db_url, swap_gpu  # noqa: F401 (fixture)
from infra import history
from infra.cli.main import cli
from infra.history.db import HistoryError, connect, normalize_url, to_ts
from infra.history.fleet_rates import posterior, prior_shape
from infra.history.gamma import gamma_cdf, gamma_ppf, shape_for_ratio
from infra.history.recorder import record_state
from infra.history.schema import changes, events, placements, snapshots
from infra.history.state import Component, State

DESIGN = DESIGNS / "dgx_h100_su.yaml"
HEADER = "time,host,asset,component,event,note\n"


# --- the distribution, by hand ----------------------------------------------------------

@pytest.mark.parametrize("k", [1, 2, 5, 30])
@pytest.mark.parametrize("x", [0.3, 2.0, 7.5, 40.0])
def test_gamma_cdf_matches_the_poisson_sum(k, x):
    # integer shape k: P(k, x) = 1 - sum_{i<k} e^-x x^i / i! (Erlang), computed apart
    want = 1 - sum(math.exp(-x) * x**i / math.factorial(i) for i in range(k))
    assert gamma_cdf(x, k) == pytest.approx(want, abs=1e-12)
    if 1e-9 < want < 1 - 1e-9:
        assert gamma_ppf(want, k) == pytest.approx(x, rel=1e-9)


def test_gamma_ppf_exponential_and_shape_fit():
    # shape 1, rate 4: quantile q is -ln(1 - q) / 4
    assert gamma_ppf(0.95, 1.0, 4.0) == pytest.approx(-math.log(0.05) / 4, rel=1e-10)
    # a shape fitted to its own 95 % interval comes back
    a = 37.0
    ratio = gamma_ppf(0.975, a) / gamma_ppf(0.025, a)
    assert shape_for_ratio(ratio) == pytest.approx(a, rel=1e-6)


def test_posterior_by_hand():
    # prior mean 0.1 /yr with shape 2 -> rate b0 = 2 / 0.1 = 20 yr; 8 events in 60 yr:
    # posterior Gamma(10, 80): mean 10 / 80 = 0.125
    p = posterior(0.1, 2.0, 8, 60.0)
    assert p.mean == pytest.approx(0.125)
    lo, hi = p.interval()
    assert gamma_cdf(lo * 80, 10) == pytest.approx(0.05, abs=1e-9)
    assert gamma_cdf(hi * 80, 10) == pytest.approx(0.95, abs=1e-9)


def test_prior_strength_is_capped_and_falls_back_to_one():
    from infra.models.rates import load_rates

    t = load_rates()
    # gpu: 0.0699..0.0930 is a ~190-event interval; capped at 10
    assert prior_shape(t.rates["gpu"]) == 10
    assert prior_shape(t.rates["gpu"], cap=1000) == pytest.approx(189, abs=2)
    assert prior_shape(t.rates["superchip"]) == 1.0  # no interval published


# --- Llama 3: the counts and exposure give their per-GPU-year rates -----------------------

def _llama_fleet(db: str) -> None:
    """16,384 GPUs in 2,048 hosts from 2024-01-01 for 54 days, and Table 5's counts."""
    comps = []
    for h in range(2048):
        host = f"n{h:04d}"
        comps.append(Component("host", host, host, None, host, {}))
        comps += [Component("gpu", f"GPU-{h:04d}-{g}", host, None, f"gpu module {g + 1}", {})
                  for g in range(8)]
    state = State(tuple(comps), frozenset(c.host for c in comps), False, "llama3")
    start = to_ts("2024-01-01T00:00:00Z")
    with connect(db, write=True) as conn:
        record_state(conn, state, start)
        record_state(conn, state, start + 54 * 86400)  # seen again 54 days later
    counts = {"gpu": 196, "hbm": 72, "software": 63, "compute_tray": 42, "nic": 7, "cpu": 2,
              "pcie_switch": 2}  # = 384, the rows catalogs/rates/default.yaml maps
    return counts


def test_llama3_counts_give_their_rates(db_url, tmp_path):
    counts = _llama_fleet(db_url)
    lines = [HEADER]
    i = 0
    for kind, n in counts.items():
        for j in range(n):
            i += 1
            lines.append(f"2024-01-{1 + i % 28:02d}T{i % 24:02d}:00:00Z,,,{kind},interruption,"
                         f"table 5 row {kind} {j}\n")
    f = tmp_path / "llama.csv"
    f.write_text("".join(lines))
    assert history.import_events(f, db=db_url).added == 384
    rows = {r["kind"]: r for r in history.rates(db=db_url).rows}
    gpu_years = 16384 * 54 / 365  # 2,423.89
    host_years = 2048 * 54 / 365  # 302.99
    assert rows["gpu"]["exposure_years"] == pytest.approx(gpu_years, abs=1e-3)
    assert rows["compute_tray"]["exposure_years"] == pytest.approx(host_years, abs=1e-3)
    # their per-GPU-year (per tray-year) rates: 196 / 2,423.9 = 0.0809, 72 / 2,423.9 =
    # 0.0297, 42 / 302.99 = 0.1386 (catalogs/rates/default.yaml, reliability-facts §1.1)
    assert rows["gpu"]["site_rate_per_year"] == pytest.approx(0.0809, abs=5e-5)
    assert rows["hbm"]["site_rate_per_year"] == pytest.approx(0.0297, abs=5e-5)
    assert rows["compute_tray"]["site_rate_per_year"] == pytest.approx(0.1386, abs=5e-5)
    # the prior is the same figure, so the posterior mean stays on it
    for kind, rate in (("gpu", 0.0809), ("hbm", 0.0297), ("compute_tray", 0.1386)):
        assert rows[kind]["posterior_rate_per_year"] == pytest.approx(rate, rel=0.005)
    # all 419 unexpected interruptions: 419 / 2,423.9 = 0.173 per GPU-year
    total = sum(counts.values()) + 35  # + network switch/cable rows not mapped to a kind
    assert total / rows["gpu"]["exposure_years"] == pytest.approx(0.173, abs=5e-4)
    # no hardware missing: no nic/cpu exposure without a design, so no posterior for them
    assert rows["nic"]["posterior_rate_per_year"] is None
    assert "no exposure" in rows["nic"]["note"]


# --- events import -----------------------------------------------------------------------

def _event_counts(url: str) -> dict:
    eng = create_engine(normalize_url(url))
    with eng.connect() as c:
        out = {t.name: c.execute(select(func.count()).select_from(t)).scalar_one()
               for t in (events, snapshots, placements, changes)}
    eng.dispose()
    return out


def test_events_import_twice_adds_nothing_and_a_bad_row_adds_nothing(db_url, tmp_path):
    history.record(DESIGNS.parent / "tests/fixtures/inventory/hgx-h100", design=DESIGN,
                   at="2025-03-01", db=db_url)
    good = tmp_path / "week10.csv"
    good.write_text(HEADER + "2025-03-04T02:10:00Z,r001n03,GPU-1,hbm,interruption,XID 48\n"
                    '2025-03-05,r001n01,,gpu,rma,"fell off the bus, RMA 1234"\n'
                    "2025-03-06T08:00:00+02:00,r001n01,,gpu,repaired,\n")
    r = history.import_events(good, db=db_url)
    assert (r.read, r.added, r.already) == (3, 3, 0)
    before = _event_counts(db_url)
    r = history.import_events(good, db=db_url)
    assert (r.added, r.already) == (0, 3)
    assert _event_counts(db_url) == before
    bad = tmp_path / "bad.csv"
    bad.write_text(HEADER + "2025-03-07,r001n02,,gpu,failure,ok row\n"
                   "2025-03-08,r001n02,,gpu,exploded,\n"
                   "not-a-date,r001n02,,gpu,failure,\n")
    res = CliRunner().invoke(cli, ["history", "events", "import", str(bad), "--db", db_url])
    assert res.exit_code == 2
    assert f"{bad}:3:" in res.output  # the first bad line is named
    assert "line 3: event 'exploded'" in res.output and "line 4: time 'not-a-date'" in res.output
    assert "Traceback" not in res.output
    assert _event_counts(db_url) == before  # the good row 2 was not imported either


@pytest.mark.parametrize("text, why", [
    ("", "empty file"),
    ("time,host,asset,component,event\n", "missing note"),
    (HEADER + "2025-03-01,h,,gpu,failure,x,extra\n", "7 fields"),
    (HEADER + "2025-03-01,h,,gpus,failure,x\n", "did you mean 'gpu'"),
])
def test_events_csv_errors_name_the_problem(tmp_path, text, why):
    from infra.history.events import read_events

    f = tmp_path / "e.csv"
    f.write_text(text)
    with pytest.raises(HistoryError, match=why):
        read_events(f)


def test_netbox_change_log_serial_changes_become_replacements(db_url, tmp_path):
    doc = {"count": 3, "results": [
        {"id": 11, "time": "2025-02-03T10:00:00.123456Z", "action": {"value": "update"},
         "changed_object_type": "dcim.module", "object_repr": "GPU 3 (HGX baseboard)",
         "prechange_data": {"serial": "1652320010003", "device": 7},
         "postchange_data": {"serial": "1652329999999", "device": 7}},
        {"id": 12, "time": "2025-02-03T11:00:00Z", "action": {"value": "update"},
         "changed_object_type": "dcim.module", "object_repr": "GPU 4",
         "prechange_data": {"serial": "A", "description": ""},
         "postchange_data": {"serial": "A", "description": "checked"}},
        {"id": 13, "time": "2025-02-04T11:00:00Z", "action": {"value": "create"},
         "changed_object_type": "dcim.device", "object_repr": "r009n01",
         "prechange_data": None, "postchange_data": {"name": "r009n01"}},
    ]}
    f = tmp_path / "changes.json"
    f.write_text(json.dumps(doc))
    r = history.import_events(f, db=db_url)
    assert (r.read, r.added) == (1, 1)
    assert sum(r.skipped.values()) == 2
    life = history.asset("1652329999999", db=db_url)
    (ev,) = life.events
    assert (ev["event"], ev["component"], ev["time"]) == ("replaced", "gpu", "2025-02-03T10:00:00Z")
    assert "1652320010003 -> 1652329999999" in ev["note"]
    (tmp_path / "broken.json").write_text('{"results": [\n{"id": 1,,}]}')
    with pytest.raises(HistoryError, match="malformed JSON") as exc:
        history.import_events(tmp_path / "broken.json", db=db_url)
    assert exc.value.line == 2


# --- drift and the failure review on the site's rates ------------------------------------

def test_drift_and_failures_with_the_site_rates(db_url, tmp_path):
    inv1 = copy_inventory("hgx-h100", tmp_path / "a")
    inv2 = copy_inventory("hgx-h100", tmp_path / "b")
    swap_gpu(inv2, "r001n01", "GPU-000103a1-5c3e-4b7d-9f10-000001000003",
             "GPU-ffff03a1-5c3e-4b7d-9f10-0000010000ff", "1652329999999")
    history.record(inv1, design=DESIGN, at="2025-01-01", db=db_url)
    history.record(inv2, design=DESIGN, at="2025-07-02T12:00:00Z", db=db_url)
    history.record(inv2, design=DESIGN, at="2026-01-01", db=db_url)
    d = history.drift(DESIGN, db=db_url)
    assert (d.design_hosts, d.design_gpus) == (32, 256)  # 32 DGX H100 x 8
    assert [r["changes"] for r in d.rows] == [f"{d.rows[0]['changes'].split()[0]} install", "1 swap"]
    assert [r["gpus_installed"] for r in d.rows] == [63, 63]  # r001n03 module 6 absent
    assert [r["design_hosts_missing"] for r in d.rows] == [24, 24]
    f = tmp_path / "e.csv"
    rows = "".join(f"2025-{1 + i % 12:02d}-10T00:00:00Z,r001n01,,gpu,failure,event {i}\n"
                   for i in range(20))
    f.write_text(HEADER + rows)
    history.import_events(f, db=db_url)
    post = {r["kind"]: r for r in history.rates(db=db_url).rows}
    # 63 GPUs for one year (2025 is 365 days: 8,760 h): 63 GPU-years; 20 events;
    # prior 0.0809 worth 10 events -> b0 = 10 / 0.0809 = 123.6 GPU-years;
    # posterior mean (10 + 20) / (123.6 + 63) = 0.1608
    assert post["gpu"]["exposure_years"] == pytest.approx(63.0, abs=1e-3)
    assert post["gpu"]["posterior_rate_per_year"] == pytest.approx(30 / (10 / 0.0809 + 63), rel=1e-4)
    res = CliRunner().invoke(cli, ["failures", str(DESIGN), "--rates-db", db_url,
                                   "--samples", "1000", "--format", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    gpu = next(r for r in data["tables"]["failure_rates"] if r["kind"] == "gpu")
    assert gpu["rate_per_year"] == post["gpu"]["posterior_rate_per_year"]
    assert gpu["source"].startswith("infra history rates")
    assert any(f.startswith("history ") for f in data["design"]["rates_files"])
    base = CliRunner().invoke(cli, ["failures", str(DESIGN), "--samples", "1000", "--format", "json"])
    # twice the catalog's GPU rate: the job is interrupted more often
    assert json.loads(base.output)["metrics"]["job_mtbi_hours"] > data["metrics"]["job_mtbi_hours"]
