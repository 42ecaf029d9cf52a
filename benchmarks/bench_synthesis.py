"""Cost of design synthesis (issue 27 target: at least 2,500 candidates evaluated in
under 60 s on this 2-core machine, reported with the share pruned by bounds).

Run: python benchmarks/bench_synthesis.py [--quick]
Prints, for a few budgets: the search space (families x block counts x first-tier
oversubscriptions), the share cut by the cheap bounds before any analysis, the candidates
analysed in full, the front's size, CPU seconds (this process and its children) and wall
seconds, and the machine's load average. ``--quick`` runs the first case only.
"""

from __future__ import annotations

import os
import resource
import sys
import time


def _cpu() -> float:
    me, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    from infra.models.catalog import load_catalog
    from infra.models.prices import load_prices
    from infra.synthesis import Budget, synthesize

    cat = load_catalog()
    book = load_prices(catalog=cat)
    wide = {"every_count": True, "oversubscriptions": (1.0, 2.0, 3.0)}
    cases = [("60 MW, $500M, each count, 1-3:1", Budget(60, 5e8), wide),
             ("60 MW, no capex, each count, 1-3:1", Budget(60), wide),
             ("20 MW, $500M, Llama 3 405B 15T", Budget(20, 5e8, None, "llama-3-405b", 15e12), {}),
             ("60 MW, $1.5B, each count, 1-3:1, 70B", Budget(60, 1.5e9, None, "llama-3-70b",
                                                            15e12), wide)]
    if "--quick" in sys.argv:
        cases = cases[:1]
    print(f"load average {os.getloadavg()[0]:.2f} (2 cores)")
    print(f"{'budget':40s} {'space':>6s} {'cut':>6s} {'analysed':>9s} {'front':>6s} "
          f"{'CPU s':>7s} {'wall s':>7s} {'CPU ms/cand':>12s}")
    for name, b, kw in cases:
        c0, w0 = _cpu(), time.perf_counter()
        r = synthesize(b, catalog=cat, book=book, **kw)
        cpu, wall = _cpu() - c0, time.perf_counter() - w0
        s = r.search
        print(f"{name:40s} {s['enumerated']:6d} {s['pruned_by_bounds'] / max(1, s['enumerated']):6.0%} "
              f"{s['analysed']:9d} {len(r.front):6d} {cpu:7.1f} {wall:7.1f} "
              f"{1000 * cpu / max(1, s['analysed']):12.1f}")


if __name__ == "__main__":
    main()
