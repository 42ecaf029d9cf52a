"""Time whole `infra` processes (start-up included). Prints median and min of N runs.

Run: python benchmarks/bench_cli.py [-n 5]
Targets (2-core machine): `infra --help` < 0.3 s; `infra design ... --report json` < 1.5 s.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def time_cmd(args: list[str], n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        subprocess.run(args, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=5)
    n = ap.parse_args().n
    exe = shutil.which("infra")  # the installed console script, as a user runs it
    infra = [exe] if exe else [sys.executable, "-m", "infra.cli"]
    with tempfile.TemporaryDirectory() as tmp:
        cases = {
            "infra --help": infra + ["--help"],
            "infra design aws_nvl36x2 --report json": infra + [
                "design", "designs/aws_nvl36x2.yaml", "--report", "json", "-o", tmp, "-q"],
            "infra design aws_nvl36x2 --report xlsx": infra + [
                "design", "designs/aws_nvl36x2.yaml", "--report", "xlsx", "-o", tmp, "-q"],
        }
        print(f"{'command':45s} {'median s':>9s} {'min s':>7s}  (n={n})")
        for name, args in cases.items():
            t = time_cmd(args, n)
            print(f"{name:45s} {statistics.median(t):9.3f} {min(t):7.3f}")


if __name__ == "__main__":
    main()
