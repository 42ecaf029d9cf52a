"""`infra failures`: rates, fleet/job views, availability closed forms vs Monte Carlo."""

from __future__ import annotations

import json
import math
import textwrap

import pytest

from conftest import DESIGNS
from infra.analysis.reliability.availability import (
    DomainModel, Part, closed_form, monte_carlo, spare_domains_needed, spares_needed,
    unavailability,
)
from infra.analysis.reliability.checkpoint import daly_interval, goodput, young_interval
from infra.analysis.reliability.failure_review import review_file


# --- closed forms by hand -------------------------------------------------------------

def test_unavailability_by_hand():
    # lambda = 0.5 / yr = 0.5 / 8760 per h; r = 40 h -> x = 0.0022831; u = x / (1 + x)
    x = 0.5 / 8760 * 40
    assert unavailability(0.5, 40) == pytest.approx(x / (1 + x))


def test_k_of_n_one_rack_by_hand():
    """[T0][T1][T2] one rack, 3 trays of 2 GPUs, tray down 0.1, rack part down 0.05.

    4 GPUs = 2 trays: P(>= 2 of 3) = 0.9^3 + 3 x 0.9^2 x 0.1 = 0.729 + 0.243 = 0.972;
    times the rack part 0.95 -> 0.9234. 6 GPUs: 0.729 x 0.95 = 0.69255.
    """
    m = DomainModel(1, 3, 2, tray_parts=(Part("tray", 1, 0.1),),
                    domain_parts=(Part("rack", 1, 0.05),))
    assert closed_form(m, 4) == pytest.approx(0.9234)
    assert closed_form(m, 6) == pytest.approx(0.69255)
    assert closed_form(m, 3) == pytest.approx(0.9234)  # 3 GPUs still need 2 trays


def test_two_racks_by_hand():
    """[R0: T T]==xrack==[R1: T T], trays up a = 0.9, rack part up g = 0.8, xrack up x = 0.7.

    Job of 3 trays needs both racks joined: x g^2 P(>= 3 of 4)
      = 0.7 x 0.64 x (0.9^4 + 4 x 0.9^3 x 0.1) = 0.448 x 0.9477 = 0.4245696.
    Job of 2 trays: joined -> P(>= 2 of 4) = 0.9963; else the best single rack:
      P(one rack hosts) = g x 0.81 = 0.648 per rack.
      = 0.448 x 0.9963 + P(not joined) x ... computed below by cases.
    """
    m = DomainModel(2, 2, 1, tray_parts=(Part("t", 1, 0.1),), group_parts=(Part("g", 1, 0.2),),
                    split_parts=(Part("x", 1, 0.3),))
    assert closed_form(m, 3) == pytest.approx(0.448 * 0.9477)
    # Cases for 2 trays: joined (x up, both racks up) 0.448 -> P(>= 2 of 4) = 0.9963;
    # x down, both racks up: 0.3 x 0.64 = 0.192 -> 1 - (1 - 0.81)^2 = 0.9639;
    # exactly one rack up (x either way): 2 x 0.8 x 0.2 = 0.32 -> 0.81; none: 0.
    by_hand = 0.448 * 0.9963 + 0.192 * 0.9639 + 0.32 * 0.81
    assert closed_form(m, 2) == pytest.approx(by_hand)


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_monte_carlo_agrees_with_closed_form(k):
    # Rates inflated so that every case has a sizeable failure probability.
    m = DomainModel(2, 2, 1, tray_parts=(Part("gpu", 2, 0.05), Part("t", 1, 0.04)),
                    group_parts=(Part("g", 3, 0.03),), split_parts=(Part("x", 1, 0.1),),
                    domain_parts=(Part("d", 1, 0.02),))
    p, lo, hi = monte_carlo(m, k, samples=200_000, seed=7)
    assert lo <= closed_form(m, k) <= hi, (k, p, closed_form(m, k))


