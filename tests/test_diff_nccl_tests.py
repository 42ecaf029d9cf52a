"""``infra diff`` with nccl-tests logs: measured beside predicted, slow runs as findings,
malformed logs as one ``error:`` line (exit 2), ``--calibrate`` writing one override file
(``OUT/<slug>.calibrated.yaml``; its use with ``--collective-model``: test_collective_override.py).

Fixture logs (tests/fixtures/nccl-tests, written by its make_nccl_fixtures.py) carry published
busbw figures: Azure ND H200 v5 (8 x H200, NCCL 2.20.5, all-reduce NVLS) and NVIDIA/nccl
#2409 (2 x 8 H100 over 8 x 400G RoCE per node, 231 GB/s at 8 GiB).

Predicted values are recomputed here from the model's formulas and the nccl-sm90 catalog
figures (docs/guides/collectives.md): NVLS busbw = 1.07 x 18 links x 25 GB/s = 481.5 GB/s;
time = latency + size / algbw; busbw = algbw x 2(n-1)/n.
"""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import DESIGNS, ROOT
from infra.ingest.base import InventoryError
from infra.ingest.nccl_tests import parse_nccl_tests_text

FIX = ROOT / "tests/fixtures/nccl-tests"
H200 = DESIGNS / "hgx_h200_cluster.yaml"
H100_SU = DESIGNS / "dgx_h100_su.yaml"
GIB = 2**30
NVLS_BUS = 1.07 * 18 * 25  # 481.5 GB/s


def allreduce_busbw(size: int, n: int, algbw_bound: float, latency_us: float) -> float:
    """nccl-tests busbw of an all-reduce whose bandwidth term is ``algbw_bound`` GB/s."""
    t_us = latency_us + size / (algbw_bound * 1e3)
    return size / (t_us * 1e3) * 2 * (n - 1) / n


def inventory(tmp_path, *logs: tuple[str, str]):
    """A tmp inventory holding only ``nccl-tests/NAME`` files with ``TEXT``."""
    d = tmp_path / "inv" / "nccl-tests"
    d.mkdir(parents=True)
    for name, text in logs:
        (d / name).write_text(text)
    return d.parent


def diff_json(run_cli, design, inv, *extra):
    res = run_cli("diff", str(design), "--inventory", str(inv), "--format", "json", *extra)
    assert res.exit_code in (0, 1), res.output
    return res, json.loads(res.stdout)


def test_h200_measured_beside_predicted_no_finding(run_cli):
    res, data = diff_json(run_cli, H200, FIX / "azure-nd-h200-v5")
    assert res.exit_code == 0 and data["findings"] == []
    rows = {r["size_bytes"]: r for r in data["collectives"]}
    assert len(rows) == 24 == data["summary"]["collective_rows"]
    # one HGX: NVLS, latency 25 us (hwLat NVLINK NVLS Simple), algbw bound 481.5 / (2 x 7/8)
    # 8 GiB: t = 25 + 8,589,934,592 / 275,143 = 31,244.9 us -> busbw 481.11
    # 1 GiB: t = 25 + 1,073,741,824 / 275,143 = 3,927.5 us -> busbw 478.44
    for size, measured in ((8 * GIB, 479.98), (GIB, 467.58)):
        r = rows[size]
        want = allreduce_busbw(size, 8, NVLS_BUS / 1.75, 25.0)
        assert r["predicted_busbw_gbyte_s"] == pytest.approx(want, rel=5e-3)
        assert r["measured_busbw_gbyte_s"] == measured and r["status"] == "ok"
        assert r["algorithm"] == "NVLS Simple" and r["binds"] == "nvls_busbw_per_line"
        assert r["ratio"] == pytest.approx(measured / want, rel=5e-3)
    # 128 MiB (Azure's "134M"): 412.45 measured, 10 % under the model; reported, not judged
    small = rows[128 * 2**20]
    assert small["measured_busbw_gbyte_s"] == 412.45 and small["status"] == "small"
    assert {r["status"] for s, r in rows.items() if s < GIB} == {"small"}


