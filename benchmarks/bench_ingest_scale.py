"""Scan ``infra ingest`` and ``infra diff`` over synthetic inventories of 1k to 20k nodes.

Every node is a copy of the ``hgx-h100-clean`` fixture dump (8 H100, ConnectX-7), named
``r{rack:03d}n{slot:02d}`` like the nodes of a generated design of 4 x DGX H100 racks
(``benchmarks/bench_scale.py``'s ``dgx`` kind, 3-tier rail fabric) with as many nodes.
Each command is a fresh process timed with ``os.wait4``: CPU = user+sys, peak = max
RSS; the log-log slope of CPU between sizes is printed (1.0 = linear in nodes).

Run::

    python benchmarks/bench_ingest_scale.py                       # 1,024 ... 20,480 nodes
    python benchmarks/bench_ingest_scale.py --nodes 1024,10240 --commands diff
    python benchmarks/bench_ingest_scale.py --nodes 10240 --commands diff --distinct

Both commands stream the inventory (one host's dumps in memory at a time), so peak memory
stays flat. By default every node is the same dump, so each is also one ``gpu-duplicate``
error (the diff exits 1); ``--distinct`` gives each host its own GPU UUIDs, serials, NCCL
host hash and NIC GUIDs (files written, not linked: a real site, a clean diff, exit 0),
while ``topo -m`` and ``lspci -tv`` stay alike, as on identical servers.

Measured 2026-12-02 on the shared 2-core machine (CPU time, fresh process; load printed):

    after the reader work of issue 33 (libxml2 where it reads as expat, texts identical
    servers print read once, the NCCL dump only checked where the diff needs none of
    its figures, sized reads), load 4.7-6.7:
    diff    10,240 nodes: 14.05, 13.25 and 14.00 s CPU (three runs, nothing else of
            ours running), 94-95 MiB; 20,480 nodes 27.10 s / 134 MiB, 1.94x of the
            14.00 s run beside it (load 4.6-5.6)
    diff --distinct 1,024 / 10,240 nodes: 1.93 / 14.27 s, 61 / 90 MiB (exit 0)
    a full scan run beside our own tests (load 6.4; CPU time inflated by them):
    diff    1,024 / 10,240 / 20,480 nodes: 1.97 / 18.83 / 31.02 s, 62 / 94 / 132 MiB
            (20,480 is 1.65x of 10,240)
    ingest  1,024 / 10,240 / 20,480 nodes: 2.17 / 16.11 / 28.78 s, 42 / 58 / 77 MiB
    the same 10,240-node diff on the code before that work (292732d), same load,
    one run after the other: 35.10 s CPU / 90 MiB (after: 13.25 s / 94 MiB), 2.65x
    before it, under load 9-15: diff 1,024 / 2,048 / 5,120 / 10,240 / 20,480 nodes:
            3.7 / 6.8 / 20.0 / 39.1 / 77.7 s, 57 / 61 / 72 / 90 / 130 MiB; ingest 4.2 /
            8.6 / 20.1 / 40.2 / 71.2 s; the commit before streaming (5902d09): diff
            1,024 nodes 7.80 s / 157 MiB, 4,096 nodes 32.56 s / 459 MiB

Targets (issue 33, 2-core machine): ``infra diff`` of 10,000 nodes <= 15 s CPU and
<= 300 MiB; 20,000 nodes within 2.1x of 10,000. By default the inventory is hard links
of one dump per file, so building 20,000 nodes takes seconds and little disk;
``--distinct`` writes about 33 kB a node.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import re
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


# what differs between two real servers of one type: GPU UUIDs and serials (nvidia-smi
# -q -x, nvlink -s), the NCCL dump's host hash and NIC GUIDs; topo -m and lspci -tv of
# identical servers are identical
_IDENTITY = {
    "nvidia-smi-q.xml": [(r"GPU-([0-9a-f]{8})", lambda m, k: f"GPU-{int(m[1], 16) ^ k << 12:08x}"),
                         (r"<serial>(\d+)</serial>",
                          lambda m, k: f"<serial>{int(m[1]) + k * 10**7}</serial>")],
    "nvlink-s.txt": [(r"GPU-([0-9a-f]{8})", lambda m, k: f"GPU-{int(m[1], 16) ^ k << 12:08x}")],
    "nccl-topo.xml": [(r'host_hash="0x([0-9a-f]+)"', lambda m, k: f'host_hash="0x{k:08x}"'),
                      (r'guid="0x([0-9a-f]{8})', lambda m, k: f'guid="0x{int(m[1], 16) ^ k:08x}')],
}


def inventory(nodes: int, directory: Path, distinct: bool = False) -> Path:
    """``directory`` filled with ``nodes`` host dumps, hard links of the fixture's files;
    ``distinct``: each host's GPU UUIDs, serials, NCCL host hash and NIC GUIDs its own
    (files written, not linked), as on a real site: no ``gpu-duplicate``, and nothing a
    reader could share between hosts but what identical servers print alike."""
    directory.mkdir(parents=True, exist_ok=True)
    files = [p for p in NODE.rglob("*") if p.is_file()]
    texts = {f: f.read_text() for f in files if distinct and f.name in _IDENTITY}
    for k in range(nodes):
        host = directory / f"r{k // 4 + 1:03d}n{k % 4 + 1:02d}"
        for f in files:
            dst = host / f.relative_to(NODE)
            dst.parent.mkdir(parents=True, exist_ok=True)
            if f in texts:
                text = texts[f]
                for pattern, sub in _IDENTITY[f.name]:
                    text = re.sub(pattern, lambda m: sub(m, k + 1), text)
                dst.write_text(text)
                continue
            try:
                os.link(f, dst)
            except OSError:
                dst.write_bytes(f.read_bytes())
    return directory


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", "--nodes", dest="sizes", default="1024,2048,5120,10240,20480",
                    help="inventory sizes in nodes, comma-separated")
    ap.add_argument("--distinct", action="store_true",
                    help="each host's GPU UUIDs, serials, NCCL host hash and NIC GUIDs its own "
                         "(a real site; files written, not hard links)")
    ap.add_argument("--commands", default="ingest,diff")
    ap.add_argument("--timeout", type=float, default=600.0)
    args = ap.parse_args()
    scale, ex = _load("bench_scale"), _load("bench_exports")
    cmd = ex.infra_cmd()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"fresh process per run; CPU = user+sys, peak = max RSS; load {os.getloadavg()[0]:.2f}"
          + ("; distinct host identities" if args.distinct else "; every host the same dump"))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        cases = {}
        for n in sizes:
            design = scale.generate("dgx", n * 8, tmp)  # 4 nodes a rack, 32 a pod
            cases[n] = (design, inventory(n, tmp / f"inv{n}", args.distinct))
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
