"""Rewrite the README's and the guides' command blocks from what the commands print today.

    python scripts/regen_docs.py                 # every doc the docs test checks
    python scripts/regen_docs.py README.md docs/guides/power.md
    python scripts/regen_docs.py --check         # write nothing; exit 1 if a block differs

Each ``$ infra ...`` block is run exactly as ``tests/test_docs_blocks.py`` runs it (the
same module, ``tests/docs_harness.py``: the same working directory, inputs, terminal
width and reading of ``...``, ``(exit N)`` and ``(excerpt)``), and only the blocks the
test would fail are rewritten: a block without ``...`` becomes the whole output; in a
block with ``...`` or an ``(excerpt)`` note each line no longer printed becomes the printed
line most like it. A line the script cannot place is listed for a person to fix, and the
script exits 1. Prose figures are not rewritten: their tests say which sentence to edit.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import docs_harness as harness  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("docs", nargs="*", help="docs to regenerate (default: every checked doc)")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 on a difference")
    ap.add_argument("--diff", action="store_true", help="print what changes (a unified diff)")
    args = ap.parse_args(argv)
    docs = args.docs or list(harness.DOCS)
    unknown = [d for d in docs if d not in harness.DOCS]
    if unknown:
        ap.error(f"not a checked doc: {', '.join(unknown)} (see DOCS in tests/docs_harness.py)")
    changed, left = [], []
    for doc in docs:
        old = (ROOT / doc).read_text(encoding="utf-8")
        new = harness.regenerate(doc, old)
        if new != old:
            changed.append(doc)
            diff = list(difflib.unified_diff(old.split("\n"), new.split("\n"), doc, doc,
                                             lineterm="", n=0))
            n = sum(x.startswith("+") and not x.startswith("+++") for x in diff)
            print(f"{doc}: {n} line(s) {'differ' if args.check else 'rewritten'}")
            if args.diff:
                print("\n".join(diff))
            if not args.check:
                (ROOT / doc).write_text(new, encoding="utf-8")
        left += harness.check(doc, new)
    for m in left:
        print(f"still differs (fix by hand): {m}")
    if not changed and not left:
        print(f"{len(docs)} doc(s) agree with the commands' output")
    return 1 if left or (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