def test_h200_text_shows_the_rows(run_cli):
    res = run_cli("diff", str(H200), "--inventory", str(FIX / "azure-nd-h200-v5"))
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "all_reduce_perf.txt: all_reduce on 8 GPUs" in out
    line = next(s for s in out.splitlines() if s.strip().startswith("8 GiB"))
    assert "479.98" in line and "481.1" in line and " ok " in line and "NVLS Simple" in line


def test_nccl_2409_is_a_finding_with_its_cause(run_cli):
    res, data = diff_json(run_cli, H100_SU, FIX / "nccl-2409")
    assert res.exit_code == 1  # an error finding gates like any inventory mismatch
    [f] = data["findings"]
    assert (f["severity"], f["check"], f["node"]) == ("error", "collective-slow", "h100-a, h100-b")
    # 2 DGX H100, NVLSTree: algbw bound min(481.5 / 1.75 = 275.14 (NVLS),
    #   8 NICs x 50 GB/s x 0.96 / (2 x 1/2) x 0.92 = 353.3 (network)) = 275.14;
    # latency 25 (NVLS hop) + 2 x log2(2) x 20.9 (hwLat NET NVLSTree) = 66.8 us;
    # 8 GiB: t = 66.8 + 31,219.9 us -> busbw x 2 x 15/16 = 514.8; 231 / 514.8 = 0.449: 55 % below
    want = allreduce_busbw(8 * GIB, 16, NVLS_BUS / 1.75, 66.8)
    assert want == pytest.approx(514.8, abs=0.05)
    row = next(r for r in data["collectives"] if r["size_bytes"] == 8 * GIB)
    assert row["predicted_busbw_gbyte_s"] == pytest.approx(want, rel=5e-3)
    assert row["status"] == "slow" and row["nodes"] == 2 and row["algorithm"] == "NVLSTree Simple"
    assert f"is {round((1 - 231 / want) * 100)} % below the predicted {want:.0f} GB/s" in f["cost"]
    assert f["found"].startswith("231 GB/s (2 of 2 rows")
    for cause in ("NVLSTree bound by", "crosses 2 scale-up domains", "GPUDirect RDMA",
                  "PFC/ECN", "GID", "NVIDIA/nccl #2409"):
        assert cause in f["cost"]
    assert f["source"].endswith("nccl-2409/nccl-tests/all_reduce_perf.txt:28")


def test_single_domain_shortfall_blames_nvlink(run_cli, tmp_path):
    text = (FIX / "azure-nd-h200-v5/nccl-tests/all_reduce_perf.txt").read_text()
    slow = text.replace("479.98", "300.00")  # the 8 GiB row, both columns
    res, data = diff_json(run_cli, H200, inventory(tmp_path, ("all_reduce_perf.txt", slow)))
    [f] = data["findings"]
    assert res.exit_code == 1 and f["check"] == "collective-slow"
    assert "nvidia-smi nvlink -s" in f["cost"] and "GPUDirect" not in f["cost"]


def test_rows_that_do_not_fit_are_not_comparable(run_cli, tmp_path):
    src = (FIX / "nccl-2409/nccl-tests/all_reduce_perf.txt").read_text().splitlines()
    lines = [s for s in src if " Rank " not in s]  # the rank count from NCCL INFO instead
    lines.insert(3, "h100-a:4100:4100 [0] NCCL INFO comm 0x55d0 rank 0 nranks 512 cudaDev 0 "
                    "busId 18000 commId 0x1 - Init COMPLETE")
    sendrecv = "\n".join(src).replace("all_reduce_perf", "sendrecv_perf")
    inv = inventory(tmp_path, ("all_reduce_perf-512.txt", "\n".join(lines)),
                    ("sendrecv_perf.txt", sendrecv))
    res, data = diff_json(run_cli, H100_SU, inv)
    assert res.exit_code == 0 and data["findings"] == []
    by = {(r["op"], r["gpus"]) for r in data["collectives"]}
    assert by == {("all_reduce", 512), ("sendrecv", 16)}
    assert {r["status"] for r in data["collectives"]} == {"not comparable"}
    notes = {r["op"]: r["note"] for r in data["collectives"]}
    assert "512 GPUs does not fit: the design has 256" in notes["all_reduce"]
    assert "does not predict sendrecv" in notes["sendrecv"]
    text = run_cli("diff", str(H100_SU), "--inventory", str(inv)).stdout
    assert "all_reduce on 512 GPUs, not comparable" in text


