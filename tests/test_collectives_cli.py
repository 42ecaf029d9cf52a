"""``infra collectives``: its contract (JSON, CSV, defaults), errors, and model invariants
that must hold on every shipped design."""

from __future__ import annotations

import csv
import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DESIGNS
from infra.analysis.perf import collectives
from infra.analysis.perf.inputs import design_tiers
from infra.models.resolve import load_design

KEYS = ["op", "gpus", "nodes", "size_bytes", "algorithm", "protocol", "busbw_gbyte_s",
        "algbw_gbyte_s", "time_s", "bottleneck", "placement"]
MODELLED = ["aws_nvl36x2", "aws_nvl36x2_cluster", "dgx_b200_su", "dgx_gh200_256",
            "dgx_h100_su", "gb200_nvl72", "gb200_nvl72_576", "gb300_nvl72", "hgx_b300_su",
            "hgx_h200_cluster", "mi300x_cluster", "mi355x_cluster"]


def test_json_contract_and_defaults(run_cli):
    r = run_cli("collectives", str(DESIGNS / "gb200_nvl72_576.yaml"), "--format", "json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    rows = data["rows"]
    assert list(rows[0]) == KEYS
    # defaults: 5 ops x 4 job sizes (8, one 72-GPU domain, two, all 576) x 8 sizes
    assert len(rows) == 5 * 4 * 8
    assert sorted({r["gpus"] for r in rows}) == [8, 72, 144, 576]
    assert sorted({r["size_bytes"] for r in rows}) == [2**20 * 4**k for k in range(8)]
    assert {r["op"] for r in rows} == {"all_reduce", "all_gather", "reduce_scatter",
                                       "all_to_all", "broadcast"}


def test_csv_and_table(run_cli):
    r = run_cli("collectives", str(DESIGNS / "dgx_h100_su.yaml"), "--op", "all_reduce",
                "--gpus", "16", "--size", "1GiB", "--format", "csv")
    assert r.exit_code == 0, r.output
    (row,) = list(csv.DictReader(io.StringIO(r.output)))
    assert list(row) == KEYS and row["gpus"] == "16" and row["size_bytes"] == str(2**30)
    t = run_cli("collectives", str(DESIGNS / "dgx_h100_su.yaml"), "--op", "all_reduce",
                "--gpus", "16", "--size", "1GiB")
    assert t.exit_code == 0 and "1 GiB" in t.output and "16 GPUs: 2 domains of 8 GPUs" in t.output


@pytest.mark.parametrize("args, words", [
    (["--gpus", "100000"], "does not fit"),
    (["--partition", "5"], "does not divide"),
    (["--size", "12 parsecs"], "is not a size"),
    (["--size", "0"], "outside"),
    (["--op", "all_reduce", "--algo", "PAT", "--gpus", "8"], "none of the algorithms"),
])
def test_bad_input_exits_2(run_cli, args, words):
    r = run_cli("collectives", str(DESIGNS / "dgx_h100_su.yaml"), *args)
    assert r.exit_code == 2, r.output
    assert words in r.output and "Traceback" not in r.output


def test_gpu_without_a_model_is_a_clear_error(run_cli):
    r = run_cli("collectives", str(DESIGNS / "gaudi3_cluster.yaml"))
    assert r.exit_code == 2
    assert "no collective model for GPU 'intel-gaudi3-hl325l'" in r.output


def test_api_matches_cli(run_cli):
    import infra

    rows = infra.collectives(DESIGNS / "mi300x_cluster.yaml", ops=["all_gather"], gpus=[64],
                             sizes=[2**28])
    r = run_cli("collectives", str(DESIGNS / "mi300x_cluster.yaml"), "--op", "all_gather",
                "--gpus", "64", "--size", "256MiB", "--format", "json")
    assert json.loads(r.output)["rows"] == [x.as_dict() for x in rows]


@pytest.mark.parametrize("name", MODELLED)
def test_invariants_on_every_design(name):
    """For every op and default job size: time grows with size; busbw is positive and
    never above what the GPU's links could carry with in-switch reduction (NVLS busbw can
    exceed the line rate, by the catalog factor; across nodes an all-reduce's algbw is at
    most the one-node figure, busbw = algbw x 2(n-1)/n then grows with n); all-to-all
    never beats the GPU's links."""
    rd = load_design(DESIGNS / f"{name}.yaml")
    t = design_tiers(rd)
    rows = collectives(rd)
    line = t.up_line_gbyte_s or float("inf")
    cap = line * max(1.0, t.model.nvls_busbw_per_line or 1.0)
    by_key: dict = {}
    for r in rows:
        p = r.gpus // r.nodes
        assert r.busbw_gbyte_s > 0
        if r.op == "all_reduce" and p > 1:
            assert r.algbw_gbyte_s <= cap / (2 * (p - 1) / p) * 1.0001, r
        else:
            assert r.busbw_gbyte_s <= cap * 1.0001 + 1e-9, r
        if r.op == "all_to_all":
            assert r.busbw_gbyte_s <= line + 1e-9
        by_key.setdefault((r.op, r.gpus), []).append(r)
    for series in by_key.values():
        times = [r.time_s for r in sorted(series, key=lambda r: r.size_bytes)]
        assert times == sorted(times)


@settings(max_examples=40, deadline=None)
@given(gpus=st.integers(2, 576), size=st.integers(1, 2**35))
def test_more_gpus_across_nodes_never_speed_up_all_to_all(gpus, size):
    """all-to-all per-GPU time share over the network only grows with the job (576-GPU
    NVL72 hall): busbw at ``gpus`` across domains is at most the single-domain figure."""
    rd = load_design(DESIGNS / "gb200_nvl72_576.yaml")
    (r,) = collectives(rd, ops=("all_to_all",), gpus=(gpus,), sizes=(size,))
    (one,) = collectives(rd, ops=("all_to_all",), gpus=(min(gpus, 72),), sizes=(size,))
    assert r.busbw_gbyte_s <= one.busbw_gbyte_s * 1.0001


def test_oversubscribed_leaf_uplinks_bind_all_to_all(tmp_path):
    """DGX SuperPOD H100 (127 DGX, 4 SU) with 2:1 leaves: a 1,016-GPU all-to-all crosses the
    spines, so each GPU gets 400 / 2 = 200 Gb/s = 25 GB/s x 0.96 = 24 GB/s over the leaf
    uplinks; busbw = 24 x (1,016 - 1) / (1,016 - 8) = 24.17 GB/s (before latency)."""
    import yaml

    data = yaml.safe_load((DESIGNS / "dgx_h100_superpod.yaml").read_text())
    data["fabrics"]["compute"]["tiers"][0]["oversubscription"] = 2
    path = tmp_path / "os2.yaml"
    path.write_text(yaml.safe_dump(data))
    (r,) = collectives(load_design(path), ops=("all_to_all",), gpus=(1016,), sizes=(2**30,))
    assert r.bottleneck.startswith("leaf uplinks 2:1")
    assert r.busbw_gbyte_s == pytest.approx(24 * 1015 / 1008, rel=0.01)


def test_cli_choices_are_the_models():
    """The CLI keeps its own lists (it imports no analysis before a command runs): they
    must name exactly the model's ops and the algorithms a user may ask for (P2P is
    all-to-all's only algorithm, never asked for)."""
    from infra.analysis.perf.algorithms import ALGORITHMS, OPS
    from infra.cli import collectives_cmd

    assert collectives_cmd.OPS == OPS
    assert collectives_cmd.ALGOS == tuple(a for a in ALGORITHMS if a != "P2P")


def test_all_to_all_of_a_partly_filled_domain_is_bound_by_its_nics():
    """75 GPUs on NVL72 racks are 72 + 3: each of the 3 sends 72/75 of its buffer through
    its one NIC (400 Gb/s), so the NIC binds and the job is far slower than 72 GPUs in one
    domain (hypothesis found 75 GPUs at 191,651,822 bytes a hair faster before)."""
    rd = load_design(DESIGNS / "gb200_nvl72_576.yaml")
    (r,) = collectives(rd, ops=("all_to_all",), gpus=(75,), sizes=(191_651_822,))
    (one,) = collectives(rd, ops=("all_to_all",), gpus=(72,), sizes=(191_651_822,))
    assert "NIC" in r.bottleneck and "NVLink" in one.bottleneck
    # 72/75 x 191,651,822 B over the NIC at 400 Gb/s x 0.96 (the model's network
    # efficiency) = 183,985,749 / 48e9 = 3.833 ms, plus tens of microseconds of latency
    assert r.time_s == pytest.approx(72 / 75 * 191_651_822 / 48e9, rel=0.01)
    assert r.time_s > 5 * one.time_s


def test_under_subscribed_rack_switch_gives_no_more_than_injection():
    """Meta's 24k design: rack switches at 1:2, cluster switches 7:1 (fat_tree.tier_ratios
    [0.5, 7] -> [1, 3.5]). A 64-GPU job gets its NIC (400 Gb/s), not twice it; a job inside
    one 192-rack pod (384 nodes, 3,072 GPUs) stays below the core; the whole cluster
    crosses the core at 800 / 7 = 114.3 Gb/s a GPU."""
    rd = load_design(DESIGNS / "meta_h100_24k.yaml")
    rows = collectives(rd, ops=("all_reduce",), gpus=(64, 3072, 24576), sizes=(2**33,))
    small, pod, whole = sorted(rows, key=lambda r: r.gpus)
    assert "NIC per GPU (400 Gb/s" in small.bottleneck
    assert "through the spine tier" in pod.placement
    assert "through the core tier" in whole.placement and "3.5:1" in whole.bottleneck
    assert "114.286 Gb/s per GPU" in whole.bottleneck
