"""Numerics that cannot overflow, and CLI options validated like the schemas (issue 18)."""

from __future__ import annotations

import json
import math

import pytest

from conftest import DESIGNS
from infra.analysis.reliability.availability import DomainModel, Part, _tail, closed_form, job_availability
from infra.analysis.reliability.checkpoint import goodput

NVL72 = str(DESIGNS / "gb200_nvl72.yaml")


def finite_everywhere(x) -> bool:
    if isinstance(x, dict):
        return all(finite_everywhere(v) for v in x.values())
    if isinstance(x, list):
        return all(finite_everywhere(v) for v in x)
    return not isinstance(x, float) or math.isfinite(x)


def test_goodput_in_log_space():
    # Before: OverflowError (math.exp(restart / mtbi) with R >> M).
    assert goodput(1.0, 1e7, 1e7, 1e-6) == 0.0
    # Unchanged where it did not overflow: tau = 1 h, delta = 0.1 h, R = 0.2 h, M = 10 h:
    # 1 / (10 e^0.02 (e^0.11 - 1)) = 1 / (10 x 1.020201 x 0.116278) = 1 / 1.186271 = 0.842978
    assert goodput(1.0, 0.1, 0.2, 10.0) == pytest.approx(0.842978, abs=1e-6)


def test_binomial_tail_without_overflow():
    # C(5000, 2500) ~ 1e1503 overflows a float; the log-space sum does not. Failed
    # units ~ Binomial(5000, 0.001) ~ Poisson(5): P(<= 10 failed) = 0.986305 (Poisson
    # table); the binomial is within 2e-4 of it.
    assert _tail(5000, 0.999, 4990) == pytest.approx(0.986305, abs=2e-4)
    assert _tail(4, 0.9, 3) == pytest.approx(0.9**4 + 4 * 0.9**3 * 0.1)


def test_shared_rack_counts_whole_for_one_domain_and_once_for_the_job():
    # Four one-tray domains per rack: the rack has count 1/4 per domain.
    m = DomainModel(1, 1, 8, tray_parts=(Part("tray", 1, 0.1),),
                    domain_parts=(Part("rack", 0.25, 0.01),))
    # One domain is down whenever its rack is: 0.9 x 0.99 (before: 0.9 x 0.99^0.25).
    assert closed_form(m, 8) == pytest.approx(0.9 * 0.99)
    # A job over the 4 domains of one rack: 0.9^4 x 0.99 (the rack once, not 4 times).
    assert job_availability(m, 8, 4) == pytest.approx(0.9**4 * 0.99)
    assert job_availability(m, 8, 10**11) == 0.0  # underflows to 0, no error


