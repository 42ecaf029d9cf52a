"""House rules that keep the layers apart and the generated schemas current."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import ROOT

PKG = ROOT / "infra"
# layer -> modules it must never import
FORBIDDEN = {
    "models": ("networkx", "openpyxl", "graphviz", "click", "pandas", "infra.topology",
               "infra.analysis", "infra.exports", "infra.ingest", "infra.sweeps",
               "infra.reports", "infra.cli"),
    "topology": ("openpyxl", "graphviz", "click", "infra.exports", "infra.ingest",
                 "infra.sweeps", "infra.reports", "infra.cli"),
    "analysis": ("openpyxl", "graphviz", "click", "infra.exports", "infra.ingest",
                 "infra.sweeps", "infra.reports", "infra.cli"),
    # exports, ingest and sweeps sit beside analyses (ingest may use exports' identities)
    "exports": ("graphviz", "click", "infra.ingest", "infra.sweeps", "infra.reports", "infra.cli"),
    "ingest": ("openpyxl", "graphviz", "click", "infra.sweeps", "infra.reports", "infra.cli"),
    "sweeps": ("openpyxl", "graphviz", "click", "infra.reports", "infra.cli"),
    # history sits beside ingest: it reads inventories and designs, never renders
    "history": ("openpyxl", "graphviz", "click", "infra.sweeps", "infra.reports", "infra.cli"),
    # synthesis sits on the sweeps: it builds and analyses candidate designs, never renders
    "synthesis": ("openpyxl", "graphviz", "click", "infra.reports", "infra.cli"),
    "reports": ("click", "infra.cli"),
}
# the one shared atomic file writer (and its output rule: regular files only)
# and the streamed xlsx sheet writer (the cabling export's sheets at 1M GPUs, issue 33)
ALLOWED = {"exports": ("infra.reports.atomic", "infra.reports.cellsafe", "infra.reports.xlsx_stream"),
           "models": ("infra.reports.atomic",)}


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_imports_point_one_way(layer):
    bad = []
    for path in sorted((PKG / layer).rglob("*.py")):
        for name in imports(path):
            if name in ALLOWED.get(layer, ()):
                continue
            if any(name == f or name.startswith(f + ".") for f in FORBIDDEN[layer]):
                bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not bad, bad


def test_committed_schemas_are_current():
    from infra.models.schema import SCHEMA_DIR, render, schemas

    for name, schema in schemas().items():
        path = SCHEMA_DIR / name
        assert path.exists(), f"{name} missing: run python -m infra.models.schema"
        assert path.read_text() == render(schema), f"{name} stale: run python -m infra.models.schema"
