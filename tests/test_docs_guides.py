"""Docs cannot drift (issue 28 item 7): the power, robustness and capex/TCO guides show
what the tool prints today.

Every fenced block line ``$ infra ...`` (or ``$ COLUMNS=N infra ...``) is run as a user
runs it from a checkout (a fresh directory holding ``designs``, ``catalogs`` and the
guide's own input files, at the guide's terminal width unless the line sets COLUMNS).
The lines the guide shows under it, up to the next ``$`` line or the fence, must each
be a line of the output, verbatim (``...`` elides; a ``(exit N)`` line is the exit
status, 0 when absent). The figures the prose quotes are computed here
from the model and looked up in the text, so a figure edited by hand, or a model change
that moves a figure, fails here."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT

GUIDES = {  # guide -> COLUMNS its blocks were printed at
    "docs/guides/power.md": "200",
    "docs/guides/robustness.md": "100",
    "docs/guides/capex-tco.md": "100",
}

# The robustness guide's bad inputs, built as the guide describes them.
BOMB = "\n".join(["x0: &x0 [a, a, a, a, a, a, a, a, a]"]
                 + [f"x{i}: &x{i} [" + ", ".join([f"*x{i - 1}"] * 9) + "]" for i in range(1, 9)]
                 + ["name: *x8", "racks: {}", "build: {r: 1}"]) + "\n"
HIGH = textwrap.dedent("""\
    # high.yaml: the GB200 NVL72 rack at the high end of its range
    as_of: 2026-06-30
    currency: USD
    prices:
      - slug: nvidia-gb200-nvl72-rack
        usd: 4000000
        basis: estimate
        covers: contents
        date: 2026-05-01
        source: {title: "high end of the price file's range", url: "https://example.com", tag: AN}
    """)
QUOTE = textwrap.dedent("""\
    # my-quote.yaml
    as_of: 2026-06-30
    currency: USD
    prices:
      - slug: nvidia-dgx-h100
        usd: 400000
        basis: quote
        covers: contents
        date: 2026-06-01
        source: {title: "example vendor quote (illustration)", url: "https://example.com/quote", tag: V}
    """)


def inputs(tmp_path):
    """The files the guides' commands name, in a fresh working directory."""
    for name in ("designs", "catalogs", "sweeps"):
        (tmp_path / name).symlink_to(ROOT / name)
    (tmp_path / "bomb.yaml").write_text(BOMB)
    lines = (ROOT / "designs" / "gb200_nvl72.yaml").read_text().split("\n")
    at = next(i for i, x in enumerate(lines) if x.startswith("build:"))
    (tmp_path / "dup.yaml").write_text("\n".join(lines[:at + 2] + ["build:", "  nvl72: 2"]
                                                 + lines[at + 2:]))
    (tmp_path / "tag.yaml").write_text("name: !!bool maybe\nracks: {}\nbuild: {r: 1}\n")
    (tmp_path / "high.yaml").write_text(HIGH)
    (tmp_path / "my-quote.yaml").write_text(QUOTE)


def commands(text: str) -> list[tuple[str, list[str], int]]:
    """(command, lines shown under it, exit status shown) for every ``$ infra`` line in a
    fenced block of ``text``."""
    out, block = [], None
    for line in text.split("\n"):
        if line.startswith("```"):
            block = [] if block is None else None
            out.append(None)  # a fence ends the command's lines
            continue
        if block is None:
            continue
        if re.match(r"\$ (COLUMNS=\d+ )?infra ", line):
            out.append([re.sub(r"\s{2,}\(.*\)$", "", line[2:]).strip(), [], 0])
        elif line.startswith("$ "):
            out.append(None)  # another program: not checked
        elif out and out[-1] is not None and line.strip() not in ("", "...", "…"):
            m = re.fullmatch(r"\(exit (\d+)\)", line.strip())
            if m:
                out[-1][2] = int(m.group(1))
            else:
                out[-1][1].append(line.rstrip())
    return [tuple(c) for c in out if c is not None]


def run(command: str, cwd, columns: str) -> tuple[int, set[str]]:
    words = shlex.split(command)
    if words[0].startswith("COLUMNS="):
        columns = words.pop(0).split("=", 1)[1]
    r = subprocess.run([sys.executable, "-m", "infra.cli", *words[1:]],
                       cwd=cwd, capture_output=True, text=True, timeout=300,
                       env={**os.environ, "COLUMNS": columns, "INFRA_CATALOG": "catalogs"})
    return r.returncode, {x.rstrip() for x in (r.stdout + r.stderr).split("\n")}


