"""Sweep throughput: scenarios per second serially, on 2 local worker processes and on a
Dask LocalCluster of 2 workers, and the per-scenario cost against one in-process
``infra design`` analysis of the same base design.

Two workloads over ``designs/gb200_nvl72_576.yaml``:
- design: every scenario a distinct design (PUE x leaf oversubscription): one full
  analysis each;
- cost: 10 designs x N cost inputs (energy price): scenarios that differ only in cost
  inputs share their design's analysis inside a worker.

Run: python benchmarks/bench_sweep.py [--scenarios 400] [--no-dask]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from infra.analysis.summary import analyze_file
from infra.sweeps import sweep

ROOT = Path(__file__).resolve().parents[1]
BASE = ROOT / "designs" / "gb200_nvl72_576.yaml"


def grids(n: int) -> dict[str, dict]:
    pues = max(1, n // 2)
    design = {"parameters": {
        "pue": {"path": "assumptions.pue", "range": {"start": 1.0, "stop": 1.0 + (pues - 1) * 0.001, "step": 0.001}},
        "o": {"path": "fabrics.compute.tiers.0.oversubscription", "values": [1, 2]}}}
    cost = {"parameters": {
        "pue": {"path": "assumptions.pue", "range": {"start": 1.1, "stop": 1.19, "step": 0.01}},
        "e": {"input": "energy_usd_per_kwh", "range": {"start": 0.001, "stop": max(1, n // 10) * 0.001, "step": 0.001}}}}
    return {"design": design, "cost": cost}


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenarios", type=int, default=400)
    ap.add_argument("--no-dask", action="store_true")
    args = ap.parse_args()
    analyze_file(BASE)  # warm the catalog cache
    one = min(timed(lambda: analyze_file(BASE)) for _ in range(3))
    print(f"one in-process `infra design` analysis of {BASE.name}: {one * 1000:.0f} ms")
    runs = [("serial", {"workers": 1}), ("2 local workers", {"workers": 2})]
    if not args.no_dask:
        runs.append(("Dask LocalCluster (2 workers)", {"dask": True, "workers": 2}))
    print(f"{'workload':8}  {'executor':30}  {'scenarios':>9}  {'wall s':>7}  {'scen/s':>7}  {'ms/scen':>7}  {'vs design':>9}")
    for wl, g in grids(args.scenarios).items():
        for label, kw in runs:
            res = None

            def run():
                nonlocal res
                res = sweep(BASE, g, **kw)
            wall = timed(run)
            n = len(res.rows)
            per = wall / n
            print(f"{wl:8}  {label:30}  {n:9d}  {wall:7.2f}  {n / wall:7.1f}  {per * 1000:7.1f}  "
                  f"{per / one:8.2f}x")


if __name__ == "__main__":
    main()
