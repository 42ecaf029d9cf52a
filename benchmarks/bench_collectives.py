"""Cost of the collective model (issue 24 targets: one prediction <= 10 ms of CPU; the
full default table of the largest shipped design <= 2 s).

Run: python benchmarks/bench_collectives.py [-n 5]
Prints CPU time (time.process_time) per single prediction (median of many), and per
default table (5 ops x default job sizes x 8 message sizes) for every shipped design that
has a collective model, the design already loaded (what `infra collectives` adds after
loading) and including the design's tiers being read once.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cpu(fn, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.process_time()
        fn()
        out.append(time.process_time() - t0)
    return out


def main() -> None:
    from infra.analysis.perf import collectives
    from infra.analysis.perf.collectives import predict
    from infra.analysis.perf.inputs import design_tiers, place_job
    from infra.models.resolve import load_design

    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=5)
    n = ap.parse_args().n
    rows = []
    for path in sorted((ROOT / "designs").glob("*.yaml")):
        rd = load_design(path)
        t = design_tiers(rd)
        if t.model is None:
            continue
        pl = place_job(t, t.gpus)
        one = cpu(lambda: predict(t, "all_reduce", pl, 8 * 2**30), 200)

        def table():
            rd.__dict__.pop("_perf_tiers", None)  # the design's tiers read again each time
            return collectives(rd)

        full = cpu(table, n)
        rows.append((path.stem, t.gpus, len(collectives(rd)), statistics.median(one) * 1e3,
                     statistics.median(full), max(full)))
    print(f"{'design':24s} {'GPUs':>7s} {'rows':>5s} {'1 predict ms':>13s} "
          f"{'table s (median)':>17s} {'table s (max)':>14s}")
    for r in rows:
        print(f"{r[0]:24s} {r[1]:7,d} {r[2]:5d} {r[3]:13.3f} {r[4]:17.4f} {r[5]:14.4f}")


if __name__ == "__main__":
    main()
