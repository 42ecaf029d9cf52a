"""Two runs of every shipped design give byte-identical json/xlsx/md/svg (issue 18).

All shipped designs run in one command, twice, into different output directories. The
workbook is written without its diagram pictures here to keep the suite fast; the
workbook with pictures is checked for gb200_nvl72 in test_cli_errors.py. Before: every
xlsx carried the wall-clock time (docProps/core.xml and each zip member's header), and
JSON/markdown the design path as typed.
"""

from __future__ import annotations

from conftest import DESIGNS

SHIPPED = sorted(str(p.relative_to(DESIGNS.parent)) for p in DESIGNS.glob("*.yaml"))


def files_of(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def test_every_shipped_design_reruns_byte_identical(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(DESIGNS.parent)  # paths in reports are relative to the cwd
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    runs = []
    for i in range(2):
        out = tmp_path / f"run{i}"
        for args in (("--report", "json", "--report", "md", "--report", "svg"),
                     ("--report", "xlsx", "--no-diagrams")):
            res = run_cli("design", *SHIPPED, *args, "-o", str(out), "-q")
            assert res.exit_code == 0, res.output
        runs.append(files_of(out))
    assert runs[0].keys() == runs[1].keys()
    kinds = {name.rsplit(".", 1)[-1] for name in runs[0]}
    assert {"json", "md", "xlsx", "svg"} <= kinds, kinds
    assert len([n for n in runs[0] if n.endswith(".json")]) == len(SHIPPED)
    differ = [n for n in runs[0] if runs[0][n] != runs[1][n]]
    assert differ == []
    text = runs[0]["gb200_nvl72.json"].decode()
    assert '"source_file": "designs/gb200_nvl72.yaml"' in text  # not the absolute path
