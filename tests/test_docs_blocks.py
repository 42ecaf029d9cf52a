"""Docs cannot drift (issue 28): every figure in the README and the guides comes from a
command this test runs and compares (:mod:`docs_harness` says how a block is read), and
no doc can show a ``$ infra`` line that nothing checks. ``scripts/regen_docs.py`` rewrites
the blocks from the same runs after a model change."""

from __future__ import annotations

import pytest

import docs_harness as h
from conftest import ROOT


@pytest.mark.parametrize("doc", sorted(h.DOCS))
def test_doc_blocks_are_the_commands_output(doc):
    bad = h.check(doc)
    assert not bad, ("run `python scripts/regen_docs.py " + doc + "`", bad[:5])


@pytest.mark.parametrize("doc", sorted(h.DOCS))
def test_every_checked_doc_shows_output(doc):
    shown = [c for c, r in h.results(doc) if r is not None and c.expected()]
    assert shown, f"{doc}: no `$ infra` block with output"


def test_no_infra_line_escapes_the_docs_test():
    """A doc with a ``$ infra`` line in a fence is checked here, or by a named test that
    checks more, or shows no output under it (a list of commands): a new guide cannot
    show output nothing runs."""
    import test_docs_exports

    docs = h.doc_paths()
    assert "README.md" in docs and len(docs) > 20
    for doc in docs:
        text = (ROOT / doc).read_text(encoding="utf-8")
        lines = h.infra_lines(text)
        if not lines:
            continue
        assert (doc in h.DOCS) + (doc in h.ELSEWHERE) + (doc in h.NOT_RUN) == 1, (
            f"{doc} shows `$ infra` lines: add it to DOCS in tests/docs_harness.py")
        cases = [c for b in h.blocks(text) for c in b if h.INFRA.match("$ " + c.command)]
        assert len(cases) == len(lines), doc  # every `$ infra` line is read as a command
        if doc in h.NOT_RUN:
            assert not any(c.expected() for c in cases), f"{doc} shows output: check it"
        if doc in h.ELSEWHERE:
            checked = {c for c, _ in test_docs_exports.CASES}
            assert {ln[2:] for ln in lines} <= checked, doc
    assert set(h.DOCS) | set(h.ELSEWHERE) | set(h.NOT_RUN) <= set(docs)


# --- a figure edited by hand fails, and the regeneration puts it back ------------------

def _edit(doc: str, line_part: str, old: str, new: str) -> str:
    text = (ROOT / doc).read_text(encoding="utf-8")
    lines = text.split("\n")
    (i,) = [i for i, x in enumerate(lines) if line_part in x]
    assert old in lines[i]
    lines[i] = lines[i].replace(old, new, 1)
    return "\n".join(lines)


@pytest.mark.parametrize("doc, line_part, old, new", [
    # a whole-output block (the README's headline run)
    ("README.md", "  Peak dense BF16                   180  PFLOPS", "180", "190"),
    # an elided block (`...`) in a guide
    ("docs/guides/gaudi3-and-bisection.md", "  Scale-out bisection                     153.6",
     "153.6", "135.6"),
    # an exit status
    ("docs/guides/robustness.md", "error: 4 of 5 files failed", "4 of 5", "3 of 5"),
])
def test_a_figure_edited_by_hand_is_reported(doc, line_part, old, new):
    assert not [m for m in h.check(doc) if line_part.strip() in m], "the doc drifted already"
    edited = _edit(doc, line_part, old, new)
    bad = h.check(doc, edited)
    assert any(line_part.strip().replace(old, new, 1) in m for m in bad), bad
    fixed = h.regenerate(doc, edited)
    assert not [m for m in h.check(doc, fixed) if line_part.strip() in m]
    assert line_part.strip().replace(old, new, 1) not in fixed


def test_an_edited_exit_status_is_reported():
    doc = "docs/guides/robustness.md"
    text = (ROOT / doc).read_text(encoding="utf-8")
    edited = text.replace("error: 1 of 2 files failed; nothing was written\n(exit 2)",
                          "error: 1 of 2 files failed; nothing was written\n(exit 1)", 1)
    assert edited != text
    assert any("exit status 2, the doc shows 1" in m for m in h.check(doc, edited))


def test_the_inputs_the_docs_show_are_the_ones_run():
    """The capex guide's ``my-quote.yaml`` is the file its blocks run with."""
    text = (ROOT / "docs/guides/capex-tco.md").read_text(encoding="utf-8")
    assert f"```yaml\n{h.QUOTE}```" in text