def test_spares_by_hand():
    # Trays up 0.9, 4 per domain: s=1 -> 0.9477, s=2 -> P(>= 2 of 4) = 0.9963 >= 0.99.
    m = DomainModel(1, 4, 1, tray_parts=(Part("t", 1, 0.1),))
    assert spares_needed(m, 0.99) == 2
    # A shared part down 2 % caps the domain at 0.98: no number of spares reaches 0.99.
    capped = DomainModel(1, 4, 1, tray_parts=(Part("t", 1, 0.1),),
                         domain_parts=(Part("rack", 1, 0.02),))
    assert spares_needed(capped, 0.99) is None
    # 2 domains of p = 0.9 and 1 spare: P(>= 2 of 3) = 0.729 + 0.243 = 0.972 < 0.99;
    # 2 spares: P(>= 2 of 4) = 0.9963.
    assert spare_domains_needed(0.9, 2, 0.99) == 2


def test_daly_reproduces_papers_figures():
    # Daly 2006, Fig. 3-5 captions: delta = 5 min -> tau_opt 117, 57, 9.1 min.
    assert daly_interval(5 / 60, 24) * 60 == pytest.approx(117, abs=0.5)
    assert daly_interval(5 / 60, 6) * 60 == pytest.approx(57, abs=0.5)
    assert daly_interval(5 / 60, 0.25) * 60 == pytest.approx(9.1, abs=0.05)
    # Young: sqrt(2 x 1/60 h x 3.09 h) = 0.3209 h = 19.3 min (reliability-facts §3.4)
    assert young_interval(1 / 60, 3.09) * 60 == pytest.approx(19.26, abs=0.01)


def test_goodput_first_order_limit():
    # tau = 1 h, delta = 0.01 h, R = 0.1 h, M = 1000 h:
    # first order 1 - delta/tau - (tau/2 + R)/M = 1 - 0.01 - 0.0006 = 0.9894 (exact ~ same)
    assert goodput(1, 0.01, 0.1, 1000) == pytest.approx(1 / 1.01 - 0.0006, abs=2e-4)


# --- designs ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def llama():
    return review_file(DESIGNS / "llama3_h100_16k.yaml", samples=20_000)


def test_llama3_reproduces_published_interruption_rate(llama):
    """Meta: 419 unexpected interruptions in 54 days = 7.76/day; 95 % Poisson interval of
    the count 380..461 -> 7.04..8.54/day. The design models the rows mapped to kinds:
    384 events / 54 d = 7.11/day, plus racks 512 x 0.05 / 365 = 0.070/day = 7.18/day.
    Not modelled: network switch/cable, 35 events (0.65/day): the design has no fabric.
    """
    per_day = llama.job.interruptions_per_day
    assert per_day == pytest.approx(384 / 54 + 512 * 0.05 / 365, rel=2e-3)
    assert 380 / 54 <= per_day <= 461 / 54
    assert llama.job.job_gpus == 16384 and llama.job.domains == 2048
    # MTBI 24 / 7.18 = 3.34 h (Meta: 54 x 24 / 419 = 3.09 h with network events)
    assert llama.job.mtbi_hours == pytest.approx(24 / per_day)
    assert "tor_switch" in llama.unmodelled


def test_llama3_gpu_share_matches_table5(llama):
    # GPU + HBM kinds = 268 of the 384 modelled events + 3.8 rack events -> 0.691
    shares = {k: v / llama.job.interruptions_per_day for k, v in llama.job.by_kind_per_day}
    assert shares["gpu"] + shares["hbm"] == pytest.approx(268 / (384 + 512 * 0.05 * 54 / 365),
                                                          rel=2e-3)


