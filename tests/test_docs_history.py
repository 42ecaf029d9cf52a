"""docs/guides/history.md cannot drift: every ``$`` line of its fenced blocks is run, in
order, in one fresh directory holding ``designs``, ``catalogs`` and ``tests`` (setup lines
such as ``cp`` and ``printf`` too), and the lines shown under an ``infra`` line must be its
output, verbatim and in order (``...`` elides; ``exit code: N`` is the exit status), as
for the ingest guide (:mod:`test_ingest_guide`, whose runner this reuses)."""

from __future__ import annotations

from conftest import ROOT
from test_ingest_guide import _in_order, _run, blocks

GUIDE = ROOT / "docs/guides/history.md"


def test_history_guide_blocks_print_what_they_show(tmp_path):
    for name in ("designs", "catalogs", "tests"):
        (tmp_path / name).symlink_to(ROOT / name)
    cases = blocks(GUIDE.read_text(encoding="utf-8"))
    assert sum(1 for c, _ in cases if c.startswith("infra history")) >= 4
    for command, shown in cases:
        printed, stderr = _run(command, tmp_path)
        if not command.startswith("infra "):
            assert printed[-1] == "exit code: 0", (command, printed, stderr)
            continue
        missing = _in_order(shown, printed, stderr)
        assert not missing, (command, missing[:3], printed[:20])
