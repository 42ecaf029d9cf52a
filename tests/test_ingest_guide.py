"""docs/guides/ingest.md shows real dumps and the site-naming findings (its command
blocks, run in order as a reader follows the guide, are the commands' output:
``tests/test_docs_blocks.py``)."""

from __future__ import annotations

import pytest

from conftest import ROOT

GUIDE = ROOT / "docs/guides/ingest.md"


@pytest.mark.parametrize("line", ["inspected 1 of 18 design nodes, 4 GPUs",
                                  "gpu-type-unchecked", "hosts-unplaced"])
def test_guide_shows_the_real_dumps_and_site_naming(line):
    assert line in GUIDE.read_text(encoding="utf-8")