def test_inventory_with_host_dumps_and_logs(run_cli, tmp_path):
    inv = tmp_path / "inv"
    shutil.copytree(ROOT / "tests/fixtures/inventory/hgx-h100-clean", inv)
    shutil.copytree(FIX / "nccl-2409/nccl-tests", inv / "nccl-tests")
    res, data = diff_json(run_cli, H100_SU, inv)
    assert [f["check"] for f in data["findings"]] == ["collective-slow"]
    assert data["summary"]["inspected_nodes"] == 4  # nccl-tests/ is not a host


BAD = [  # fixture, name in the inventory, message, line
    ("empty.txt", "all_reduce_perf.txt", "empty file", 1),
    ("no-rows.txt", "all_reduce_perf.txt", "no data rows", 1),
    ("cut-row.txt", "all_reduce_perf.txt", "data row of 6 fields, expected 13", 28),
    ("unknown-test.txt", "unknown-test.txt", "unknown test program 'scan_perf'", 3),
]


@pytest.mark.parametrize("fixture,name,message,line", BAD)
def test_malformed_log_exits_2_naming_the_file(run_cli, tmp_path, fixture, name, message, line):
    inv = inventory(tmp_path, (name, (FIX / "malformed" / fixture).read_text()))
    res = run_cli("diff", str(H100_SU), "--inventory", str(inv))
    assert res.exit_code == 2, res.output
    [err] = [s for s in res.output.splitlines() if s.startswith("error:")]
    assert f"{inv / 'nccl-tests' / name}:{line}: {message}" in err
    assert "Traceback" not in res.output


@pytest.mark.parametrize("old,new,message", [
    ("  69723.5  123.20  231.00", "  69723.5  garbage 231.00", "out-of-place algbw: 'garbage' is not a number"),
    ("123.20  231.00       0\n", "123.20     nan       0\n", "in-place busbw: 'nan' is not a finite"),
    ("123.20  231.00       0\n", "123.20     inf       0\n", "in-place busbw: 'inf' is not a finite"),
])
def test_bad_numbers_exit_2(run_cli, tmp_path, old, new, message):
    text = (FIX / "nccl-2409/nccl-tests/all_reduce_perf.txt").read_text()
    assert old in text
    inv = inventory(tmp_path, ("all_reduce_perf.txt", text.replace(old, new)))
    res = run_cli("diff", str(H100_SU), "--inventory", str(inv))
    assert res.exit_code == 2 and f"all_reduce_perf.txt:28: {message}" in res.output


def test_unnamed_log_and_no_rank_count(run_cli, tmp_path):
    text = (FIX / "azure-nd-h200-v5/nccl-tests/all_reduce_perf.txt").read_text()
    res = run_cli("diff", str(H200), "--inventory", str(inventory(tmp_path, ("results.txt", text))))
    assert res.exit_code == 2 and "cannot tell the collective" in res.output
    no_ranks = "\n".join(s for s in text.splitlines() if " Rank " not in s)
    inv = inventory(tmp_path / "b", ("all_reduce_perf.txt", no_ranks))
    res = run_cli("diff", str(H200), "--inventory", str(inv))
    assert res.exit_code == 2 and "no rank count" in res.output


def test_oversized_log_is_refused(run_cli, tmp_path):
    inv = inventory(tmp_path, ("all_reduce_perf.txt", "#" * (16 * 2**20 + 1)))
    res = run_cli("diff", str(H200), "--inventory", str(inv))
    assert res.exit_code == 2 and "too large for nccl-tests output" in res.output