def test_nvl36x2_small_job_skips_other_rack():
    """[R0: 9 trays + 9 switch trays]==xrack==[R1: ...]: a 36-GPU job sits in one rack.

    72 GPUs: switch trays 18 x 0.05 = 0.9/yr, cartridges 2 x 0.1 + xrack 0.1 = 0.3/yr.
    36 GPUs: switch trays 9 x 0.05 = 0.45/yr, one cartridge 0.1/yr, no xrack.
    """
    big = review_file(DESIGNS / "aws_nvl36x2.yaml", samples=20_000)
    small = review_file(DESIGNS / "aws_nvl36x2.yaml", job_gpus=36, samples=20_000)
    b, s = dict(big.job.by_kind_per_day), dict(small.job.by_kind_per_day)
    assert b["nvlink_switch_tray"] * 365 == pytest.approx(0.9)
    assert s["nvlink_switch_tray"] * 365 == pytest.approx(0.45)
    assert b["nvlink_backplane"] * 365 == pytest.approx(0.3)
    assert s["nvlink_backplane"] * 365 == pytest.approx(0.1)
    # GPU-level kinds halve: 36 x (0.0809 + 0.0297 + 0.0260) / 365 per day
    assert s["gpu"] == pytest.approx(36 * 0.0809 / 365)


def test_every_availability_row_agrees():
    for name in ("gb200_nvl72", "aws_nvl36x2"):
        r = review_file(DESIGNS / f"{name}.yaml")
        assert all(a.agrees for a in r.availability), name
        # all 72 GPUs need all 18 trays and every shared part; 64 of 72 tolerate 2 trays
        assert r.availability[0].closed_form < r.availability[2].closed_form


def test_power_shelves_n_plus_1_do_not_interrupt():
    r = review_file(DESIGNS / "gb200_nvl72.yaml", samples=20_000)
    shelf = next(x for x in r.rows if x.component_kind == "power_shelf")
    assert shelf.events_per_year == pytest.approx(8 * 0.03) and not shelf.interrupts


# --- overrides and errors --------------------------------------------------------------

def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def test_rates_file_overrides_defaults(tmp_path):
    rates = _write(tmp_path, "r.yaml", """\
        rates:
          - kind: nvlink_backplane
            rate_per_year: 0.5
            basis: early-life high case (reliability-facts §2.2)
        """)
    r = review_file(DESIGNS / "gb200_nvl72.yaml", rates_file=rates, samples=20_000)
    row = next(x for x in r.rows if x.component_kind == "nvlink_backplane")
    assert row.events_per_year == pytest.approx(0.5)
    assert str(rates) in r.rates.files


def test_design_overrides_rates(tmp_path):
    text = (DESIGNS / "gb200_nvl72.yaml").read_text() + textwrap.dedent("""\
        failure_rates:
          - {kind: cooling_unit, rate_per_year: 0.3, basis: early-Blackwell leak reports}
        """)
    p = _write(tmp_path, "d.yaml", text)
    r = review_file(p, samples=20_000)
    row = next(x for x in r.rows if x.component_kind == "cooling_unit")
    assert row.events_per_year == pytest.approx(0.3)


@pytest.mark.parametrize("body, fragments", [
    ("rates:\n  - kind: gpux\n    rate_per_year: 0.1\n",
     ["r.yaml:2", "rates[0].kind", "unknown component kind 'gpux'", "did you mean 'gpu'"]),
    ("rates:\n  - kind: gpu\n    rate_per_year: -0.1\n",
     ["r.yaml:3", "rates[0].rate_per_year", "cannot be negative"]),
    ("rates:\n  - kind: gpu\n    rate_per_yaer: 0.1\n",
     ["r.yaml:3", "unknown key 'rate_per_yaer'"]),
    ("rates:\n  - kind: hbm2\n", ["unknown component kind 'hbm2'"]),
])
def test_bad_rates_file(tmp_path, run_cli, body, fragments):
    p = _write(tmp_path, "r.yaml", body)
    res = run_cli("failures", str(DESIGNS / "gb200_nvl72.yaml"), "--rates", str(p))
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    for f in fragments:
        assert f in res.output, (f, res.output)


def test_missing_rates_file(tmp_path, run_cli):
    res = run_cli("failures", str(DESIGNS / "gb200_nvl72.yaml"), "--rates", str(tmp_path / "no.yaml"))
    assert res.exit_code == 2 and "no.yaml: file not found" in res.output


def test_bad_design_override_names_design_line(tmp_path, run_cli):
    text = (DESIGNS / "gb200_nvl72.yaml").read_text() + "failure_rates:\n  - {kind: gpu, repair_hours: -1}\n"
    p = _write(tmp_path, "d.yaml", text)
    res = run_cli("failures", str(p))
    assert res.exit_code == 2 and "failure_rates[0].repair_hours" in res.output
    assert "d.yaml:" in res.output