CASES = [(doc, c) for doc in GUIDES
         for c in commands((ROOT / doc).read_text(encoding="utf-8"))]


@pytest.mark.parametrize("doc, case", CASES, ids=[f"{d}: {c[0]}" for d, c in CASES])
def test_guide_block_is_the_commands_output(doc, case, tmp_path):
    command, shown, status = case
    inputs(tmp_path)
    code, printed = run(command, tmp_path, GUIDES[doc])
    assert code == status, (doc, command, code)
    missing = [x for x in shown if x not in printed]
    assert not missing, (doc, command, missing[:3])


def test_every_guide_has_checked_blocks():
    for doc in GUIDES:
        found = [c for d, c in CASES if d == doc]
        assert len(found) >= 2 and all(shown for _, shown, _ in found), doc


def test_power_guide_prose_quotes_the_model(catalog):
    """The NVL72, SU and GB300 figures the power guide's arithmetic quotes."""
    from infra.analysis.summary import analyze_file

    text = " ".join((ROOT / "docs/guides/power.md").read_text(encoding="utf-8").split())
    nvl72 = analyze_file(ROOT / "designs" / "gb200_nvl72.yaml", catalog).metrics()
    su = analyze_file(ROOT / "designs" / "gb200_nvl72_576.yaml", catalog)
    gb300 = analyze_file(ROOT / "designs" / "gb300_nvl72.yaml", catalog).metrics()
    assert f"= {nvl72['it_power_kw']:.2f} kW" in text
    assert f"Air: 18 x (300 + 450) W + 300 W = {nvl72['air_heat_kw']:g} kW" in text
    (row,) = [r for r in su.envelopes if r.scope == "pod:su"]
    kw = su.metrics()["it_power_kw"]
    assert f"{kw:,.1f} kW against NVIDIA's 1.2 MW SU TDP ({row.diff_pct:.1f} %" in text
    assert f"{1200 - kw:.1f} kW" in text  # NVIDIA's allowance for what the design omits
    assert f"{gb300['it_power_kw']:.2f} kW against NVIDIA's RA" in text


def test_capex_guide_prose_quotes_the_prices(catalog):
    """The planning prices and ranges the capex guide's arithmetic and source table quote
    are the price files'."""
    from infra.models.prices import load_prices

    text = (ROOT / "docs/guides/capex-tco.md").read_text(encoding="utf-8")
    book = load_prices(catalog=catalog)
    for slug in ("nvidia-hgx-b200", "nvidia-gb200-nvl72-rack", "nvidia-quantum-2-qm9700",
                 "nvidia-dgx-h100", "nvidia-gb300-nvl72-rack"):
        p = book.get(slug)
        (row,) = [x for x in text.split("\n") if x.startswith(f"| {slug}")]
        assert f"| {p.usd:,.0f} |" in row and f"{p.basis}, {p.covers}" in row and str(p.date) in row
    rack = book.get("nvidia-gb200-nvl72-rack")
    assert f"4 × ${rack.usd / 1e6:.1f}M + 20 × $36,000 = ${4 * rack.usd + 20 * 36_000:,.0f}" in text
    assert f"costs ${rack.high_usd / 1e6:.1f}M instead of ${rack.usd / 1e6:.1f}M" in text
    b200 = book.get("nvidia-hgx-b200").usd
    assert f"32 × ${b200:,.0f} + 12 × $36,000 = ${32 * b200 + 12 * 36_000:,.0f}" in text


def test_robustness_guide_prose_quotes_the_self_check(run_cli):
    """The availability self-check figures the robustness guide quotes are what
    ``infra failures designs/dgx_h100_superpod.yaml`` prints (seeded Monte Carlo)."""
    import json

    res = run_cli("failures", str(ROOT / "designs" / "dgx_h100_superpod.yaml"), "--format", "json")
    (row,) = json.loads(res.output)["tables"]["domain_availability"]
    text = " ".join((ROOT / "docs/guides/robustness.md").read_text(encoding="utf-8").split())
    assert row["agrees"]
    assert (f"closed form {row['closed_form']:g}, inside the Monte Carlo interval "
            f"[{row['mc_ci_low']:g}, {row['mc_ci_high']:g}]") in text