def test_older_formats_and_launcher_tags():
    # nccl-tests 2.x before the root column: "error" is a max deviation, not a count
    old = """ nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5
   Rank  0 Pid 1821213 on nodeA device  0 [0x07] NVIDIA A100-SXM4-40GB
   Rank  1 Pid 1821214 on nodeA device  1 [0x0a] NVIDIA A100-SXM4-40GB
       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error
 8589934592    2147483648   float     sum    95131   90.30  158.02  4e-07    95176   90.25  157.94  4e-07
"""
    [run] = parse_nccl_tests_text(old, "all_reduce_perf.txt")
    r = run.rows[0]
    assert (run.op, run.ranks, run.hosts) == ("all_reduce", 2, ("nodeA",))
    assert (r.busbw_gbyte_s, r.ip_busbw_gbyte_s, r.wrong) == (158.02, 157.94, 0)
    # mpirun --tag-output, -c 0 (N/A), NCCL version from an INFO line
    tagged = """[1,0]<stdout>:# Collective test starting: all_gather_perf
[1,0]<stdout>:#  Rank  0 Group  0 Pid  1 on a device  0 [0000:18:00] NVIDIA H100 80GB HBM3
[1,0]<stdout>:#  Rank  1 Group  0 Pid  2 on b device  0 [0000:18:00] NVIDIA H100 80GB HBM3
a:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4
[1,0]<stdout>:  1073741824  134217728  float  none  -1  21000  51.13  25.56  N/A  20900  51.37  25.69  N/A
"""
    [run] = parse_nccl_tests_text(tagged, "log.txt")
    assert (run.op, run.ranks, run.library_version, run.rows[0].wrong) == ("all_gather", 2, "2.21.5", None)


def test_several_runs_in_one_file_and_wrong_results(run_cli, tmp_path):
    one = (FIX / "nccl-2409/nccl-tests/all_reduce_perf.txt").read_text()
    two = one.replace("all_reduce_perf", "all_gather_perf")
    bad = one.replace("69723.5  123.20  231.00       0", "69723.5  123.20  231.00      12")  # both
    runs = parse_nccl_tests_text(one + two, "mixed.txt")
    assert [r.op for r in runs] == ["all_reduce", "all_gather"]
    assert runs[1].line == one.count("\n") + 2  # its "nccl-tests version" line
    assert [r.library_version for r in runs] == ["2.31.2", "2.31.2"]
    res, data = diff_json(run_cli, H100_SU, inventory(tmp_path, ("all_reduce_perf.txt", bad)))
    checks = {f["check"] for f in data["findings"]}
    assert checks == {"collective-slow", "collective-wrong-results"}
    wrong = next(f for f in data["findings"] if f["check"] == "collective-wrong-results")
    assert wrong["found"].startswith("24 wrong elements in 1 row") and wrong["source"].endswith(":28")


def test_parser_errors_name_file_and_line():
    with pytest.raises(InventoryError, match=r"x\.txt:1: empty file"):
        parse_nccl_tests_text("\n\n", "x.txt")


