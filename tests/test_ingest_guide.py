"""docs/guides/ingest.md cannot drift: every ``$ infra ...`` line of its fenced blocks is
run as a user runs it from a checkout (a fresh directory holding ``designs``,
``catalogs`` and ``tests``), and the lines the guide shows under it, up to the next ``$``
line or the fence, must be the output's lines, verbatim and in order (``...`` elides any
number of lines; ``exit code: N`` is the exit status). A ``$`` line that is not infra
(``mkdir``, ``cp``) is run too: the guide builds its bad inputs that way."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

GUIDE = ROOT / "docs/guides/ingest.md"


def blocks(text: str) -> list[tuple[str, list[str]]]:
    """(command, shown lines) for every ``$`` line of the guide's fenced blocks, in order."""
    out: list[list] = []
    inside = False
    for line in text.split("\n"):
        if line.startswith("```"):
            inside = not inside
            out.append(None)  # a fence ends the command's lines
            continue
        if not inside:
            continue
        if line.startswith("$ "):
            out.append([line[2:], []])
        elif out and out[-1] is not None and line.strip():
            out[-1][1].append(line.rstrip())
    return [(c[0], c[1]) for c in out if c is not None]


def _run(command: str, cwd) -> tuple[list[str], set[str]]:
    """(standard output lines then ``exit code: N``, standard error lines)."""
    shell = re.sub(r"^infra ", f"{sys.executable} -m infra.cli ", command)
    r = subprocess.run(["bash", "-c", shell + "; echo \"exit code: ${PIPESTATUS[0]}\""],
                       cwd=cwd, capture_output=True, text=True, timeout=300,
                       env={**os.environ, "COLUMNS": "200", "INFRA_CATALOG": "catalogs"})
    return ([x.rstrip() for x in r.stdout.split("\n") if x.strip()],
            {x.rstrip() for x in r.stderr.split("\n") if x.strip()})


def _in_order(shown: list[str], printed: list[str], stderr: set[str] = frozenset()) -> list[str]:
    """The shown lines not found in ``printed`` in order (``...`` skips ahead); a line of
    standard error only has to be there (a terminal interleaves the two streams)."""
    missing, at, skip = [], 0, False
    for line in shown:
        if line.strip() in ("...", "…"):
            skip = True
            continue
        if line in stderr:
            continue
        try:
            found = printed.index(line, at)
        except ValueError:
            missing.append(line)
            continue
        if not skip and found != at:
            missing.append(f"(not next) {line}")
        at, skip = found + 1, False
    return missing


def test_guide_commands_print_what_the_guide_shows(tmp_path):
    for name in ("designs", "tests"):
        (tmp_path / name).symlink_to(ROOT / name)
    shutil.copytree(ROOT / "catalogs", tmp_path / "catalogs")  # paths print as a user's do
    cases = blocks(GUIDE.read_text(encoding="utf-8"))
    assert sum(1 for c, _ in cases if c.startswith("infra ")) >= 10
    for command, shown in cases:
        printed, stderr = _run(command, tmp_path)
        if not command.startswith("infra "):
            continue  # a setup step: its output is not shown
        missing = _in_order(shown, printed, stderr)
        assert not missing, (command, missing[:3], printed[:20])


@pytest.mark.parametrize("line", ["inspected 1 of 18 design nodes, 4 GPUs",
                                  "gpu-type-unchecked", "hosts-unplaced"])
def test_guide_shows_the_real_dumps_and_site_naming(line):
    assert line in GUIDE.read_text(encoding="utf-8")
