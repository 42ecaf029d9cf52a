"""No import cycles between the files of ``infra`` (issue 32, item 4).

The graph: one node per module of the package (``infra/x/y.py`` is ``infra.x.y``, a
package's ``__init__.py`` is the package), one edge per import of another ``infra``
module found anywhere in the file: at module level, inside functions (a lazy import is
still a dependency: it only hides the cycle until the call), under ``TYPE_CHECKING``,
relative imports made absolute, ``from pkg import mod`` as ``pkg.mod`` when that is a
module (else ``pkg``), ``importlib.import_module("infra...")`` literals. Importing
``a.b.c`` also runs ``a`` and ``a.b``'s ``__init__``: that implicit step is not an edge
(a package that imports its own submodules would otherwise be in a cycle with each of
them), so a package's ``__init__`` must not import what imports it back.

Every strongly connected component must be a single module.
"""

from __future__ import annotations

import ast
import shutil
import sys
from pathlib import Path

import pytest

from conftest import ROOT

PKG = ROOT / "infra"

def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path, package: str = "infra") -> dict[str, dict[str, int]]:
    """{module: {imported module: first line}} over every ``*.py`` under ``root/package``."""
    files = {module_name(p, root): p for p in sorted((root / package).rglob("*.py"))}

    def known(name: str) -> str | None:  # the module itself, else the package above it
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, dict[str, int]] = {}
    for mod, path in files.items():
        here = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
        edges: dict[str, int] = {}
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = here[: len(here) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in files else base
                         for a in node.names]
            elif isinstance(node, ast.Call) and node.args:
                func = getattr(node.func, "attr", getattr(node.func, "id", None))
                arg = node.args[0]
                if func in ("import_module", "__import__") and isinstance(arg, ast.Constant) \
                        and isinstance(arg.value, str):
                    names = [arg.value]
            for name in names:
                if name == package or name.startswith(package + "."):
                    target = known(name)
                    if target and target != mod:
                        edges.setdefault(target, node.lineno)
        graph[mod] = edges
    return graph


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * len(graph) + 100))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(out)


def describe(graph: dict[str, dict[str, int]], comp: list[str]) -> str:
    inside = set(comp)
    return "; ".join(f"{m} -> {t} (line {ln})" for m in comp
                     for t, ln in sorted(graph[m].items()) if t in inside)


def with_parent_packages(graph: dict[str, dict[str, int]], root: str = "infra"
                         ) -> dict[str, dict[str, int]]:
    """``graph`` plus the imports Python makes implicitly: importing ``infra.p.q`` from
    outside ``infra.p`` runs ``infra/p/__init__.py`` first (an edge to ``infra.p``). The
    root package is left out: every module is inside it."""
    out = {m: dict(e) for m, e in graph.items()}
    for m, edges in graph.items():
        for target, line in edges.items():
            parts = target.split(".")
            for k in range(2, len(parts)):
                parent = ".".join(parts[:k])
                if parent != root and parent in graph and not (m + ".").startswith(parent + "."):
                    out[m].setdefault(parent, line)
    return out


def test_no_import_cycles():
    graph = with_parent_packages(import_graph(ROOT))
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n".join(
        f"{len(c)} modules: {describe(graph, c)}" for c in found)


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


@pytest.mark.parametrize("a_text, b_text", [
    ("import infra.b\n", "import infra.a\n"),  # both at module level
    ("from infra import b\n", "def f():\n    from infra.a import thing\n"),  # a lazy import
    ("from . import b\n", "from .a import thing\n"),  # relative
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from infra.b import T\n",
     "import importlib\n\ndef f():\n    return importlib.import_module('infra.a')\n"),
    ("class C:\n    def m(self):\n        import infra.b.c\n",  # into a package's submodule
     None),
])
def test_a_cycle_in_a_synthetic_package_is_found(tmp_path, a_text, b_text):
    files = {"infra/__init__.py": "", "infra/a.py": a_text}
    if b_text is None:
        files |= {"infra/b/__init__.py": "", "infra/b/c.py": "from infra.a import x\n"}
        expect = ["infra.a", "infra.b.c"]
    else:
        files["infra/b.py"] = b_text
        expect = ["infra.a", "infra.b"]
    assert cycles(import_graph(write(tmp_path, files))) == [expect]


def test_no_cycle_where_the_imports_point_one_way(tmp_path):
    root = write(tmp_path, {
        "infra/__init__.py": "",
        "infra/leaf.py": "X = 1\n",
        "infra/a.py": "from infra.leaf import X\n",
        "infra/b.py": "from infra.leaf import X\n\ndef f():\n    from infra import a\n",
        # a package importing its submodules, which import a sibling leaf: no edge back
        "infra/p/__init__.py": "from infra.p.base import D\n\ndef g():\n    from infra.p import q\n",
        "infra/p/base.py": "D = 1\n",
        "infra/p/q.py": "from infra.p.base import D\nfrom infra.p import base\n",
    })
    assert cycles(import_graph(root)) == []


def test_a_package_init_and_its_submodule_importing_each_other_is_a_cycle(tmp_path):
    root = write(tmp_path, {
        "infra/__init__.py": "",
        "infra/p/__init__.py": "def g():\n    from infra.p import q\n\nD = 1\n",
        "infra/p/q.py": "from infra.p import D\n",  # a name of the package: its __init__
    })
    assert cycles(import_graph(root)) == [["infra.p", "infra.p.q"]]


def test_reintroducing_a_broken_cycle_in_a_copy_of_the_tree_fails(tmp_path):
    """The cycles broken in issue 32, put back one at a time into a copy of the package,
    are found again."""
    shutil.copytree(PKG, tmp_path / "infra", ignore=shutil.ignore_patterns("__pycache__"))
    assert cycles(import_graph(tmp_path)) == []
    back = {  # module file: the import that made the cycle, added inside a function
        "cli/runtime.py": ("infra.cli.main", "infra.cli.runtime"),
        "analysis/reliability/effect.py": ("infra.analysis.reliability.blast_radius",
                                           "infra.analysis.reliability.effect"),
        "models/expand.py": ("infra.models.catalog", "infra.models.expand"),
        "reports/diagrams/base.py": ("infra.reports.diagrams", "infra.reports.diagrams.base"),
    }
    for rel, (target, mod) in back.items():
        path = tmp_path / "infra" / rel
        text = path.read_text()
        path.write_text(text + f"\n\ndef _reintroduced():\n    import {target}\n")
        found = cycles(import_graph(tmp_path))
        path.write_text(text)
        assert any(mod in c and target in c for c in found), (rel, found)


def test_a_cycle_through_a_package_init_is_found(tmp_path):
    """``infra.x`` imports ``infra.p.q``, which runs ``infra/p/__init__.py`` first; that
    ``__init__`` imports ``infra.x``: a cycle no explicit import shows."""
    root = write(tmp_path, {
        "infra/__init__.py": "",
        "infra/x.py": "from infra.p.q import Q\n",
        "infra/p/__init__.py": "from infra.x import X\n",
        "infra/p/q.py": "Q = 1\n",
    })
    assert cycles(import_graph(root)) == []
    assert cycles(with_parent_packages(import_graph(root))) == [["infra.p", "infra.x"]]
