"""Docs cannot drift: every `infra collectives` block in the README and the collectives
guide is the command's real output, and the figures the prose quotes come from it."""

from __future__ import annotations

import re
import shlex

import pytest
from click.testing import CliRunner

from conftest import ROOT

DOCS = {"README.md": "120", "docs/guides/collectives.md": "100"}  # file -> COLUMNS it uses


def blocks(text: str) -> list[tuple[str, str]]:
    """(command, output) of every ```text block that starts with ``$ infra collectives`` or
    ``$ infra synthesize``."""
    out = []
    for body in re.findall(r"```text\n(.*?)```", text, re.S):
        first, _, rest = body.partition("\n")
        if first.startswith(("$ infra collectives", "$ infra synthesize")):
            out.append((first[2:], rest))
    return out


def run(command: str, columns: str) -> str:
    from infra.cli.main import cli

    r = CliRunner().invoke(cli, shlex.split(command)[1:], obj={}, env={"COLUMNS": columns})
    assert r.exit_code == 0, r.output
    return r.output


@pytest.mark.parametrize("doc", sorted(DOCS))
def test_blocks_are_the_commands_output(doc, monkeypatch):
    monkeypatch.chdir(ROOT)
    found = blocks((ROOT / doc).read_text(encoding="utf-8"))
    assert found, f"{doc} has no infra collectives block"
    for command, shown in found:
        assert run(command, DOCS[doc]) == shown, command


def test_readme_prose_quotes_the_model():
    from infra.analysis.perf import collectives
    from infra.analysis.perf.published import summary, validate
    from infra.models.resolve import load_design

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    s = summary(validate())
    total = s["cases"] + s["known_misses"]
    assert (f"against {total} published nccl-tests/rccl-tests runs (median error "
            f"{s['median_pct']} %, max {s['max_pct']} % on {s['cases']} of them; "
            f"{'one' if s['known_misses'] == 1 else s['known_misses']} known miss") \
        in " ".join(text.split())
    for design in ("aws_nvl36x2_cluster", "gb200_nvl72_576"):
        rd = load_design(ROOT / "designs" / f"{design}.yaml")
        (far,) = collectives(rd, ops=("all_to_all",), gpus=(576,), sizes=(8 * 2**30,))
        (near,) = collectives(rd, ops=("all_to_all",), gpus=(72,), sizes=(8 * 2**30,))
        (ar,) = collectives(rd, ops=("all_reduce",), gpus=(72,), sizes=(8 * 2**30,))
        assert f"{far.busbw_gbyte_s:.1f} GB/s busbw on both" in text
        assert f"NVLink's {int(near.busbw_gbyte_s)} GB/s" in text
        assert f"~{round(ar.busbw_gbyte_s)} GB/s" in " ".join(text.split())


