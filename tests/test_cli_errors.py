"""One error path (exit 2 for bad input, exit 3 + 'please report' for bugs), multi-file
commands that check every input before writing, and atomic, reproducible report files."""

from __future__ import annotations

import os
import stat
import zipfile

import pytest

from conftest import DESIGNS

NVL72 = str(DESIGNS / "gb200_nvl72.yaml")
DGX = str(DESIGNS / "dgx_h100_superpod.yaml")


def test_unexpected_exception_is_one_line_exit_3(run_cli, monkeypatch):
    # exit 3, never 1: 1 is a finding (a design rule, diff's bring-up gate), a result a CI
    # gate acts on (issue 31, N1: a crash looked like a failed bring-up)
    import infra.analysis.summary as summary

    def boom(*a, **k):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(summary, "analyze_file", boom)
    res = run_cli("design", NVL72, "-q")
    assert res.exit_code == 3
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output
    assert "internal error while processing" in lines[0] and "gb200_nvl72.yaml" in lines[0]
    assert "ZeroDivisionError" in lines[0] and "please report" in lines[0]
    assert "Traceback" not in res.output
    debug = run_cli("--debug", "design", NVL72, "-q")
    assert isinstance(debug.exception, ZeroDivisionError)  # --debug: the real traceback


def test_validate_reports_every_bad_file(run_cli, tmp_path):
    # Before: validate stopped at the first bad file and hid the rest.
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [\n")
    res = run_cli("validate", NVL72, str(bad), str(tmp_path / "missing.yaml"), DGX)
    assert res.exit_code == 2
    assert f"ok  {NVL72}" in res.output and f"ok  {DGX}" in res.output
    assert "bad.yaml:1" in res.output and "missing.yaml: file not found" in res.output
    assert "2 of 4 files failed" in res.output


def test_design_writes_nothing_when_any_input_is_bad(run_cli, tmp_path):
    # Before: A's reports were written, then the run failed on the missing file.
    out = tmp_path / "out"
    res = run_cli("design", NVL72, str(tmp_path / "missing.yaml"), "--report", "json",
                  "-o", str(out), "-q")
    assert res.exit_code == 2
    assert "missing.yaml: file not found" in res.output and "nothing was written" in res.output
    assert not out.exists()


def test_same_stem_refused(run_cli, tmp_path):
    (tmp_path / "one").mkdir()
    copy = tmp_path / "one" / "gb200_nvl72.yaml"
    copy.write_text((DESIGNS / "gb200_nvl72.yaml").read_text())
    res = run_cli("design", NVL72, str(copy), "--report", "json", "-o", str(tmp_path), "-q")
    assert res.exit_code == 2 and "would overwrite each other" in res.output
    assert not (tmp_path / "gb200_nvl72.json").exists()


def test_highlight_kind_missing_from_one_design_warns_and_goes_on(run_cli, tmp_path):
    # Before: exit 2 without naming the design, and the remaining files were skipped.
    res = run_cli("design", DGX, NVL72, "--report", "svg", "--highlight",
                  "nvlink_switch_tray", "-o", str(tmp_path), "-q")
    assert res.exit_code == 0, res.output
    assert f"warning: {DGX}: --highlight 'nvlink_switch_tray': no such component" in res.output
    assert (tmp_path / "gb200_nvl72" / "failure_nvlink_switch_tray.svg").exists()
    assert list((tmp_path / "dgx_h100_superpod").glob("failure_*.svg"))


def test_compare_report_named_from_inputs(run_cli, tmp_path):
    # Before: every comparison overwrote reports/compare.md.
    a = run_cli("compare", "nvidia-h100-sxm5", "nvidia-b200-gb200", "--report", "md",
                "-o", str(tmp_path))
    b = run_cli("compare", "nvidia-h100-sxm5", "--report", "md", "-o", str(tmp_path))
    assert a.exit_code == b.exit_code == 0, a.output + b.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "compare-nvidia-h100-sxm5-vs-nvidia-b200-gb200.md", "compare-nvidia-h100-sxm5.md"]
    bad = run_cli("compare", "nvidia-h100-sxm5", "--report", "md", "--name", "../x",
                  "-o", str(tmp_path))
    assert bad.exit_code == 2 and "not a plain file name" in bad.output


