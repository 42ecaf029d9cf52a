"""Every report module imports on its own, in a fresh interpreter state (issue 32 item 4):
the workbook modules import one way (``xlsx_style`` is the leaf the others share), so
importing any one first, with nothing of ``infra`` loaded, works and leaves no module
half-initialised. Run in one child process: each module is imported after every
``infra`` module is dropped from ``sys.modules``."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT

SCRIPT = r"""
import importlib, sys, traceback
bad = []
for name in sys.argv[1:]:
    for m in [m for m in sys.modules if m == "infra" or m.startswith("infra.")]:
        del sys.modules[m]
    try:
        importlib.import_module(name)
    except Exception:
        bad.append(name + ": " + traceback.format_exc(limit=3))
print("\n".join(bad))
sys.exit(1 if bad else 0)
"""


def report_modules() -> list[str]:
    out = []
    for p in sorted((ROOT / "infra" / "reports").rglob("*.py")):
        parts = p.relative_to(ROOT).with_suffix("").parts
        out.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return out


def test_each_report_module_imports_fresh():
    mods = report_modules()
    assert "infra.reports.xlsx_style" in mods and "infra.reports.xlsx_report" in mods
    res = subprocess.run([sys.executable, "-c", SCRIPT, *mods], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr


def test_the_style_leaf_imports_no_other_workbook_module():
    """``xlsx_style`` (and ``xlsx_print``, which every workbook writer calls) import no
    report module that could import them back."""
    import ast

    for leaf in ("xlsx_style", "xlsx_print"):
        tree = ast.parse((ROOT / "infra" / "reports" / f"{leaf}.py").read_text())
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import)
                     for a in n.names}
        ours = {m for m in imported if m and (m == "infra" or m.startswith("infra."))}
        assert ours <= {"infra.reports.labels", "infra.reports.decision"}, (leaf, ours)