def test_readme_design_block_is_the_commands_output(tmp_path):
    """The README's headline run (`infra design designs/aws_nvl36x2.yaml --report xlsx`),
    run as a user runs it from a checkout (100 columns), prints what the README shows."""
    import os
    import shutil
    import subprocess
    import sys

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    body = re.search(r"```text\n\$ (infra design designs/aws_nvl36x2\.yaml --report xlsx)\n(.*?)```",
                     text, re.S)
    assert body, "README lost its headline block"
    (tmp_path / "designs").symlink_to(ROOT / "designs")
    exe = shutil.which("infra") or ""
    cmd = [exe] if exe else [sys.executable, "-m", "infra.cli"]
    r = subprocess.run(cmd + shlex.split(body.group(1))[1:], cwd=tmp_path, capture_output=True,
                       text=True, env={**os.environ, "COLUMNS": "100"}, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout + r.stderr == body.group(2)


def test_readme_compare_row_blocks_are_in_the_output(monkeypatch):
    """README blocks ``$ infra compare ... --format csv   (rows)`` show a subset of the
    command's CSV rows: every shown line is one of them, verbatim."""
    monkeypatch.chdir(ROOT)
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = 0
    for body in re.findall(r"```text\n(.*?)```", text, re.S):
        first, _, rest = body.partition("\n")
        if first.startswith("$ infra compare") and first.endswith("(rows)"):
            found += 1
            lines = set(run(first[2:].removesuffix("(rows)").strip(), "100").splitlines())
            missing = [x for x in rest.splitlines() if x and x not in lines]
            assert not missing, (first, missing)
    assert found >= 2


CHECKED = {  # doc -> commands whose block shows lines of the command's own output
    "README.md": ("infra design designs/dgx_h100_superpod.yaml --full",
                  "infra failures designs/llama3_h100_16k.yaml",
                  "infra sweep designs/gb200_nvl72_576.yaml --grid sweeps/nvl72_nic_oversub.yaml"),
    "docs/guides/sweeps.md": (
        "infra sweep designs/gb200_nvl72_576.yaml --grid sweeps/nvl72_nic_oversub.yaml",),
    "docs/guides/systems-amd.md": (
        "infra validate designs/mi325x_cluster.yaml designs/mi355x_cluster.yaml",
        "infra design designs/mi355x_cluster.yaml --full",
        "infra design designs/mi325x_cluster.yaml --full",
        "infra compare amd-mi300x amd-mi325x amd-mi350x amd-mi355x"),
    "docs/guides/systems-nvidia-oem.md": (
        "infra design designs/hgx_b300_su.yaml --full",
        "infra design designs/hgx_h200_cluster.yaml --full",
        "infra design designs/hgx_h100_liquid_512.yaml --full"),
    "docs/guides/reports.md": ("infra design designs/gb200_nvl72_576.yaml",
                               "infra design designs/gb200_nvl72_576.yaml --full"),
    "docs/guides/gaudi3-and-bisection.md": ("infra design designs/gaudi3_cluster.yaml --full",),
}


def fenced_blocks(text: str) -> list[list[str]]:
    """The lines of every fenced block, fences paired line by line."""
    blocks, cur = [], None
    for line in text.split("\n"):
        if line.startswith("```"):
            if cur is None:
                cur = []
            else:
                blocks.append(cur)
                cur = None
        elif cur is not None:
            cur.append(line)
    return blocks


def shown_lines(text: str, command: str) -> list[str]:
    """The lines a doc shows under ``$ COMMAND`` (up to the next ``$`` line or the fence),
    without elisions and comments."""
    for lines in fenced_blocks(text):
        for i, line in enumerate(lines):
            if line.startswith("$ ") and re.sub(r"\s{2,}\(.*\)$", "", line[2:]).strip() == command:
                out = []
                for x in lines[i + 1:]:
                    if x.startswith("$ "):
                        break
                    if x.strip() and x.strip() not in ("...", "…") and not x.startswith("#"):
                        out.append(x.rstrip())
                return out
    raise AssertionError(f"no block for {command!r}")


@pytest.mark.parametrize("doc, command", [(d, c) for d, cs in CHECKED.items() for c in cs])
def test_doc_excerpts_are_lines_of_the_output(doc, command, tmp_path):
    """Excerpts (a design's summary lines, a sweep's table, a failure review's first
    lines) are lines the command prints today, verbatim, at 100 columns."""
    import os
    import subprocess
    import sys

    for name in ("designs", "sweeps", "catalogs", "tests"):
        (tmp_path / name).symlink_to(ROOT / name)
    shown = shown_lines((ROOT / doc).read_text(encoding="utf-8"), command)
    r = subprocess.run([sys.executable, "-m", "infra.cli", *shlex.split(command)[1:]],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300,
                       env={**os.environ, "COLUMNS": "100", "INFRA_CATALOG": "catalogs"})
    printed = {x.rstrip() for x in (r.stdout + r.stderr).split("\n")}
    missing = [x for x in shown if x not in printed]
    assert not missing, (doc, command, missing[:3])
