"""Time `infra diff` on a synthetic inventory of many nodes (copies of one fixture node).

Run: python benchmarks/bench_ingest.py [-n 256]
Cost is linear in the number of node dumps (each node's XML is read once) plus the
cabling plan of the design's fabric; the tray-type analyses behind the costs run once
per tray type. Target (2-core machine): 256 DGX H100 node dumps against the 2,048-node
Llama 3 design in under 10 s. Measured 2026-12-01 on the shared 2-core box: load 4.5 s
(about 17 ms per node, most of it expat on the XML dumps), diff 1.9 s.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NODE = ROOT / "tests/fixtures/inventory/hgx-h100-clean/r001n01"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=256)
    n = ap.parse_args().n
    from infra.ingest.diff import diff_inventory
    from infra.ingest.inventory import load_inventory
    from infra.models.catalog import load_catalog
    from infra.models.resolve import load_design

    rd = load_design(ROOT / "designs/llama3_h100_16k.yaml", load_catalog())
    with tempfile.TemporaryDirectory() as tmp:
        hosts = [f"r{r:03d}n{s:02d}" for r in range(1, 10**3) for s in range(1, 5)][:n]
        for h in hosts:
            shutil.copytree(NODE, Path(tmp) / h)
        t0 = time.perf_counter()
        inv = load_inventory(tmp)
        t1 = time.perf_counter()
        res = diff_inventory(rd, inv)
        t2 = time.perf_counter()
    print(f"{n} node dumps ({n * 8} GPUs): load {t1 - t0:.2f} s, diff {t2 - t1:.2f} s "
          f"against {res.coverage.design_nodes} design nodes; {len(res.findings)} findings")


if __name__ == "__main__":
    main()
