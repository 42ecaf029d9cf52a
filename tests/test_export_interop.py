"""Exports the real tools accept (issue 29 item 7), hostile names (fuzz C7) and exports that
refuse before they enumerate (issue 34).

Each rule tested here is quoted from the tool that applies it, with where it is written.
"""

from __future__ import annotations

import io

import networkx as nx
import pytest

from conftest import DESIGNS
from infra.exports import TARGETS


@pytest.fixture(scope="module")
def control_named(tmp_path_factory):
    """dgx_h100_su named ``x<ESC>[31m<SOH>y`` (fuzz-report-3 C7)."""
    text = (DESIGNS / "dgx_h100_su.yaml").read_text()
    lines = [r'name: "x\e[31m\x01y"' if line.startswith("name:") else line
             for line in text.splitlines()]
    path = tmp_path_factory.mktemp("c7") / "c7.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("scope", ["fabric", "cluster", "domain", "rack"])
def test_graphml_of_a_design_named_with_control_characters(run_cli, tmp_path, control_named, scope):
    # XML 1.0 (section 2.2, Char) has no place for U+0001 or U+001B: the name is written
    # with escapes, as the k8s and Slurm comment lines write it, and the file reads back
    r = run_cli("export", str(control_named), "--to", "graphml", "--scope", scope,
                "-o", str(tmp_path))
    assert r.exit_code == 0, r.output
    g = nx.read_graphml(io.StringIO((tmp_path / "graphml" / f"c7.{scope}.graphml").read_text()))
    assert g.graph["design"] == "x\\u001b[31m\\u0001y"
    if scope == "cluster":
        assert g.nodes["cluster"]["label"] == "x\\u001b[31m\\u0001y"


@pytest.mark.parametrize("target", [t for t in TARGETS if t != "graphml"])
def test_every_export_of_a_design_named_with_control_characters(run_cli, tmp_path, control_named,
                                                                target):
    r = run_cli("export", str(control_named), "--to", target, "-o", str(tmp_path))
    assert r.exit_code == 0, r.output
    for p in tmp_path.rglob("*"):
        if p.is_file() and p.suffix != ".xlsx":
            assert "\x1b" not in p.read_text() and "\x01" not in p.read_text(), p