def test_job_too_big(run_cli):
    res = run_cli("failures", str(DESIGNS / "gb200_nvl72.yaml"), "--job-gpus", "100")
    assert res.exit_code == 2 and "does not fit a cluster of 72 GPUs" in res.output


# --- CLI -------------------------------------------------------------------------------

def test_cli_json_and_reports(tmp_path, run_cli):
    res = run_cli("failures", str(DESIGNS / "gb200_nvl72.yaml"), "--format", "json",
                  "--samples", "20000", "--report", "md", "--report", "xlsx", "-o", str(tmp_path))
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert set(data) == {"design", "metrics", "tables"}
    assert data["metrics"]["job_gpus"] == 72
    md = (tmp_path / "gb200_nvl72.failures.md").read_text()
    from infra.reports.labels import metric_label

    assert md.startswith("# Failure review")
    mtbi = data["metrics"]["job_mtbi_hours"]  # 4 significant figures, with its unit
    assert f"| {metric_label('job_mtbi_hours')} | {float(f'{mtbi:.4g}'):,g} hours |" in md
    import openpyxl

    wb = openpyxl.load_workbook(tmp_path / "gb200_nvl72.failures.xlsx")
    assert "failures" in [s.lower() for s in wb.sheetnames]


def test_cli_compare(run_cli):
    res = run_cli("failures", str(DESIGNS / "gb200_nvl72.yaml"), str(DESIGNS / "aws_nvl36x2.yaml"),
                  "--samples", "20000")
    assert res.exit_code == 0, res.output
    assert "gb200_nvl72" in res.output and "aws_nvl36x2" in res.output
    assert "nvlink_switch_tray" in res.output


def test_job_availability_is_the_jobs_share_not_the_full_domain():
    """Issue 28 item 6: `--job-gpus 36` on a 72-GPU NVL72 reported the first row (72 GPUs).

    36 GPUs sit in ceil(36 / 72) = 1 domain and need ceil(36 / 4) = 9 healthy trays of
    18 (9 spare), not all 18: the job's figure is that row's, which is at least the
    64-GPU row (2 spare trays) and above the full-domain row.
    """
    full = review_file(DESIGNS / "gb200_nvl72.yaml", samples=20_000)
    job = review_file(DESIGNS / "gb200_nvl72.yaml", job_gpus=36, samples=20_000)
    m, rows = job.metrics(), {a.job_gpus_per_domain: a for a in job.availability}
    assert m["job_share_per_domain_gpus"] == 36 and rows[36].spare_trays == 9
    assert m["job_all_domains_availability_fraction"] == round(rows[36].job_availability, 6)
    assert rows[36].agrees  # the added row is checked against the Monte Carlo like the others
    assert rows[36].closed_form >= rows[64].closed_form > rows[72].closed_form
    assert m["job_all_domains_availability_fraction"] > m["domain_full_availability_fraction"]
    # the full-cluster job keeps the full-domain figure: 72 GPUs in 1 domain
    assert full.metrics()["job_all_domains_availability_fraction"] == \
        full.metrics()["domain_full_availability_fraction"]


# --- checkpoint times from the design's storage (issue 29, item 4) ----------------------

@pytest.fixture(scope="module")
def meta():
    return review_file(DESIGNS / "meta_h100_24k.yaml", samples=1000)


def _daly_goodput(write_h: float, restart_h: float, m: float) -> float:
    """Daly's interval and complete goodput, written out here (not the module's code)."""
    x = write_h / (2 * m)
    tau = math.sqrt(2 * write_h * m) * (1 + math.sqrt(x) / 3 + x / 9) - write_h
    return tau / (m * math.exp(restart_h / m) * (math.exp((tau + write_h) / m) - 1))


