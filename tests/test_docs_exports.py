"""The exports guide shows what the exports write today (docs cannot drift).

Every ``$ infra export ...`` line in a fenced block of docs/guides/exports.md is run as a
user runs it (from a directory holding ``designs``, ``catalogs`` and the test fixtures).
Each line shown under it must be a line it printed or a line of a file it wrote (a line
ending in ``...`` is a prefix; a lone ``...`` elides). Each ``$ head -N FILE`` line must be
followed by exactly the first N lines of FILE. Python sessions (``>>>``) and other
programs are not checked.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

import pytest

from conftest import ROOT

GUIDE = ROOT / "docs" / "guides" / "exports.md"


def blocks(text: str) -> list[tuple[str, list[str]]]:
    """(command, lines shown under it) for every ``$`` line of every fenced block."""
    out: list = []
    inside = False
    for line in text.split("\n"):
        if line.startswith("```"):
            inside = not inside
            out.append(None)
            continue
        if not inside:
            continue
        if line.startswith("$ "):
            out.append([line[2:], []])
        elif line.startswith(">>>"):
            out.append(None)
        elif out and out[-1] is not None:
            out[-1][1].append(line.rstrip())
    return [tuple(b) for b in out if b is not None]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    d = tmp_path_factory.mktemp("guide")
    for name in ("designs", "catalogs"):
        (d / name).symlink_to(ROOT / name)
    (d / "tests" / "fixtures").mkdir(parents=True)
    (d / "tests" / "fixtures" / "designs").symlink_to(ROOT / "tests" / "fixtures" / "designs")
    (d / "tests" / "fixtures" / "hostmaps").symlink_to(ROOT / "tests" / "fixtures" / "hostmaps")
    return d


CASES = blocks(GUIDE.read_text(encoding="utf-8"))


def test_the_guide_has_checked_blocks():
    assert sum(c.startswith("infra export") for c, _ in CASES) >= 8
    assert sum(c.startswith("head ") for c, _ in CASES) >= 4


@pytest.mark.parametrize("i", range(len(CASES)))
def test_guide_block_is_what_the_export_writes(i, workdir):
    command, shown = CASES[i]
    command = re.sub(r"\s+#.*$", "", command)
    words = shlex.split(command)
    if words[0] == "head":
        n = int(words[1].lstrip("-n").lstrip("-") or words[2])
        path = workdir / words[-1]
        assert shown == path.read_text(encoding="utf-8").split("\n")[:n], command
        return
    if words[:2] != ["infra", "export"]:
        pytest.skip("another program")
    r = subprocess.run([sys.executable, "-m", "infra.cli", *words[1:]], cwd=workdir,
                       capture_output=True, text=True, timeout=300,
                       env={**os.environ, "INFRA_CATALOG": "catalogs"})
    assert r.returncode == 0, (command, r.stderr[-500:])
    lines = set((r.stdout + r.stderr).split("\n"))
    for w in r.stdout.split("\n"):
        if w.startswith("wrote ") and not w.endswith(".xlsx"):
            lines |= set((workdir / w[6:]).read_text(encoding="utf-8").split("\n"))
    missing = []
    for s in shown:
        if s.strip() in ("", "...", "…"):
            continue
        if s.endswith("..."):
            if not any(x.startswith(s[:-3].rstrip()) for x in lines):
                missing.append(s)
        elif s not in lines:
            missing.append(s)
    assert not missing, (command, missing[:3])
