"""Outputs that never carry code and never land where they should not (issue 31).

S1: one output rule for every writer: only a regular file is replaced; a device node
(``/dev/null``), a FIFO, a directory or a symbolic link at the output path is refused
(exit 2, naming the path), and nothing is written through a symbolic link inside an
output directory. S2: generated shell scripts quote every value. S6: ``infra new NAME``
takes a design name, never a path.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import DESIGNS, ROOT

INVENTORY = ROOT / "tests" / "fixtures" / "inventory" / "hgx-h100-clean"
HOSTILE_NAME = "x\nrm -rf ~"


@pytest.fixture()
def guard_dev_null(monkeypatch):
    """Fail (rather than replace the machine's /dev/null) if a writer ever renames onto
    it: CI runs as root, where a regression would otherwise replace the device."""
    real_replace = os.replace

    def replace(src, dst, *a, **kw):
        if os.path.realpath(dst) == "/dev/null" or os.path.abspath(dst) == "/dev/null":
            raise AssertionError(f"a writer renamed {src} onto /dev/null")
        return real_replace(src, dst, *a, **kw)

    monkeypatch.setattr(os, "replace", replace)
    yield
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode), "/dev/null is no longer a device"


def _refused(res, path) -> None:
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    assert f"cannot write {path}" in res.output, res.output


# S1 -------------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [
    ("topology", str(DESIGNS / "gb200_nvl72.yaml"), "--scope", "rack", "-o", "/dev/null"),
    ("ingest", str(INVENTORY), "--to-design", "/dev/null"),
    ("new", "n", "-o", "/dev/null"),
])
def test_dev_null_as_the_output_file_is_refused(args, run_cli, guard_dev_null):
    res = run_cli(*args)
    _refused(res, "/dev/null")
    assert "character device" in res.output


def test_dev_null_named_as_an_output_directory_is_refused(run_cli, guard_dev_null):
    res = run_cli("design", str(DESIGNS / "gb200_nvl72.yaml"), "-q", "--report", "json",
                  "-o", "/dev/null")
    assert res.exit_code == 2 and "/dev/null" in res.output and "Traceback" not in res.output


def test_report_that_is_a_symlink_to_dev_null_is_refused(tmp_path, run_cli, guard_dev_null):
    out = tmp_path / "out"
    out.mkdir()
    (out / "gb200_nvl72.json").symlink_to("/dev/null")
    res = run_cli("design", str(DESIGNS / "gb200_nvl72.yaml"), "-q", "--report", "json",
                  "-o", str(out))
    _refused(res, out / "gb200_nvl72.json")
    assert "symbolic link" in res.output
    assert (out / "gb200_nvl72.json").is_symlink()  # left as it was


def test_output_file_that_is_a_symlink_is_refused(tmp_path, run_cli):
    target = tmp_path / "elsewhere.graphml"
    target.write_text("mine\n")
    link = tmp_path / "link.graphml"
    link.symlink_to(target)
    res = run_cli("topology", str(DESIGNS / "gb200_nvl72.yaml"), "--scope", "rack",
                  "-o", str(link))
    _refused(res, link)
    assert link.is_symlink() and target.read_text() == "mine\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_at_a_report_path_is_refused(tmp_path, run_cli):
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "gb200_nvl72.md")
    res = run_cli("design", str(DESIGNS / "gb200_nvl72.yaml"), "-q", "--report", "md",
                  "-o", str(out))
    _refused(res, out / "gb200_nvl72.md")
    assert "FIFO" in res.output and stat.S_ISFIFO(os.lstat(out / "gb200_nvl72.md").st_mode)


def test_private_device_node_is_kept(tmp_path, run_cli):
    """A character device of our own at the output path (mknod needs root, as in CI)."""
    dev = tmp_path / "fakenull"
    try:
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except (PermissionError, OSError):
        pytest.skip("mknod is not permitted here")
    res = run_cli("ingest", str(INVENTORY), "--to-design", str(dev))
    _refused(res, dev)
    assert stat.S_ISCHR(os.lstat(dev).st_mode)


def test_export_subdirectory_symlink_out_of_the_output_dir_is_refused(tmp_path, run_cli):
    out, away = tmp_path / "out", tmp_path / "away"
    out.mkdir()
    away.mkdir()
    (out / "k8s").symlink_to(away)
    res = run_cli("export", str(DESIGNS / "dgx_h100_su.yaml"), "--to", "k8s", "-o", str(out))
    _refused(res, out / "k8s")
    assert list(away.iterdir()) == []


def test_diagram_subdirectory_symlink_is_refused(tmp_path, run_cli):
    out, away = tmp_path / "out", tmp_path / "away"
    out.mkdir()
    away.mkdir()
    (out / "gb200_nvl72").symlink_to(away)
    res = run_cli("design", str(DESIGNS / "gb200_nvl72.yaml"), "-q", "--report", "dot",
                  "-o", str(out))
    _refused(res, out / "gb200_nvl72")
    assert list(away.iterdir()) == []


def test_stdout_only_through_an_explicit_dash(tmp_path, run_cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = run_cli("ingest", str(INVENTORY), "--to-design", "-")
    assert res.exit_code == 0, res.output
    assert "build:" in res.stdout and "wrote" not in res.stdout
    assert list(tmp_path.iterdir()) == []
    res = run_cli("new", "n", "-o", "-")
    assert res.exit_code == 0 and yaml.safe_load(res.stdout)["name"] == "n"
    assert list(tmp_path.iterdir()) == []


def test_regular_files_are_still_replaced(tmp_path, run_cli):
    out = tmp_path / "g.graphml"
    out.write_text("old\n")
    res = run_cli("topology", str(DESIGNS / "gb200_nvl72.yaml"), "--scope", "rack",
                  "-o", str(out))
    assert res.exit_code == 0, res.output
    assert out.read_text().startswith("<?xml")


# S2 -------------------------------------------------------------------------------------

def _hostile_design(tmp_path: Path, name: str, base: str = "dgx_h100_su") -> Path:
    text = (DESIGNS / f"{base}.yaml").read_text()
    text, n = re.subn(r"^name: .*$", lambda _: "name: " + yaml.safe_dump(name).split("\n...")[0]
                      .strip(), text, count=1, flags=re.M)
    assert n == 1
    f = tmp_path / "hostile.yaml"
    f.write_text(text)
    assert yaml.safe_load(f.read_text())["name"] == name
    return f


@pytest.mark.skipif(shutil.which("sh") is None, reason="no POSIX shell")
@pytest.mark.parametrize("name", [HOSTILE_NAME, "x\ntouch PWNED\n#", "x\u2028touch PWNED",
                                  "x'; touch PWNED; '", "x$(touch PWNED)`touch PWNED`"])
def test_label_script_labels_literally(tmp_path, run_cli, name):
    design = _hostile_design(tmp_path, name)
    out = tmp_path / "out"
    res = run_cli("export", str(design), "--to", "k8s", "-o", str(out))
    assert res.exit_code == 0, res.output
    script = out / "k8s" / "label-nodes.sh"
    text = script.read_text()
    # every line is the shebang, a comment, `set -e` or one kubectl call: checked before
    # the script is ever run, so a regression cannot run an injected command
    for line in text.splitlines():
        assert line in ("#!/bin/sh", "set -e") or line.startswith(("# ", "kubectl label node ")), line
    assert subprocess.run(["sh", "-n", str(script)], capture_output=True).returncode == 0

    home, bindir, log = tmp_path / "home", tmp_path / "bin", tmp_path / "kubectl.log"
    home.mkdir()
    (home / "keep").write_text("x")
    bindir.mkdir()
    kubectl = bindir / "kubectl"
    kubectl.write_text('#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done >> "$KLOG"\n'
                       'echo "==" >> "$KLOG"\n')
    kubectl.chmod(0o755)
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "HOME": str(home), "KLOG": str(log)}
    run = subprocess.run(["sh", str(script)], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert (home / "keep").exists() and not (tmp_path / "PWNED").exists()

    labels = __import__("json").loads((out / "k8s" / "labels.json").read_text())["nodes"]
    want = []
    for node, lab in labels.items():
        if lab:
            want += ["label", "node", node, *(f"{k}={v}" for k, v in lab.items()),
                     "--overwrite", "=="]
    assert log.read_text().splitlines() == want


def test_hostile_name_stays_on_its_comment_line_in_every_export(tmp_path, run_cli):
    design = _hostile_design(tmp_path, "x\ntouch PWNED\n\x1b[31m")
    out = tmp_path / "out"
    for target in ("slurm", "graphml", "k8s"):
        res = run_cli("export", str(design), "--to", target, "-o", str(out))
        assert res.exit_code == 0, res.output
    conf = next((out / "slurm").glob("*.conf")).read_text()
    assert not any(line.startswith("touch") for line in conf.splitlines())
    assert "x\\ntouch PWNED" in conf
    assert "\x1b" not in next((out / "graphml").glob("*.graphml")).read_text()


# S6 -------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["../../escaped", "sub/dir/x", "/abs/x", "", ".", "..",
                                  "x/", ".hidden", "-x", "a" * 300, "x\ny", "my.yaml"])
def test_new_name_is_a_design_name_never_a_path(name, tmp_path, run_cli, monkeypatch):
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    res = run_cli("new", "--", name)
    assert res.exit_code == 2, res.output
    assert "NAME" in res.output and "Traceback" not in res.output
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


@pytest.mark.parametrize("name", ["yes", "null", "123", "1.5", "0x1F", "2026-01-01", "on",
                                  "my_nvl72"])
def test_new_default_output_and_the_starter_validates(name, tmp_path, run_cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = run_cli("new", name)
    assert res.exit_code == 0, res.output
    out = tmp_path / "designs" / f"{name}.yaml"
    assert f"wrote {Path('designs') / f'{name}.yaml'}" in res.output
    assert yaml.safe_load(out.read_text())["name"] == name
    assert run_cli("validate", str(out)).exit_code == 0


def test_new_from_a_file_that_is_not_a_design(tmp_path, run_cli):
    bad = tmp_path / "list.yaml"
    bad.write_text("- 1\n- 2\n")
    res = run_cli("new", "n", "--from", str(bad), "-o", str(tmp_path / "n.yaml"))
    assert res.exit_code == 2 and str(bad) in res.output and "Traceback" not in res.output
    assert not (tmp_path / "n.yaml").exists()


@pytest.mark.parametrize("where", ["afile/sub.yaml", "/proc/nope.yaml"])
def test_new_output_errors_are_clean(where, tmp_path, run_cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("x\n")
    res = run_cli("new", "n", "-o", where)
    assert res.exit_code == 2, res.output
    assert f"cannot write {where}" in res.output and "Traceback" not in res.output


# S3 -------------------------------------------------------------------------------------

INJ = "=cmd|' /C calc'!A0"
HOST_INJ = "=cmd|' -C calc'!A0"  # a directory name holds no '/'


def _xlsx_texts(path: Path) -> tuple[list[str], str]:
    """The formulas (``<f>``) of every sheet of a workbook, and all its XML text."""
    import zipfile

    with zipfile.ZipFile(path) as z:
        xml = "".join(z.read(n).decode() for n in z.namelist()
                      if n.startswith("xl/worksheets/sheet") or n == "xl/sharedStrings.xml")
    return re.findall(r"<f>([^<]*)</f>", xml), xml


def _csv_fields(path: Path) -> list[str]:
    import csv

    with open(path, newline="", encoding="utf-8") as fh:
        return [v for row in csv.reader(fh) for v in row]


def _no_live_cell(root: Path) -> tuple[int, int]:
    """Every workbook and CSV under ``root``: no formula holds injected text, no CSV field
    starts a formula; returns (workbooks, CSV files) checked."""
    from infra.reports.cellsafe import TRIGGERS, _NUMBER

    books = csvs = 0
    for f in sorted(root.rglob("*.xlsx")):
        formulas, _ = _xlsx_texts(f)
        assert not [x for x in formulas if "cmd" in x or "SUM(1337" in x], (f, formulas[:5])
        books += 1
    for f in sorted(root.rglob("*.csv")):
        bad = [v for v in _csv_fields(f) if len(v) > 1 and v.startswith(TRIGGERS)
               and not _NUMBER.fullmatch(v)]
        assert not bad, (f, bad[:5])
        csvs += 1
    return books, csvs


@pytest.fixture(scope="module")
def injected(tmp_path_factory):
    """Every workbook and CSV the tool writes, for a design named like a formula, a host
    directory named like one and sweep grid values like one."""
    from click.testing import CliRunner

    from infra.cli.main import cli

    tmp = tmp_path_factory.mktemp("inject")
    design = _hostile_design(tmp, INJ)
    out = tmp / "out"

    def run(*args):
        res = CliRunner().invoke(cli, list(args), obj={})
        assert res.exit_code in (0, 1), res.output  # diff: 1 on error findings
        return res

    run("design", str(design), "-q", "--report", "xlsx", "-o", str(out))
    run("failures", str(design), "--samples", "2000", "--report", "xlsx", "-o", str(out))
    run("compare", str(design), "--report", "xlsx", "-o", str(out))
    for target in ("cabling", "netbox"):
        run("export", str(design), "--to", target, "-o", str(out))
    grid = tmp / "grid.yaml"
    grid.write_text(yaml.safe_dump({"parameters": {"name": {"path": "name", "values": [
        INJ, "+SUM(1337,2)", "@SUM(1337,3)", "-2+3+cmd|' /C calc'!A0"]}}}))
    run("sweep", str(DESIGNS / "dgx_h100_su.yaml"), "--grid", str(grid), "--workers", "1",
        "--report", "csv", "--report", "xlsx", "-o", str(out))
    inv = tmp / "inv"
    shutil.copytree(INVENTORY, inv)
    (inv / "r001n04").rename(inv / HOST_INJ)
    run("diff", str(design), "--inventory", str(inv), "--report", "csv", "--report", "xlsx",
        "-o", str(out))
    return out


def test_formula_text_is_text_in_every_workbook_and_csv(injected):
    books, csvs = _no_live_cell(injected)
    names = {p.name for p in injected.rglob("*") if p.is_file()}
    assert {"hostile.xlsx", "hostile.failures.xlsx", "compare-hostile.xlsx",
            "dgx_h100_su.sweep.xlsx", "hostile-diff.xlsx", "hostile.xlsx"} <= names, names
    assert books >= 6 and csvs >= 6
    # the injected text is there, as text
    for f in ("hostile.xlsx", "hostile.failures.xlsx", "compare-hostile.xlsx",
              "dgx_h100_su.sweep.xlsx", "hostile-diff.xlsx"):
        _, xml = _xlsx_texts(next(injected.rglob(f)))
        assert "=cmd|&apos; /C calc&apos;!A0" in xml or "=cmd|' /C calc'!A0" in xml, f
    _, xml = _xlsx_texts(injected / "hostile-diff.xlsx")
    assert "=cmd|' -C calc'!A0" in xml or "=cmd|&apos; -C calc&apos;!A0" in xml
    sweep = _csv_fields(injected / "dgx_h100_su.sweep.csv")
    assert "'" + INJ in sweep and "'+SUM(1337,2)" in sweep and "'@SUM(1337,3)" in sweep
    assert "'-2+3+cmd|' /C calc'!A0" in sweep
    assert "'" + HOST_INJ in _csv_fields(injected / "hostile-diff.csv")


def test_the_tools_own_formulas_are_kept(injected):
    """Only data is neutralised: the BOM's pricing rule and the compare workbook's live
    TCO are still formulas."""
    bom, _ = _xlsx_texts(injected / "hostile.xlsx")
    assert any(f.startswith("IF(") and "unpriced" in f for f in bom)
    assert any(f.startswith("'BOM'!") or "!" in f for f in bom)  # Summary -> BOM totals
    tco, _ = _xlsx_texts(injected / "compare-hostile.xlsx")
    assert any("energy_usd_per_kwh" in f for f in tco)


def test_defuse_turns_only_foreign_formulas():
    from openpyxl import Workbook

    from infra.reports.cellsafe import defuse, formula

    wb = Workbook()
    ws = wb.active
    ws.append([INJ, "=SUM(1337,1)", "text", 3])
    formula(ws, "A2", "=D1*2")
    assert defuse(wb) == 2
    assert [c.data_type for c in ws[1]] == ["s", "s", "s", "n"] and ws["A2"].data_type == "f"
    with pytest.raises(ValueError):
        formula(ws, "A3", "not a formula")


# S4 -------------------------------------------------------------------------------------

def _unknown_gpu(host_dir: Path, product: str) -> None:
    smi = host_dir / "nvidia-smi-q.xml"
    text = smi.read_text()
    text = re.sub(r"<pci_device_id>[^<]*</pci_device_id>",
                  "<pci_device_id>0xDEAD10DE</pci_device_id>", text)
    text = re.sub(r"<product_name>[^<]*</product_name>",
                  f"<product_name>{product}</product_name>", text)
    smi.write_text(text)


@pytest.mark.parametrize("how", ["product_name", "host_dir"])
def test_dump_text_never_adds_keys_to_the_draft(how, tmp_path, run_cli):
    inv = tmp_path / "inv"
    shutil.copytree(INVENTORY, inv)
    payload = "assumptions: {pue: 2.9, pue_source: measured}"
    if how == "product_name":
        _unknown_gpu(inv / "r001n01", f"X&#10;{payload}&#10;#NVIDIA H100 80GB HBM3")
    else:
        host = inv / f"r009n09\n{payload}\n#"
        shutil.copytree(inv / "r001n01", host)
        _unknown_gpu(host, "NVIDIA H100 80GB HBM3")
    out = tmp_path / "draft.yaml"
    res = run_cli("ingest", str(inv), "--to-design", str(out))
    assert res.exit_code == 0, res.output
    text = out.read_text()
    draft = yaml.safe_load(text)
    assert sorted(draft) == ["build", "description", "name", "racks"], sorted(draft)
    assert "assumptions:" not in [line.split(" ")[0] for line in text.splitlines()]
    assert "\\nassumptions: {pue: 2.9" in text  # kept, escaped, on its comment line
    assert "\nassumptions" not in res.stderr


# S5 -------------------------------------------------------------------------------------

SECRET = "root:$6$SECRETSALT$SECRETHASH0123456789abcdef:19000:0:99999:7:::\n"


@pytest.fixture()
def inv(tmp_path):
    d = tmp_path / "inv"
    shutil.copytree(INVENTORY, d)
    (tmp_path / "shadow").write_text(SECRET)
    return d


@pytest.mark.parametrize("name", ["guid-map.txt", "r001n01/nvidia-smi-q.xml",
                                  "r001n01/topo-m.txt", "ibnetdiscover.txt"])
def test_dump_linked_out_of_the_inventory_is_refused_unread(name, inv, run_cli):
    target = inv / name
    target.unlink(missing_ok=True)
    target.symlink_to(inv.parent / "shadow")
    for args in (("ingest", str(inv), "--to-design", "-"),
                 ("diff", str(DESIGNS / "dgx_h100_su.yaml"), "--inventory", str(inv))):
        res = run_cli(*args)
        assert res.exit_code == 2, res.output
        assert "SECRET" not in res.output and "root:" not in res.output
        assert f"{target}: a symbolic link to a file outside the inventory" in res.output


def test_host_directory_linked_out_of_the_inventory_is_refused(inv, run_cli):
    away = inv.parent / "away"
    shutil.copytree(inv / "r001n02", away)
    shutil.rmtree(inv / "r001n02")
    (inv / "r001n02").symlink_to(away)
    res = run_cli("ingest", str(inv), "--to-design", "-")
    assert res.exit_code == 2 and "outside the inventory" in res.output, res.output


def test_links_inside_the_inventory_still_work(inv, run_cli):
    smi = inv / "r001n01" / "nvidia-smi-q.xml"
    (inv / "r001n01" / "smi-copy.xml").write_bytes(smi.read_bytes())
    smi.unlink()
    smi.symlink_to("smi-copy.xml")
    res = run_cli("ingest", str(inv), "--to-design", "-")
    assert res.exit_code == 0, res.output


def test_errors_quote_no_file_content(inv, run_cli):
    (inv / "r001n01" / "nvidia-smi-q.xml").write_text(SECRET)
    res = run_cli("ingest", str(inv), "--to-design", "-")
    assert res.exit_code == 2 and "not XML (does not start with '<')" in res.output
    assert "SECRET" not in res.output and "root:" not in res.output
    (inv / "r001n01" / "nvidia-smi-q.xml").write_bytes(
        (INVENTORY / "r001n01" / "nvidia-smi-q.xml").read_bytes())
    (inv / "guid-map.txt").write_text(SECRET)
    res = run_cli("ingest", str(inv), "--to-design", "-")
    assert res.exit_code == 2 and "guid-map.txt:1" in res.output
    assert "SECRETHASH" not in res.output  # at most the start of the bad token


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_dump_is_refused_without_hanging(inv, run_cli):
    smi = inv / "r001n01" / "nvidia-smi-q.xml"
    smi.unlink()
    os.mkfifo(smi)
    res = run_cli("ingest", str(inv), "--to-design", "-")
    assert res.exit_code == 2 and "not a regular file" in res.output, res.output


def test_oversized_dump_is_refused_before_it_is_read(inv, run_cli):
    with open(inv / "r001n01" / "topo-m.txt", "r+b") as fh:
        fh.truncate(3 * 1024 ** 3)  # sparse: no disk used; read whole it would take 3 GB
    import tracemalloc

    tracemalloc.start()
    try:
        res = run_cli("ingest", str(inv), "--to-design", "-")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert res.exit_code == 2 and "3,221,225,472 bytes is too large" in res.output
    assert peak < 256 * 1024 ** 2, f"{peak:,} bytes allocated: the dump was read"


def test_numbers_of_thousands_of_digits_are_absent_not_internal_errors(inv, run_cli):
    smi = inv / "r001n01" / "nvidia-smi-q.xml"
    text = re.sub(r"<attached_gpus>[^<]*</attached_gpus>",
                  f"<attached_gpus>{'9' * 5000}</attached_gpus>", smi.read_text())
    smi.write_text(text)
    res = run_cli("ingest", str(inv), "--to-design", "-")
    assert res.exit_code in (0, 2) and "internal error" not in res.output, res.output


# D1: sweep exits 2 when the grid itself is wrong ----------------------------------------

@pytest.mark.parametrize("grid, extra, says", [
    ({"pue": {"input": "pue", "values": [1.1, 1.2]}}, ("--prices", "nosuch.yaml"),
     "nosuch.yaml: file not found"),
    ({"x": {"catalog": "nosuch-gpu.tdp_w", "values": [700]}}, (),
     "grid.yaml:3: parameters.x.catalog: unknown catalog slug 'nosuch-gpu'"),
    ({"x": {"catalog": "nvidia-h100-sxm5.__class__", "values": [700]}}, (),
     "grid.yaml:3: parameters.x.catalog: catalog part 'nvidia-h100-sxm5' (gpu) has no field"),
    ({"x": {"catalog": "nvidia-h100-sxm5.slug", "values": ["x"]}}, (), "has no field 'slug'"),
    ({"x": {"catalog": "nvidia-h100-sxm5.tdp_w", "values": [700, "abc"]}}, (),
     "grid.yaml:6: parameters.x.values[1]: value 'abc'"),
    ({"pue": {"input": "pue", "values": ["abc", 1.2]}}, (),
     "parameters.pue.values[0]: pue value 'abc' is not a finite number"),
    ({"years": {"input": "years", "values": [3, 1.5]}}, (),
     "years value 1.5 is not a whole number of years"),
    ({"years": {"input": "years", "values": [True]}}, (), "years value True is not"),
    ({"pue": {"input": "pue", "values": [1.1, 9.0]}}, (), "PUE 9.0 is outside 1.0-3.0"),
])
def test_sweep_grid_errors_exit_2(grid, extra, says, tmp_path, run_cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "grid.yaml").write_text(yaml.safe_dump({"parameters": grid}, sort_keys=False))
    res = run_cli("sweep", str(DESIGNS / "dgx_h100_su.yaml"), "--grid", "grid.yaml",
                  "--workers", "1", "-o", "out", "-q", *extra)
    assert res.exit_code == 2, res.output
    assert says in res.output and "Traceback" not in res.output, res.output
    assert not (tmp_path / "out").exists()


def test_sweep_keeps_row_errors_of_scenarios_that_fail_on_their_own(tmp_path, run_cli):
    grid = tmp_path / "grid.yaml"
    grid.write_text(yaml.safe_dump({"parameters": {"red": {
        "path": "racks.nvl72.power_redundancy", "values": ["N+N", "bogus"]}}}))
    res = run_cli("sweep", str(DESIGNS / "gb200_nvl72.yaml"), "--grid", str(grid),
                  "--workers", "1", "--report", "json", "-o", str(tmp_path / "out"), "-q")
    assert res.exit_code == 0, res.output
    rows = __import__("json").loads((tmp_path / "out" / "gb200_nvl72.sweep.json")
                                    .read_text())["rows"]
    assert [r["status"] for r in rows] == ["ok", "error"]


# D3: diff flags two hosts holding the same GPUs -----------------------------------------

def test_diff_flags_the_same_dump_on_two_hosts(inv, run_cli):
    shutil.copy(inv / "r001n01" / "nvidia-smi-q.xml", inv / "r001n02" / "nvidia-smi-q.xml")
    res = run_cli("diff", str(DESIGNS / "dgx_h100_su.yaml"), "--inventory", str(inv),
                  "--format", "json")
    assert res.exit_code == 1, res.output  # an error finding: the bring-up gate fails
    found = [f for f in __import__("json").loads(res.stdout)["findings"]
             if f["check"] == "gpu-duplicate"]
    assert [(f["severity"], f["node"], f["found"]) for f in found] == [
        ("error", "r001n02", "8 GPU UUIDs and 8 GPU serials also reported by r001n01")]


def test_diff_flags_a_gpu_repeated_in_one_dump(inv, run_cli):
    smi = inv / "r001n01" / "nvidia-smi-q.xml"
    text = smi.read_text()
    gpu = re.search(r"<gpu id=.*?</gpu>\s*", text, re.S).group(0)
    smi.write_text(text.replace(gpu, gpu + gpu, 1))
    res = run_cli("diff", str(DESIGNS / "dgx_h100_su.yaml"), "--inventory", str(inv),
                  "--format", "json")
    found = [f["found"] for f in __import__("json").loads(res.stdout)["findings"]
             if f["check"] == "gpu-duplicate"]
    assert found == ["1 GPU UUID repeated within this dump"], res.output


@pytest.mark.parametrize("design, fixture", [("gb200_nvl72", "gb200-nvl72-clean"),
                                             ("dgx_h100_su", "hgx-h100-clean")])
def test_diff_clean_fixtures_have_no_duplicates(design, fixture, run_cli):
    """GB200 superchips share a board serial between their two GPUs: not a duplicate."""
    res = run_cli("diff", str(DESIGNS / f"{design}.yaml"), "--inventory",
                  str(ROOT / "tests" / "fixtures" / "inventory" / fixture), "--format", "json")
    assert res.exit_code == 0, res.output
    assert "gpu-duplicate" not in res.stdout


# E1: host-name patterns are a small grammar ----------------------------------------------

@pytest.mark.parametrize("pattern", ["r{rack:q}", "r{rack.foo}", "r{rack[0]}", "r{rack!r}",
                                     "r{rack:>300000000}", "r{rack:064d}",
                                     "{index.__class__.__subclasses__}", "x{index:63d}"])
@pytest.mark.parametrize("command", ["export", "diff"])
def test_host_patterns_outside_the_grammar_exit_2(pattern, command, run_cli, tmp_path):
    design = str(DESIGNS / "dgx_h100_su.yaml")
    args = (("export", design, "--to", "k8s", "--hostnames", pattern, "-o", str(tmp_path))
            if command == "export" else
            ("diff", design, "--inventory", str(INVENTORY), "--host-pattern", pattern))
    res = run_cli(*args)
    assert res.exit_code == 2, res.output
    assert "host-name pattern" in res.output and "internal error" not in res.output
    assert not re.search(r"0x[0-9a-f]{6,}", res.output)  # no object reprs, no addresses


def test_sweep_scheduler_that_is_not_a_dask_address_exits_2(tmp_path, run_cli):
    pytest.importorskip("distributed")
    grid = tmp_path / "grid.yaml"
    grid.write_text(yaml.safe_dump({"parameters": {"pue": {"input": "pue",
                                                           "values": [1.1, 1.2]}}}))
    res = run_cli("sweep", str(DESIGNS / "dgx_h100_su.yaml"), "--grid", str(grid),
                  "--scheduler", "http://127.0.0.1:9/x", "-o", str(tmp_path / "out"), "-q")
    assert res.exit_code == 2, res.output
    assert "--scheduler 'http://127.0.0.1:9/x' is not a Dask scheduler address" in res.output