def test_meta_checkpoint_written_to_its_storage(meta):
    """Meta 24k: the storage (Tectonic, 2,000 GB/s sustained) writes every checkpoint.

    GPU side: 800 Gb/s of front-end NIC per 8 GPUs = 12.5 GB/s per GPU; 24,576 x 12.5
    = 307,200 GB/s > 2,000, so the storage binds. A checkpoint of 4 GB per GPU (Llama 3
    section 3.3.1, the largest): 24,576 x 4 = 98,304 GB / 2,000 GB/s = 49.152 s to write,
    49.152 s to read back on a restart: 20 min + 49.152 / 60 = 20.8192 min.
    The rates file's 60 s / 20 min are no longer used.
    """
    ck = meta.checkpoint
    assert ck.storage == "tectonic" and ck.gbyte_per_gpu == 4
    assert ck.write_seconds == pytest.approx(49.152)
    assert ck.read_seconds == pytest.approx(49.152)
    assert meta.job.checkpoint_write_seconds == pytest.approx(49.152)
    assert meta.job.restart_minutes == pytest.approx(20.8192)
    m = meta.job.mtbi_hours
    assert meta.job.goodput_fraction == pytest.approx(
        _daly_goodput(49.152 / 3600, 20.8192 / 60, m), rel=1e-9)
    # and it differs from the 60 s / 20 min default: 0.7552 -> 0.7597 (shorter write)
    assert meta.job.goodput_fraction > _daly_goodput(60 / 3600, 20 / 60, m)
    rows = {r["item"]: r for r in meta.as_dict()["tables"]["job_assumptions"]}
    assert rows["checkpoint_write_seconds"]["tag"] == "storage"
    assert "'tectonic'" in rows["checkpoint_write_seconds"]["basis"]
    assert "98.3 TB at 2,000 GB/s write" in rows["checkpoint_write_seconds"]["basis"]
    assert rows["checkpoint_read_seconds"]["value"] == pytest.approx(49.152)
    assert rows["restart_minutes"]["tag"] == "assumption + storage"
    assert rows["checkpoint_gigabytes_per_gpu"]["tag"] == "assumption"
    assert "2407.21783" in rows["checkpoint_gigabytes_per_gpu"]["basis"]


def test_meta_checkpoint_per_job_size_and_size_given():
    """Llama 3's 16,384 GPUs: 16,384 x 4 GB = 65,536 GB / 2,000 = 32.768 s (the storage
    guide's 32.77 s). 1 GB per GPU on 160 GPUs: the NICs bind (160 x 12.5 = 2,000 GB/s,
    exactly the storage): 160 GB / 2,000 = 0.08 s."""
    r = review_file(DESIGNS / "meta_h100_24k.yaml", job_gpus=16_384, samples=1000)
    assert r.job.checkpoint_write_seconds == pytest.approx(32.768)
    assert r.job.restart_minutes == pytest.approx(20 + 32.768 / 60)
    r = review_file(DESIGNS / "meta_h100_24k.yaml", job_gpus=160, samples=1000,
                    checkpoint_gbyte_per_gpu=1.0)
    assert r.job.checkpoint_write_seconds == pytest.approx(0.08)
    rows = {x["item"]: x for x in r.job_assumptions()}
    assert rows["checkpoint_gigabytes_per_gpu"] == {
        "item": "checkpoint_gigabytes_per_gpu", "value": 1.0,
        "basis": "--checkpoint-gb-per-gpu", "tag": "given"}


