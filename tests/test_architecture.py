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


# issue 32: analyses are plain functions of the resolved design; they never read YAML or
# load a catalog (errors and findings carry the file and YAML path, the line is found
# where they are shown: infra.errors.LOCATE). The Catalog *type* is infra.models.catalog_types.
NOT_IN_ANALYSES = ("infra.models.yamlio", "infra.models.yamlfast", "infra.models.catalog",
                   "infra.models.catalog_cache")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every module that ``source`` (the text of ``module``) imports anywhere: top level,
    in functions, under TYPE_CHECKING; relative imports made absolute; ``from pkg import
    x`` counted as ``pkg`` and ``pkg.x``; ``importlib.import_module("...")`` literals."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package[: len(package) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            out.add(base)
            out |= {f"{base}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Call) and node.args:
            name = getattr(node.func, "attr", getattr(node.func, "id", None))
            arg = node.args[0]
            if name in ("import_module", "__import__") and isinstance(arg, ast.Constant) \
                    and isinstance(arg.value, str):
                out.add(arg.value)
    return out


def forbidden_in_analyses(names: set[str]) -> list[str]:
    return sorted(n for n in names for f in NOT_IN_ANALYSES if n == f or n.startswith(f + "."))


def test_import_walker_sees_every_form():
    """Function-level, relative, ``from pkg import module`` and importlib imports are all
    found (so the test below can fail); the Catalog type module is not the loader."""
    src = ("def f():\n    from infra.models.yamlio import line_of\n"
           "from ..models import catalog\n"
           "import importlib\nimportlib.import_module('infra.models.catalog_cache')\n"
           "from ..models.yamlfast import LineIndex\n"
           "from infra.models.catalog_types import Catalog\n")
    found = forbidden_in_analyses(imported_modules(src, "infra.analysis.probe"))
    assert found == ["infra.models.catalog", "infra.models.catalog_cache", "infra.models.yamlfast",
                     "infra.models.yamlfast.LineIndex", "infra.models.yamlio",
                     "infra.models.yamlio.line_of"]


def test_analyses_never_import_the_yaml_or_catalog_loader():
    bad = []
    for path in sorted((PKG / "analysis").rglob("*.py")):
        names = imported_modules(path.read_text(), module_name(path), path.name == "__init__.py")
        bad += [f"{path.relative_to(ROOT)} imports {n}" for n in forbidden_in_analyses(names)]
    assert not bad, bad


def catalog_lookups(src: str) -> list[str]:
    """Calls that go around the resolved design: ``<...>.catalog.get(...)``,
    ``catalog.get(...)``, ``catalog.of_kind(...)`` and ``expand_tray(...)``."""
    tree = ast.parse(src)
    names = {"catalog"}  # and any name bound to a catalog: cat = rd.catalog
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and (
                isinstance(node.value, ast.Attribute) and node.value.attr == "catalog"
                or isinstance(node.value, ast.Name) and node.value.id == "catalog"):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name) and f.id == "expand_tray":
            out.append(f"line {node.lineno}: expand_tray()")
        elif isinstance(f, ast.Attribute) and f.attr in ("get", "of_kind"):
            owner = f.value
            name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
            if name in names:
                out.append(f"line {node.lineno}: catalog.{f.attr}()")
    return out


# Analyses not yet moved onto ResolvedDesign.part() / tray_layout() (issue 32 item 1):
# listed so that no other module starts looking parts up again; the list only shrinks.
NOT_YET_RESOLVED: set[str] = set()
# a tray type's own graph and PCIe contention, built from the type (validate and ingest
# use them with no design); compare's chip and tray options, named by catalog slug (a GPU
# or a server to set beside designs, not a design)
TRAY_LEVEL = {"infra/topology/tray.py", "infra/analysis/network/pcie.py",
              "infra/analysis/cost/compare.py", "infra/analysis/cost/compare_metrics.py"}


def test_catalog_lookup_finder_sees_every_form():
    src = ("def f(rd, catalog):\n    rd.catalog.get('x')\n    catalog.get('y')\n"
           "    catalog.of_kind('gpu')\n    expand_tray(t, c)\n    rd.part('x')\n"
           "    d.get('k')\n    cat = rd.catalog\n    cat.get('z')\n")
    assert catalog_lookups(src) == ["line 2: catalog.get()", "line 3: catalog.get()",
                                    "line 4: catalog.of_kind()", "line 5: expand_tray()",
                                    "line 9: catalog.get()"]


def test_analyses_read_parts_from_the_resolved_design():
    """Issue 32 item 1: an analysis reads the parts and tray layouts resolved once at
    load (``rd.part(slug)``, ``rd.tray_layout(tray)``), never the catalog."""
    bad, done = [], []
    for path in sorted([*(PKG / "analysis").rglob("*.py"), *(PKG / "topology").rglob("*.py")]):
        rel = str(path.relative_to(ROOT))
        found = catalog_lookups(path.read_text())
        if rel in TRAY_LEVEL:
            continue
        if rel in NOT_YET_RESOLVED:
            done += [] if found else [rel]
            continue
        bad += [f"{rel} {f}" for f in found]
    assert not bad, bad
    assert not done, f"moved onto the resolved design: drop from NOT_YET_RESOLVED: {done}"


def test_committed_schemas_are_current():
    from infra.models.schema import SCHEMA_DIR, render, schemas

    for name, schema in schemas().items():
        path = SCHEMA_DIR / name
        assert path.exists(), f"{name} missing: run python -m infra.models.schema"
        assert path.read_text() == render(schema), f"{name} stale: run python -m infra.models.schema"
