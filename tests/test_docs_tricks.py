"""The speed-trick table in docs/guides/performance.md (issue 32, item 3) is what
``benchmarks/bench_tricks.py --markdown`` prints, and the tree follows its verdicts.

Rerunning the benchmark here is not practical (minutes of CPU, noisy on a shared host), so
this checks what can be checked without it: every trick and job of the benchmark is in
the table, each saving is ``(off - on) / off`` of the figures beside it, each verdict
follows the 10 % rule, and a trick marked "remove" has no module left (one marked "keep"
still has its module).
"""

from __future__ import annotations

import re
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))

GUIDE = ROOT / "docs" / "guides" / "performance.md"
MODULES = {"workers": "infra/reports/worker.py", "gc": "infra/models/gcpause.py",
           "catalog-cache": "infra/models/catalog_cache.py", "yamlfast": "infra/models/yamlfast.py"}
CELL = re.compile(r"off: ([\d.]+) s \(([\d.]+) s\), saves ([+-][\d.]+) %")


def table() -> tuple[list[str], dict[str, list[str]]]:
    text = GUIDE.read_text()
    block = text.split("<!-- bench_tricks:start -->")[1].split("<!-- bench_tricks:end -->")[0]
    rows = [[c.strip() for c in ln.strip().strip("|").split("|")]
            for ln in block.splitlines() if ln.startswith("|")]
    header, body = rows[0], {r[0]: r[1:] for r in rows[2:]}
    return header[1:-1], body


def test_table_has_every_trick_and_job():
    from bench_tricks import JOBS, TRICKS

    jobs, body = table()
    assert jobs == list(JOBS)
    assert sorted(body) == sorted(("all on", *TRICKS))
    assert set(MODULES) == set(TRICKS)


def test_savings_and_verdicts_follow_the_figures():
    from bench_tricks import THRESHOLD

    jobs, body = table()
    on = [float(re.match(r"([\d.]+) s", c).group(1)) for c in body["all on"][: len(jobs)]]
    for trick, cells in body.items():
        if trick == "all on":
            continue
        savings = []
        for base, cell in zip(on, cells[: len(jobs)]):
            off, _wall, saving = (float(x) for x in CELL.fullmatch(cell).groups())
            # printed figures are rounded to 0.01 s: allow that much either way
            assert abs(saving - 100 * (off - base) / off) < 100 * 0.02 / off, (trick, cell)
            savings.append(saving)
        verdict = cells[len(jobs)]
        assert verdict == ("keep" if max(savings) >= 100 * THRESHOLD else "remove"), trick


def test_tree_follows_the_verdicts():
    _jobs, body = table()
    for trick, module in MODULES.items():
        verdict = body[trick][-1]
        assert (ROOT / module).exists() == (verdict == "keep"), (trick, verdict, module)
