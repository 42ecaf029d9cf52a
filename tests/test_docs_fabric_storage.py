"""docs/guides/fabrics-storage.md cannot drift: its YAML excerpts are the shipped
design's, and the figures its prose quotes are computed here (its command blocks are the
commands' output: ``tests/test_docs_blocks.py``)."""

from __future__ import annotations

import math
import re

import yaml

from conftest import ROOT
from infra.analysis.network.fat_tree import split_ports, tier_ratios
from infra.analysis.network.storage import checkpoint_seconds, design_storage
from infra.analysis.summary import analyze_file

GUIDE = ROOT / "docs/guides/fabrics-storage.md"
TEXT = GUIDE.read_text(encoding="utf-8")
PROSE = " ".join(TEXT.split())
DESIGN = ROOT / "designs" / "meta_h100_24k.yaml"


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
