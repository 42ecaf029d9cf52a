"""Scan ``infra ingest`` and ``infra diff`` over synthetic inventories of 1k to 20k nodes.

Every node is a copy of the ``hgx-h100-clean`` fixture dump (8 H100, ConnectX-7), named
``r{rack:03d}n{slot:02d}`` like the nodes of a generated design of 4 x DGX H100 racks
(``benchmarks/bench_scale.py``'s ``dgx`` kind, 3-tier rail fabric) with as many nodes.
Each command is a fresh process timed with ``os.wait4``: CPU = user+sys, peak = max
RSS; the log-log slope of CPU between sizes is printed (1.0 = linear in nodes).

Run::

    python benchmarks/bench_ingest_scale.py                       # 1,024 ... 20,480 nodes
    python benchmarks/bench_ingest_scale.py --sizes 1024,2048 --commands diff

Both commands stream the inventory (one host's dumps in memory at a time), so peak memory
stays flat; every node is the same dump, so each is also one ``gpu-duplicate`` error (the
diff exits 1).

Measured 2026-12-02 on the shared 2-core machine under load 9-15 (CPU time, fresh process):

    diff    1,024 / 2,048 / 5,120 / 10,240 / 20,480 nodes: 3.7 / 6.8 / 20.0 / 39.1 / 77.7 s,
            57 / 61 / 72 / 90 / 130 MiB (slope 0.90-1.17; 20k/10k = 1.99x)
    ingest  same sizes: 4.2 / 8.6 / 20.1 / 40.2 / 71.2 s, 37 / 39 / 46 / 54 / 73 MiB
    the commit before streaming (5902d09), same inventories and load: diff 1,024 nodes
            7.80 s / 157 MiB, 4,096 nodes 32.56 s / 459 MiB (now 4.80 s / 57 MiB and
            17.80 s / 69 MiB)

Targets (issue 33, 2-core machine): ``infra diff`` of 10,000 nodes <= 15 s CPU and
<= 300 MiB; 20,000 nodes within 2.1x of 10,000. The inventory is hard links of one
dump per file, so building 20,000 nodes takes seconds and little disk.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NODE = ROOT / "tests/fixtures/inventory/hgx-h100-clean/r001n01"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def inventory(nodes: int, directory: Path) -> Path:
    """``directory`` filled with ``nodes`` host dumps, hard links of the fixture's files."""
    directory.mkdir(parents=True, exist_ok=True)
    files = [p for p in NODE.rglob("*") if p.is_file()]
    for k in range(nodes):
        host = directory / f"r{k // 4 + 1:03d}n{k % 4 + 1:02d}"
        for f in files:
            dst = host / f.relative_to(NODE)
            dst.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(f, dst)
            except OSError:
                dst.write_bytes(f.read_bytes())
    return directory


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1024,2048,5120,10240,20480")
    ap.add_argument("--commands", default="ingest,diff")
    ap.add_argument("--timeout", type=float, default=600.0)
    args = ap.parse_args()
    scale, ex = _load("bench_scale"), _load("bench_exports")
    cmd = ex.infra_cmd()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"fresh process per run; CPU = user+sys, peak = max RSS; load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        cases = {}
        for n in sizes:
            design = scale.generate("dgx", n * 8, tmp)  # 4 nodes a rack, 32 a pod
            cases[n] = (design, inventory(n, tmp / f"inv{n}"))
        for command in args.commands.split(","):
            prev = None
            for n, (design, inv) in cases.items():
                out = tmp / f"out-{command}-{n}"
                if command == "ingest":
                    argv = cmd + ["ingest", str(inv), "--to-design", str(out / "d.yaml")]
                else:
                    argv = cmd + ["diff", str(design), "--inventory", str(inv), "--format", "json",
                                  "-o", str(out)]
                rc, wall, cpu, mib = ex.run_child(argv, args.timeout, ROOT, ok=(0, 1))
                slope = ""
                if prev:
                    slope = f"  slope {math.log(cpu / prev[1]) / math.log(n / prev[0]):+.2f}"
                print(f"{command:6s} {n:>6,} nodes: {cpu:7.2f} s CPU {wall:7.2f} s wall "
                      f"{mib:6.0f} MiB  {1000 * cpu / n:5.2f} ms/node  exit {rc}{slope}", flush=True)
                prev = (n, cpu)
    print(f"load at the end {os.getloadavg()[0]:.2f} (2 cores shared: CPU time, not wall, is "
          "the figure)")


if __name__ == "__main__":
    sys.exit(main())
