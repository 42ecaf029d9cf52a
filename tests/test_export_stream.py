"""Streamed exports write the same bytes as the whole-file exports did (issue 33).

``tests/golden/exports/sha256.json`` holds the SHA-256 of every file of every export of
every shipped design (and the missing-rack fixture), recorded from the whole-string
writers before the exports were streamed. ``write_export`` (what ``infra export``
runs) must write exactly those bytes, and the in-memory ``ExportFile.text``/``data``
(what the Python API returns) must be the same bytes (text files). Regenerate after a deliberate
change of an export, a design or a catalog with ``INFRA_UPDATE_GOLDEN=1``.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from conftest import DESIGNS, ROOT
from infra.errors import InfraError
from infra.exports import TARGETS, export_design, write_export
from infra.models.catalog import load_catalog
from infra.models.resolve import load_design

MANIFEST = ROOT / "tests" / "golden" / "exports" / "sha256.json"
MISSING_RACK = ROOT / "tests" / "fixtures" / "designs" / "nvl72_missing_rack.yaml"
SOURCES = sorted(DESIGNS.glob("*.yaml")) + [MISSING_RACK]


def digests(out: Path) -> dict[str, str]:
    """{relative path: sha256} of every file under ``out``."""
    return {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*")) if p.is_file()}


def exported(design: Path, target: str, out: Path, catalog) -> tuple[dict, object]:
    """Write ``design``'s ``target`` export under ``out``: ({path: sha256} or
    {"error": first line}, the Export or None)."""
    try:
        ex = export_design(load_design(design, catalog), target)
    except InfraError as e:
        return {"error": str(e).splitlines()[0].replace(str(ROOT) + os.sep, "")}, None
    write_export(ex, out)
    return digests(out), ex


@pytest.fixture(scope="module")
def manifest():
    if os.environ.get("INFRA_UPDATE_GOLDEN"):
        return None
    return json.loads(MANIFEST.read_text())


@pytest.mark.parametrize("target", TARGETS)
def test_streamed_exports_write_the_recorded_bytes(target, manifest, tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)  # the xlsx dates are pinned
    catalog = load_catalog()
    got = {}
    for design in SOURCES:
        out = tmp_path / design.stem
        got[design.stem], ex = exported(design, target, out, catalog)
        if ex is None:
            continue
        for f in ex.files:  # the Python API's in-memory text is the same bytes
            if f.data is None:  # (an xlsx is re-pinned by the atomic writer)
                assert (out / f.path).read_bytes() == f.text.encode(), f"{design.stem} {f.path}"
    if manifest is None:
        doc = json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {}
        doc[target] = got
        MANIFEST.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
        return
    want = manifest[target]  # designs added since are checked against the API's text only
    assert [d for d in want if d not in got] == []
    assert [d for d in want if got[d] != want[d]] == []
    assert sum("error" not in v for v in got.values()) >= 5


@pytest.mark.parametrize("name", ["su0.r0", "r001n[01-18],r002n01", "yes", "No", "null", "on",
                                  "1su", "a b", "a: b", "x#y", "-x", "é", "su_0-1.leaf2", "Off",
                                  "e1", "x" * 950])
def test_slurm_topology_yaml_is_what_pyyaml_writes(name):
    """The hand-written topology.yaml emitter gives PyYAML's bytes, or defers to PyYAML."""
    import yaml

    from infra.analysis.network.schedtopo import Block, BlockTopology, TreeSwitch, TreeTopology
    from infra.exports.slurm import topology_yaml

    blocks = BlockTopology((Block(name, ("r001n01", name), "d", "g"), Block("b2", (), None, "g")),
                           (2, 4), "x")
    tree = TreeTopology("f", (TreeSwitch(name, 0, ("r001n01",), (), ()),
                              TreeSwitch("spine", 1, (), (name,), ())))
    for b, t in ((blocks, tree), (None, tree), (blocks, None)):
        doc = yaml.safe_load(topology_yaml(b, t))
        assert topology_yaml(b, t) == yaml.safe_dump(doc, sort_keys=False, explicit_start=True,
                                                     width=1000)
