"""docs/guides/fabrics-storage.md cannot drift: its command blocks are the commands'
output today (as tests/test_docs_guides.py checks the other guides), its YAML excerpts
are the shipped design's, and the figures its prose quotes are computed here."""

from __future__ import annotations

import math
import re

import pytest
import yaml

from conftest import ROOT
from infra.analysis.network.fat_tree import split_ports, tier_ratios
from infra.analysis.network.storage import checkpoint_seconds, design_storage
from infra.analysis.summary import analyze_file
from test_docs_guides import commands, inputs, run

GUIDE = ROOT / "docs/guides/fabrics-storage.md"
TEXT = GUIDE.read_text(encoding="utf-8")
PROSE = " ".join(TEXT.split())


def plain_fences(text: str) -> list[str]:
    """The bodies of the untagged fences (the command blocks; yaml/python ones are not)."""
    out, body, tag = [], None, None
    for line in text.split("\n"):
        if line.startswith("```"):
            if body is None:
                body, tag = [], line[3:].strip()
            else:
                if not tag:
                    out.append("\n".join(body))
                body = None
        elif body is not None:
            body.append(line)
    return out


CASES = [c for b in plain_fences(TEXT) for c in commands(f"```\n{b}\n```")]
DESIGN = ROOT / "designs" / "meta_h100_24k.yaml"


def test_guide_has_checked_blocks():
    assert CASES and all(shown for _, shown, _ in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_guide_block_is_the_commands_output(case, tmp_path):
    command, shown, status = case
    inputs(tmp_path)
    code, printed = run(command, tmp_path, "100")
    assert code == status, (command, code)
    missing = [x for x in shown if x not in printed]
    assert not missing, (command, missing[:3])


def test_yaml_excerpts_are_the_shipped_design():
    design = yaml.safe_load(DESIGN.read_text())
    blocks = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", TEXT, re.S)]
    fabric, storage = blocks
    assert fabric["fabrics"] == design["fabrics"]
    assert fabric["pods"] == design["pods"] and fabric["build"] == design["build"]
    assert storage["storage"] == design["storage"]


def test_prose_quotes_the_model():
    a = analyze_file(DESIGN)
    f = a.fabrics[0]
    r = tier_ratios([t.oversubscription for t in f.spec.tiers[:-1]])
    assert r == [1.0, 3.5] and "`[0.5, 7]` gives ratios `[1, 3.5]`" in PROSE
    assert f"400 / 3.5 = {f.per_gpu_gbit_s['above_spine']:.0f} Gb/s across pods" in PROSE
    d, u = split_ports(576, 7, False)
    assert f"{d} ports down and {u} up" in PROSE
    per_pod = math.ceil(192 * 32 / d)
    assert f"ceil(6,144 / {d}) = {per_pod} cluster switches, {f.tiers[1].switches} in all" in PROSE
    assert f"{math.ceil(49_152 / d)} switches would do" in PROSE
    (s,) = design_storage(a.rd)
    assert f"= {s.gpu_side_gbyte_s:g} GB/s per GPU" in PROSE
    knee = s.write_gbyte_s / s.gpu_side_gbyte_s
    assert f"Up to {knee:.0f} GPUs are limited by their NICs" in PROSE
    assert f"{s.per_gpu_gbyte_s(16_384):.3f} GB/s per GPU for the 16,384 GPUs" in PROSE
    assert f"{s.per_gpu_gbyte_s(24_576):.3f} GB/s per GPU for all 24,576" in PROSE
    assert f"{checkpoint_seconds(s, 16_384 * 4e9, 16_384):.2f} s to write" in PROSE
    assert f"{16_384 * 4 / s.peak_gbyte_s:.2f} s at the peak" in PROSE
