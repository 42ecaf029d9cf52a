"""Every YAML example in docs/design-format.md loads with the real loaders.

Designs are validated and resolved with the shipped catalog (the tray examples of the
page added to it) and their fabrics sized; trays are parsed as catalog entries and
expanded, so a wiring name that does not exist fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from infra.analysis.network.fabric import design_fabrics
from infra.models.catalog import load_catalog, parse_entry
from infra.models.expand import expand_tray
from infra.models.resolve import design_from_data

DOC = Path(__file__).resolve().parents[1] / "docs" / "design-format.md"
BLOCKS = re.findall(r"```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
TRAYS = [b for b in BLOCKS if "kind: compute_tray" in b]
PARTS = [b for b in BLOCKS if b.startswith("kind: ") and b not in TRAYS]  # other catalog entries
DESIGNS = [b for b in BLOCKS if b not in TRAYS and b not in PARTS]


def test_doc_has_examples():
    assert len(TRAYS) >= 3 and len(DESIGNS) >= 5 and PARTS


@pytest.fixture(scope="module")
def catalog():
    base = load_catalog()
    return base.with_parts(parse_entry(d, DOC.parent / f"{d['slug']}.yaml")
                           for d in map(yaml.safe_load, TRAYS))


def test_part_examples_equal_the_shipped_entries():
    """A catalog entry shown on the page is the shipped one (comments aside)."""
    base = load_catalog()
    for d in map(yaml.safe_load, PARTS):
        shown = parse_entry(d, DOC.parent / f"{d['slug']}.yaml")
        assert shown.model_dump(exclude={"sources"}) == base.get(d["slug"]).model_dump(
            exclude={"sources"})


@pytest.mark.parametrize("text", TRAYS, ids=lambda t: yaml.safe_load(t)["slug"])
def test_tray_example_expands(text, catalog):
    tray = catalog.get(yaml.safe_load(text)["slug"])
    lay = expand_tray(tray, catalog)
    assert lay.count("gpu") == 2  # each example holds one GB200 (2 B200) or 2 Gaudi 3


@pytest.mark.parametrize("text", DESIGNS, ids=lambda t: yaml.safe_load(t)["name"][:30])
def test_design_example_resolves(text, catalog):
    rd = design_from_data(yaml.safe_load(text), DOC, catalog)
    assert rd.rack_counts
    for fabric in design_fabrics(rd):
        assert fabric.nodes > 0


def test_doc_mentions_every_design_field():
    from infra.models.design import Design

    text = DOC.read_text(encoding="utf-8")
    for name in Design.model_fields:
        assert f"`{name}`" in text or f"{name}:" in text, name