def test_calibrate_writes_one_override_that_matches_the_site(run_cli, tmp_path):
    from infra.models.catalog import load_catalog, load_override

    out = tmp_path / "out"
    res = run_cli("diff", str(H100_SU), "--inventory", str(FIX / "nccl-2409"), "--calibrate",
                  "-o", str(out), "--report", "json")
    assert res.exit_code == 1, res.output  # the finding still gates
    model_file = out / "nccl-sm90.calibrated.yaml"
    assert sorted(p.name for p in out.rglob("*")) == ["dgx_h100_su-diff.json",
                                                        "nccl-sm90.calibrated.yaml"]
    assert f"wrote {model_file} (collective model nccl-sm90, calibrated)" in res.stderr
    assert f"--collective-model {model_file}" in res.stderr
    shipped = load_catalog().get("nccl-sm90")
    m = load_override(model_file, "collective_model", load_catalog())
    assert m.slug == "nccl-sm90" and m.kind == "collective_model"
    # Across the 2 nodes the fit lands on Tree LL128: algbw = 8 NICs x 50 GB/s x e x 120/128
    # = 375 e (latency < 1 %). 8 GiB: 231 / 1.875 = 123.2 -> e = 0.3285; 1 GiB:
    # 216.5 / 1.875 = 115.47 -> e = 0.3079; median 0.318
    assert m.net_efficiency == pytest.approx((0.3285 + 0.3079) / 2, rel=0.01)
    assert (m.nvls_busbw_per_line, m.scale_up_link_gbyte_s) == (1.07, 20.6)  # single-domain: none
    site = m.source_of("net_efficiency")
    assert site.tag == "estimate" and "all_reduce_perf.txt" in site.title and "2.31.2" in site.title
    assert "shipped 0.96" in m.choices["net_efficiency"]
    # everything else is the shipped entry
    same = {"net_efficiency", "sources", "figure_sources", "choices"}
    assert m.model_dump(exclude=same) == shipped.model_dump(exclude=same)
    assert [s.id for s in m.sources] == [s.id for s in shipped.sources] + ["SITE"]
    again = run_cli("diff", str(H100_SU), "--inventory", str(FIX / "nccl-2409"),
                    "--collective-model", str(model_file))
    assert again.exit_code == 0, again.output  # the calibrated model explains the site
    assert f"collective model nccl-sm90: {model_file} in place of" in again.stderr


def test_calibrate_single_domain_fits_nvls(run_cli, tmp_path):
    from infra.models.catalog import load_override

    res = run_cli("diff", str(H200), "--inventory", str(FIX / "azure-nd-h200-v5"), "--calibrate",
                  "-o", str(tmp_path))
    assert res.exit_code == 0, res.output
    assert [p.name for p in tmp_path.iterdir()] == ["nccl-sm90.calibrated.yaml"]
    m = load_override(tmp_path / "nccl-sm90.calibrated.yaml", "collective_model")
    # 1, 2, 4 and 8 GiB rows are NVLS-bound; per row the NVLS factor x that reproduces the
    # measurement: busbw ~ x x 450 (latency 25 us is 0.1-0.6 % of the time): 467.58 at 1 GiB
    # -> ~1.046 ... 479.98 at 8 GiB -> ~1.068; median of the four ~1.058
    assert 1.04 < m.nvls_busbw_per_line < 1.07 and m.net_efficiency == 0.96
    assert "nvls_busbw_per_line 1.07 ->" in res.stderr


def test_calibrate_without_usable_rows_exits_2(run_cli, tmp_path):
    text = (FIX / "azure-nd-h200-v5/nccl-tests/all_reduce_perf.txt").read_text()
    small = "\n".join(s for s in text.splitlines() if not s.lstrip().startswith(
        ("1073741824", "2147483648", "4294967296", "8589934592")))
    inv = inventory(tmp_path, ("all_reduce_perf.txt", small))
    out = tmp_path / "out"
    res = run_cli("diff", str(H200), "--inventory", str(inv), "--calibrate", "-o", str(out))
    assert res.exit_code == 2 and "nothing to calibrate" in res.output
    assert not out.exists()


def test_reports_carry_the_rows(run_cli, tmp_path):
    from openpyxl import load_workbook

    res = run_cli("diff", str(H100_SU), "--inventory", str(FIX / "nccl-2409"), "-o", str(tmp_path),
                  "--report", "xlsx", "--report", "md")
    assert res.exit_code == 1
    ws = load_workbook(tmp_path / "dgx_h100_su-diff.xlsx")["Collectives"]
    rows = list(ws.iter_rows(values_only=True))
    assert rows[0][:3] == ("file", "line", "op") and len(rows) == 3
    md = (tmp_path / "dgx_h100_su-diff.md").read_text()
    assert "## nccl-tests: measured vs predicted busbw" in md and "| 8 GiB | 231 |" in md