def test_reports_get_normal_permissions(run_cli, tmp_path):
    # Before: mkstemp's 0600 survived the rename, whatever the umask.
    old = os.umask(0o022)
    try:
        res = run_cli("design", NVL72, "--report", "json", "--report", "md", "-o",
                      str(tmp_path), "-q")
    finally:
        os.umask(old)
    assert res.exit_code == 0, res.output
    for name in ("gb200_nvl72.json", "gb200_nvl72.md"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o644, name


def test_output_path_that_is_a_directory(run_cli, tmp_path):
    (tmp_path / "gb200_nvl72.json").mkdir()
    res = run_cli("design", NVL72, "--report", "json", "-o", str(tmp_path), "-q")
    assert res.exit_code == 2, res.output
    assert "cannot write" in res.output and "it is a directory" in res.output
    assert [p.name for p in tmp_path.iterdir()] == ["gb200_nvl72.json"]


def test_stale_temp_files_of_dead_runs_are_removed(tmp_path):
    from infra.reports.atomic import write_text_atomic

    dead = tmp_path / ".r.json.999999999.abc123.tmp"  # no such process
    old = tmp_path / ".r.json.xyz789.tmp"  # old-style name, 2 hours old
    young = tmp_path / ".r.json.qqq111.tmp"  # old-style name, just written: maybe live
    live = tmp_path / f".r.json.{os.getppid()}.def456.tmp"  # a live process's file
    for p in (dead, old, young, live):
        p.write_text("partial")
    os.utime(old, (0, 0))
    write_text_atomic(tmp_path / "r.json", "{}")
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(["r.json", young.name, live.name])


def test_failed_write_leaves_nothing(tmp_path):
    from infra.reports.atomic import write_atomic

    def fail(p):
        p.write_text("half")
        raise RuntimeError("killed")

    with pytest.raises(RuntimeError):
        write_atomic(tmp_path / "r.json", fail)
    assert list(tmp_path.iterdir()) == []


def test_xlsx_reruns_are_byte_identical(run_cli, tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    runs = []
    for i in range(2):
        out = tmp_path / str(i)
        res = run_cli("design", NVL72, "--report", "xlsx", "-o", str(out), "-q")
        assert res.exit_code == 0, res.output
        runs.append((out / "gb200_nvl72.xlsx").read_bytes())
    assert runs[0] == runs[1]
    with zipfile.ZipFile(tmp_path / "0" / "gb200_nvl72.xlsx") as z:
        core = z.read("docProps/core.xml").decode()
        assert {i.date_time for i in z.infolist()} == {(2000, 1, 1, 0, 0, 0)}
    assert "2000-01-01T00:00:00Z" in core
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # 2023-11-14T22:13:20Z
    run_cli("design", NVL72, "--report", "xlsx", "-o", str(tmp_path / "e"), "-q")
    with zipfile.ZipFile(tmp_path / "e" / "gb200_nvl72.xlsx") as z:
        assert "2023-11-14T22:13:20Z" in z.read("docProps/core.xml").decode()


def test_empty_catalog_directory_is_an_error(run_cli, tmp_path):
    # Before: an empty --catalog silently fell back to the shipped catalog (exit 0).
    empty = tmp_path / "empty"
    empty.mkdir()
    res = run_cli("validate", "--catalog", str(empty), NVL72)
    assert res.exit_code == 2
    assert "empty: catalog directory has no catalog files" in res.output


H100_SU = str(DESIGNS / "dgx_h100_su.yaml")
INVENTORY = str(DESIGNS.parent / "tests" / "fixtures" / "inventory" / "hgx-h100-clean")


@pytest.mark.parametrize("args, blocked", [
    # F1 (issue 31): each run wrote its first report, then failed on the second (exit 2)
    (["design", NVL72, "-q", "--report", "md", "--report", "xlsx"], "gb200_nvl72.xlsx"),
    (["export", H100_SU, "--to", "slurm"], "slurm/topology.yaml"),
    (["failures", NVL72, "--report", "md", "--report", "xlsx"], "gb200_nvl72.failures.xlsx"),
    (["compare", NVL72, "--report", "md", "--report", "html"], "compare-gb200_nvl72.html"),
    (["diff", H100_SU, "--inventory", INVENTORY, "--report", "md", "--report", "csv"],
     "dgx_h100_su-diff.csv"),
])
def test_a_run_that_cannot_write_one_report_writes_none(run_cli, tmp_path, args, blocked):
    out = tmp_path / "out"
    (out / blocked).mkdir(parents=True)  # a directory where the last report goes
    res = run_cli(*args, "-o", str(out))
    assert res.exit_code == 2, res.output
    assert f"{blocked}: it is a directory" in res.output, res.output
    written = [p for p in out.rglob("*") if p.is_file()]
    assert written == [], written


def test_a_sweep_that_cannot_write_one_report_writes_none(run_cli, tmp_path):
    grid = tmp_path / "g.yaml"
    grid.write_text("parameters: {pue: {input: pue, values: [1.1, 1.2]}}\n")
    out = tmp_path / "out"
    (out / "gb200_nvl72.sweep.xlsx").mkdir(parents=True)
    res = run_cli("sweep", NVL72, "--grid", str(grid), "--workers", "1", "-q", "-o", str(out),
                  "--report", "csv", "--report", "json", "--report", "xlsx")
    assert res.exit_code == 2 and "gb200_nvl72.sweep.xlsx: it is a directory" in res.output
    assert [p for p in out.rglob("*") if p.is_file()] == []
