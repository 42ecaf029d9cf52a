"""Scan every ``infra export`` target over identical-rack designs of 1k to 1M GPUs.

Each run is a fresh ``infra export`` process (as a user runs it), timed with
``os.wait4``: CPU = user + sys of the child, peak memory = its maximum RSS. Between two
sizes the log-log slope of CPU time is printed (1.0 = linear in GPUs, which is linear in
what a per-node export writes; nccl, netbox and graphml write a fixed amount and are
flat). The designs are ``benchmarks/bench_scale.py``'s: 8-rack ``su`` pods of GB200
NVL72 racks (``nvl72``) or of 4 x DGX H100 racks (``dgx``), one 3-tier rail fabric.

Run::

    python benchmarks/bench_exports.py                        # nvl72 + dgx, 1k-1M, every target
    python benchmarks/bench_exports.py --kinds nvl72 --targets k8s,slurm --sizes 1000,100000 -n 3
    python benchmarks/bench_exports.py --timeout 600          # per-run limit (s)
    python benchmarks/bench_exports.py --depths 10,20,30 --targets slurm,k8s,cabling

``--depths`` scans pod hierarchies instead (two of the level below in each, so 2**depth
racks): DGX racks without a fabric (nothing to export) and NVL72 racks (multi-node
domains; above 500,000 nodes refused): each must exit 2 in well under a second whatever
the depth, from the counted design (issue 34).

Targets (issue 33, 2-core machine): every export of a 1,000,000-GPU design <= 10 s CPU
and <= 1 GiB, CPU slope <= 1.05 from 100k to 1M.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS = ("slurm", "nccl", "k8s", "netbox", "graphml", "cabling")


def _bench_scale():
    spec = importlib.util.spec_from_file_location("bench_scale", ROOT / "benchmarks" / "bench_scale.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def infra_cmd() -> list[str]:
    exe = shutil.which("infra", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-m", "infra.cli"]


def run_child(argv: list[str], timeout: float, cwd: Path, env: dict | None = None,
              ok: tuple[int, ...] = (0, 2)) -> tuple[int, float, float, float]:
    """(exit code, wall s, CPU s, peak RSS MiB) of one child process; rc -9 on timeout."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         start_new_session=True, env=env)
    deadline = t0 + timeout
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            os.killpg(p.pid, signal.SIGKILL)
            pid, status, ru = os.wait4(p.pid, 0)
            p.returncode = -9
            return -9, time.monotonic() - t0, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024
        time.sleep(0.02)
    wall = time.monotonic() - t0
    rc = os.waitstatus_to_exitcode(status)
    p.returncode = rc
    if rc not in ok:
        err = p.stderr.read().decode(errors="replace")[-2000:]
        print(f"    (exit {rc}) {err}", file=sys.stderr)
    p.stderr.close()
    return rc, wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kinds", default="nvl72,dgx")
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--sizes", default="1000,10000,100000,1000000")
    ap.add_argument("--depths", default=None,
                    help="pod-hierarchy depths to scan instead of GPU counts, e.g. 10,20,30")
    ap.add_argument("-n", "--runs", type=int, default=1, help="runs per case (the minimum CPU is kept)")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--src", type=Path, default=None,
                    help="run the infra of another checkout (e.g. a `git archive` of an older "
                         "commit), for before/after figures")
    args = ap.parse_args()
    bs = _bench_scale()
    sizes = [int(s) for s in args.sizes.split(",")]
    targets = args.targets.split(",")
    cmd, env, cwd = infra_cmd(), None, ROOT
    if args.src is not None:
        cmd, cwd = [sys.executable, "-m", "infra.cli"], args.src.resolve()
        env = {**os.environ, "PYTHONPATH": str(cwd)}
    print(f"infra export, fresh process per run, best of {args.runs}; CPU = user+sys of the "
          f"child, peak = its max RSS; load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if args.depths:
            return _depths(args, targets, [int(d) for d in args.depths.split(",")], tmp, cmd,
                           cwd, env)
        for kind in args.kinds.split(","):
            designs = {g: bs.generate(kind, g, tmp) for g in sizes}
            for target in targets:
                prev = None
                cells = []
                for g, path in designs.items():
                    best = None
                    for _ in range(args.runs):
                        out = tmp / f"out-{kind}-{target}-{g}"
                        r = run_child(cmd + ["export", str(path), "--to", target, "-o", str(out)],
                                      args.timeout, cwd, env)
                        shutil.rmtree(out, ignore_errors=True)
                        if best is None or r[2] < best[2]:
                            best = r
                        if r[0] == -9:
                            break
                    rc, wall, cpu, mib = best
                    slope = ""
                    if prev and rc == 0 and prev[1] == 0:
                        slope = f" slope {math.log(cpu / prev[2]) / math.log(g / prev[0]):+.2f}"
                    mark = " TIMEOUT" if rc == -9 else (" rc 2" if rc == 2 else "")
                    cells.append(f"{g:>9,}: {cpu:6.2f} s CPU {wall:6.2f} s wall {mib:6.0f} MiB{slope}{mark}")
                    prev = (g, rc, cpu)
                print(f"{kind:5s} {target:7s} " + f"\n{'':14s}".join(cells), flush=True)


RACK = {"dgx": "generic-42u-air-rack\n    contents:\n      - {type: nvidia-dgx-h100, count: 4}",
        "nvl72": "nvidia-gb200-nvl72-rack\n    contents:\n"
                 "      - {type: nvidia-mgx-33kw-power-shelf, count: 8}\n"
                 "      - {type: nvidia-gb200-compute-tray, count: 18}\n"
                 "      - {type: nvidia-nvlink5-switch-tray, count: 9}\n"
                 "      - {type: supermicro-gb300-in-rack-cdu, count: 1}"}


def pod_hierarchy(kind: str, depth: int, directory: Path) -> Path:
    """``depth`` levels of pods, two of the level below in each: 2**depth racks."""
    lines = [f"name: {kind} pod hierarchy {depth} deep", "racks:", f"  r:\n    type: {RACK[kind]}",
             "pods:", "  p0:", "    racks: {r: 2}"]
    lines += [f"  p{i}:\n    pods: {{p{i - 1}: 2}}" for i in range(1, depth)]
    path = directory / f"{kind}_depth{depth}.yaml"
    path.write_text("\n".join(lines + ["build:", f"  p{depth - 1}: 1"]) + "\n")
    return path


def _depths(args, targets, depths, tmp: Path, cmd, cwd, env) -> None:
    for kind in args.kinds.split(","):
        for target in targets:
            cells = []
            for d in depths:
                out = tmp / f"out-{kind}-{target}-{d}"
                rc, wall, cpu, mib = run_child(cmd + ["export", str(pod_hierarchy(kind, d, tmp)),
                                                      "--to", target, "-o", str(out)],
                                               args.timeout, cwd, env)
                shutil.rmtree(out, ignore_errors=True)
                cells.append(f"depth {d:>3}: {cpu:6.2f} s CPU {wall:6.2f} s wall {mib:6.0f} MiB "
                             f"rc {rc}")
            print(f"{kind:5s} {target:7s} " + f"\n{'':14s}".join(cells), flush=True)


if __name__ == "__main__":
    main()
