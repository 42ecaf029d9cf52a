"""Cost of design synthesis (issue 27 target: at least 2,500 candidates evaluated in
under 60 s on this 2-core machine, reported with the share pruned by bounds).

Run: python benchmarks/bench_synthesis.py
Prints, for a few budgets: families, candidates analysed in full, families cut by a
bound, the front's size and the wall time (one process; the full analysis of each
candidate is the work).
"""

from __future__ import annotations

import time


def main() -> None:
    from infra.models.catalog import load_catalog
    from infra.models.prices import load_prices
    from infra.synthesis import Budget, synthesize

    cat = load_catalog()
    book = load_prices(catalog=cat)
    cases = [("20 MW, $500M, no training", Budget(20, 5e8)),
             ("20 MW, $500M, Llama 3 405B 15T", Budget(20, 5e8, None, "llama-3-405b", 15e12)),
             ("100 MW, no capex, Llama 3 70B 15T", Budget(100, None, None, "llama-3-70b", 15e12))]
    print(f"{'budget':36s} {'analysed':>9s} {'cut by bound':>13s} {'front':>6s} {'seconds':>8s} "
          f"{'per candidate s':>16s}")
    for name, b in cases:
        t0 = time.perf_counter()
        r = synthesize(b, catalog=cat, book=book)
        dt = time.perf_counter() - t0
        d = r.as_dict()
        print(f"{name:36s} {d['evaluated']:9d} {d['pruned']:13d} {len(d['front']):6d} "
              f"{dt:8.1f} {dt / max(1, d['evaluated']):16.3f}")


if __name__ == "__main__":
    main()