def test_availability_self_check_agrees_on_dgx_h100_superpod(run_cli):
    # Before: closed form 0.994671 (rack^(31/32)) outside the Monte Carlo's 99 % interval
    # [0.993942, 0.994558]: 'agrees: no'.
    res = run_cli("failures", str(DESIGNS / "dgx_h100_superpod.yaml"), "--format", "json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)["tables"]["domain_availability"]
    assert rows and all(r["agrees"] for r in rows), rows


def test_failures_on_the_largest_design_is_finite(run_cli, tmp_path):
    # Before: OverflowError: math range error (goodput) at >= 10^9 GPUs. The largest
    # design is now 10^8 GPUs (issue 31, D9: 3.2 x 10^10 passed); one rack more is exit 2.
    text = (DESIGNS / "llama3_h100_16k.yaml").read_text()
    big = tmp_path / "big.yaml"
    big.write_text(text.replace("  dgx4: 512", "  dgx4: 3125000"))  # x 32 GPUs = 10^8
    assert big.read_text() != text
    res = run_cli("failures", str(big), "--format", "json", "--samples", "1000")
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["metrics"]["gpus"] == 10**8
    assert finite_everywhere(data)
    big.write_text(text.replace("  dgx4: 512", "  dgx4: 3125001"))  # 10^8 + 32 GPUs
    res = run_cli("failures", str(big), "--format", "json", "--samples", "1000")
    assert res.exit_code == 2 and "100,000,032 GPUs: beyond the 100,000,000" in res.output


@pytest.mark.parametrize("args", [
    ("--seed", "-1"), ("--samples", "100000000000"), ("--target", "nan"),
    ("--checkpoint-seconds", "nan"), ("--checkpoint-seconds", "inf"),
    ("--checkpoint-seconds", "1e308"), ("--restart-minutes", "1e308"), ("--job-gpus", "0"),
])
def test_failures_options(run_cli, args):
    res = run_cli("failures", NVL72, *args)
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and "Invalid value" in res.output


@pytest.mark.parametrize("args, fragment", [
    (("--target", "1e400 MW"), "not a finite number"),
    (("--target", "1e300 EFLOPS bf16"), "beyond the size this tool supports"),
    (("--energy-usd-per-kwh", "1e308"), "not a finite number in [0, 10]"),
    (("--pue", "nan"), "PUE nan is outside"),
    (("--maintenance", "nan"), "maintenance nan is not a fraction"),
    (("--years", "100000000"), "Invalid value"),
])
def test_compare_options(run_cli, args, fragment):
    res = run_cli("compare", "nvidia-h100-sxm5", *args)
    assert res.exit_code == 2, res.output
    assert fragment in res.output


def test_three_tier_spine_failure_degrades_only_its_block(tmp_path):
    """16 SU of DGX H100 (508 nodes x 8 rails = 4,064 ports) on QM9700 (radix 64, 1:1):

        [core x64]
          |  (every spine)
        [spine x32] [spine x32] [spine x32] [spine x32]   4 blocks
          |             |           |           |
        [32 leaves]  [32 leaves] [32 leaves] [32 leaves]   (8 rails x 4 SU each)

    A spine has 32 down ports -> 32 distinct leaves = one block of 4 SU (127 nodes,
    here 32 + 32 + 32 + 31 = 127 nodes x 8 rails = 1,016 ports = 1,016 GPUs). Losing one
    of its block's 32 spines leaves 31/32 of their cross-leaf bandwidth. Before: all
    4,064 GPUs degraded by 1/32.
    """
    from infra.analysis.summary import analyze_file

    text = (DESIGNS / "dgx_h100_superpod.yaml").read_text()
    text = text.replace("""        down: {lower_end: nvidia-mms4x00-ns, switch_end: nvidia-mms4x00-ns}
build:
  superpod: 1""", """        down: {lower_end: nvidia-mms4x00-ns, switch_end: nvidia-mms4x00-ns}
      - role: core
        switch: nvidia-quantum-2-qm9700
        down: {lower_end: nvidia-mms4x00-ns, switch_end: nvidia-mms4x00-ns}
build:
  superpod: 4""")
    p = tmp_path / "sp16.yaml"
    p.write_text(text)
    a = analyze_file(p)
    assert a.compute.gpus == 4064
    leaf, spine, core = a.fabrics[0].tiers
    assert (leaf.switches, spine.switches, core.switches) == (128, 128, 64)
    row = next(b for b in a.blast if b.component_kind == "spine_switch")
    # 4,064 node ports / 128 leaves = 31.75 per leaf (1 GPU each); x 32 leaves = 1,016
    assert row.gpus_degraded == 1016
    assert row.degraded_bandwidth_fraction == pytest.approx(31 / 32, abs=1e-4)
    core_row = next(b for b in a.blast if b.component_kind == "core_switch")
    assert core_row.gpus_degraded == 4064


def test_llama3_goodput_states_its_assumptions(run_cli):
    """Llama 3: goodput about 82 % vs Meta's > 90 % effective training time. The gap is
    the illustrative restart (20 min) and checkpoint (60 s) defaults: the output must say
    so, and the design's notes must name Meta's figure."""
    res = run_cli("failures", str(DESIGNS / "llama3_h100_16k.yaml"), "--samples", "1000",
                  "--format", "json")
    data = json.loads(res.output)
    rows = {r["item"]: r for r in data["tables"]["job_assumptions"]}
    assert rows["restart_minutes"]["value"] == 20 and rows["restart_minutes"]["tag"] == "assumption"
    assert "AIReSim" in rows["restart_minutes"]["basis"]
    assert rows["checkpoint_write_seconds"]["value"] == 60
    text = run_cli("failures", str(DESIGNS / "llama3_h100_16k.yaml"), "--samples", "1000",
                   "--restart-minutes", "5").output
    assert "goodput assumes restart_minutes = 5 [given: --restart-minutes]" in text
    from infra.analysis.summary import analyze_file

    notes = analyze_file(DESIGNS / "llama3_h100_16k.yaml").rd.design.assumptions.notes
    assert any("> 90 % effective training time" in n for n in notes)