def test_checkpoint_given_wins_and_fallback_says_why(meta):
    """--checkpoint-seconds beats the storage (and no read-back is added); a design
    without storage keeps the rates file's 60 s and says why."""
    r = review_file(DESIGNS / "meta_h100_24k.yaml", checkpoint_write_seconds=30, samples=1000)
    assert r.job.checkpoint_write_seconds == 30 and r.job.restart_minutes == 20
    rows = {x["item"]: x for x in r.job_assumptions()}
    assert rows["checkpoint_write_seconds"]["basis"] == \
        "--checkpoint-seconds (the design's storage is not used)"
    assert "checkpoint_read_seconds" not in rows
    r = review_file(DESIGNS / "meta_h100_24k.yaml", restart_minutes=5, samples=1000)
    assert r.job.restart_minutes == 5  # given: the whole restart, no read added
    assert r.job.checkpoint_write_seconds == pytest.approx(49.152)
    r = review_file(DESIGNS / "llama3_h100_16k.yaml", samples=1000)
    rows = {x["item"]: x for x in r.job_assumptions()}
    assert r.job.checkpoint_write_seconds == 60 and rows["checkpoint_write_seconds"]["tag"] == \
        "assumption"
    assert rows["checkpoint_write_seconds"]["basis"].endswith(
        "(rates file; the design declares no storage)")
    r = review_file(DESIGNS / "llama3_h100_16k.yaml", checkpoint_gbyte_per_gpu=2, samples=1000)
    assert r.job.checkpoint_write_seconds == 60  # a size with no storage to write it to
    assert r.job_assumptions()[1]["basis"].endswith(
        "(rates file; the design declares no storage; --checkpoint-gb-per-gpu unused)")


def test_free_checkpoint_goodput_is_the_time_not_restarting():
    """delta = 0: Daly's tau = 0, goodput -> e^(-R/M) (was 0); R = 20 min, M = 3 h:
    e^(-1/9) = 0.894839."""
    assert daly_interval(0.0, 3.0) == 0.0
    assert goodput(0.0, 0.0, 1 / 3, 3.0) == pytest.approx(math.exp(-1 / 9))
    assert goodput(0.0, 0.0, 0.0, math.inf) == 1.0


def test_failures_cli_checkpoint_basis_in_text_json_and_compare(run_cli, tmp_path):
    res = run_cli("failures", str(DESIGNS / "meta_h100_24k.yaml"), "--samples", "1000",
                  "--checkpoint-gb-per-gpu", "2")
    assert res.exit_code == 0, res.output
    # 24,576 x 2 GB = 49,152 GB / 2,000 GB/s = 24.576 s
    assert ("goodput assumes checkpoint_write_seconds = 24.58 [storage: 'tectonic' "
            "(meta-tectonic-llama3): 2 GB per GPU x 24,576 GPUs = 49.15 TB at 2,000 GB/s write"
            in res.output)
    assert "goodput assumes checkpoint_gigabytes_per_gpu = 2 [given: --checkpoint-gb-per-gpu]" \
        in res.output
    res = run_cli("failures", str(DESIGNS / "meta_h100_24k.yaml"),
                  str(DESIGNS / "llama3_h100_16k.yaml"), "--samples", "1000", "--report", "xlsx",
                  "-o", str(tmp_path))
    assert res.exit_code == 0, res.output
    assert "meta_h100_24k: checkpoint_write_seconds = 49.15 [storage:" in res.output
    assert "llama3_h100_16k: checkpoint_write_seconds = 60 [assumption:" in res.output
    import openpyxl

    wb = openpyxl.load_workbook(tmp_path / "failures-meta_h100_24k-vs-llama3_h100_16k.xlsx")
    rows = list(wb["Job assumptions"].iter_rows(values_only=True))
    assert rows[0] == ("Design", "Item", "Value", "Given or assumed", "Basis")
    by = {(r[0], r[1]): r for r in rows[1:]}
    assert by[("meta_h100_24k", "checkpoint_write_seconds")][2:4] == (49.152, "storage")
    assert by[("llama3_h100_16k", "checkpoint_write_seconds")][2:4] == (60, "assumption")


def test_storage_guide_quotes_the_failures_goodput(meta):
    """docs/guides/fabrics-storage.md quotes the storage-derived goodput and the one the
    rates file's 60 s / 20 min would give (--checkpoint-seconds 60 --restart-minutes 20)."""
    from conftest import ROOT

    prose = " ".join((ROOT / "docs/guides/fabrics-storage.md").read_text().split())
    old = review_file(DESIGNS / "meta_h100_24k.yaml", checkpoint_write_seconds=60,
                      restart_minutes=20, samples=1000)
    assert (f"Goodput is {meta.job.goodput_fraction:.4f}, against "
            f"{old.job.goodput_fraction:.4f} with the assumed 60 s write") in prose
    assert f"in {meta.job.checkpoint_write_seconds:.2f} s" in prose
