"""Cost against the number of *distinct* rack layouts, and against pod depth.

A hall of N pods (2 racks each) under one ``hall`` pod, every pod with its own GB200/GB300
NVL72 rack layout (rack type, 16/17/18 compute trays and where they sit around the switch
trays, 4/6/8 power shelves split top/bottom, 0-2 management switches top or bottom, CDU
top or bottom; no air-cooled switch in the liquid-only GB300 rack: 3,024 valid layouts;
past that, layouts repeat under new names) on one 3-tier rail-optimized fabric. Each case runs ``infra`` as a fresh process, as a user runs
it (diagram cache off), and prints wall time, CPU time (children included), peak RSS and
the log-log slope of CPU time between successive sizes (1.0 = linear; CPU, because wall
time on a shared machine measures the neighbours).

Run::

    python benchmarks/bench_hetero.py                  # short: 10, 100 layouts; depth 30
    python benchmarks/bench_hetero.py --sizes 10 100 1000 5000 --commands json xlsx svg
    python benchmarks/bench_hetero.py --sizes 10 --depths --headline 5  # headline workbook
    python benchmarks/bench_hetero.py --sizes 1000 --commands json --runs 5  # medians
    python benchmarks/bench_hetero.py --write 1000 hall.yaml   # just write a design

Timings on a shared machine are noisy; compare the slopes and the ratios within one run.
The first and last lines say whether a second core was free (see :func:`second_core`).
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

FABRIC = """\
fabrics:
  compute:
    kind: rail_optimized
    networks: [scale_out]
    group: hall
    tiers:
      - {role: leaf, switch: nvidia-quantum-x800-q3400, port_gbit_s: 400, down: {node_end: nvidia-mms4x00-ns400, switch_end: nvidia-mms4x00-ns}}
      - {role: spine, switch: nvidia-quantum-x800-q3400, port_gbit_s: 400, down: {lower_end: nvidia-mms4x00-ns, switch_end: nvidia-mms4x00-ns}}
      - {role: core, switch: nvidia-quantum-x800-q3400, port_gbit_s: 400, down: {lower_end: nvidia-mms4x00-ns, switch_end: nvidia-mms4x00-ns}}
"""
RACK_TYPES = ("nvidia-gb200-nvl72-rack", "nvidia-gb300-nvl72-rack")
TRAYS = (16, 17, 18)
SHELVES = (4, 6, 8)
MGMT = (0, 1, 2, -1, -2)  # management switches; negative: at the bottom
CDU_TOP = (False, True)
# rated liquid-cooled only in the catalog: no air-cooled management switch in them
LIQUID_ONLY = ("nvidia-gb300-nvl72-rack",)


def layouts():
    """Yield (rack type, content rows) for every distinct layout (3,024 of them)."""
    for rack, trays, shelves, mgmt, top in itertools.product(
            RACK_TYPES, TRAYS, SHELVES, MGMT, CDU_TOP):
        if mgmt and rack in LIQUID_ONLY:  # an air-cooled switch there is rejected (exit 2)
            continue
        for below in range(trays - 10, 11):  # compute trays under the switch trays
            for low_shelves in range(shelves + 1):  # power shelves at the bottom
                rows = []
                if top:
                    rows.append("{type: supermicro-gb300-in-rack-cdu, count: 1}")
                if mgmt > 0:
                    rows.append(f"{{type: nvidia-sn2201, count: {mgmt}, role: management}}")
                if shelves - low_shelves:
                    rows.append(f"{{type: nvidia-mgx-33kw-power-shelf, count: {shelves - low_shelves}}}")
                rows.append(f"{{type: nvidia-gb200-compute-tray, count: {trays - below}}}")
                rows.append("{type: nvidia-nvlink5-switch-tray, count: 9, cooling: liquid}")
                if below:
                    rows.append(f"{{type: nvidia-gb200-compute-tray, count: {below}}}")
                if low_shelves:
                    rows.append(f"{{type: nvidia-mgx-33kw-power-shelf, count: {low_shelves}}}")
                if mgmt < 0:
                    rows.append(f"{{type: nvidia-sn2201, count: {-mgmt}, role: management}}")
                if not top:
                    rows.append("{type: supermicro-gb300-in-rack-cdu, count: 1}")
                yield rack, rows


def hall(n: int) -> str:
    """A design of ``n`` pods, each of 2 racks of its own layout, one fabric over all."""
    gen = layouts()
    racks, pods = [], []
    for i in range(n):
        try:
            rack, rows = next(gen)
        except StopIteration:  # past 3,024: repeat layouts under new names (still distinct names)
            gen = layouts()
            rack, rows = next(gen)
        racks.append(f"  l{i}:\n    type: {rack}\n    contents:\n"
                     + "".join(f"      - {r}\n" for r in rows))
        pods.append(f"  p{i}:\n    racks: {{l{i}: 2}}\n")
    members = ", ".join(f"p{i}: 1" for i in range(n))
    return (f"name: hall of {n} distinct rack layouts\nracks:\n{''.join(racks)}pods:\n"
            f"{''.join(pods)}  hall:\n    pods: {{{members}}}\n{FABRIC}build:\n  hall: 1\n")


def deep(depth: int) -> str:
    """A pod DAG ``depth`` levels deep: each level holds two pods that both hold the next two.

    Enumerating paths costs 2**depth; the design is 4 * depth lines.
    """
    racks = ("racks:\n  nvl72:\n    type: nvidia-gb200-nvl72-rack\n    contents:\n"
             "      - {type: nvidia-mgx-33kw-power-shelf, count: 8}\n"
             "      - {type: nvidia-gb200-compute-tray, count: 18}\n"
             "      - {type: nvidia-nvlink5-switch-tray, count: 9, cooling: liquid}\n"
             "      - {type: supermicro-gb300-in-rack-cdu, count: 1}\n")
    pods = []
    for level in range(depth):
        for side in "ab":
            if level == depth - 1:
                pods.append(f"  {side}{level}:\n    racks: {{nvl72: 1}}\n")
            else:
                pods.append(f"  {side}{level}:\n    pods: {{a{level + 1}: 1, b{level + 1}: 1}}\n")
    return (f"name: pod DAG {depth} levels deep\n{racks}pods:\n{''.join(pods)}"
            "build:\n  a0: 1\n")


QUIET: list[str] = []  # ["-q"] with --quiet: infra design prints no summary


def infra_exe() -> str:
    """The ``infra`` console script beside this interpreter (the venv's), as a user runs it."""
    return shutil.which("infra", path=str(Path(sys.executable).parent)) or "infra"


def command(kind: str, design: Path, out: Path) -> list[str]:
    exe = infra_exe()
    if kind in ("json", "xlsx", "svg"):  # the terminal summary is printed unless --quiet
        return [exe, "design", str(design), "--report", kind, "-o", str(out), *QUIET]
    if kind == "failures":
        return [exe, "failures", str(design), "--format", "json", "-o", str(out)]
    if kind == "compare":
        return [exe, "compare", str(design), str(design), "--format", "json", "-o", str(out)]
    raise SystemExit(f"unknown command {kind!r}")


def measure(args: list[str], env: dict | None = None) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (with its children) and peak RSS (MiB) of one process."""
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
        os.execve(args[0], args, {**os.environ, "INFRA_DIAGRAM_CACHE": "off", **(env or {})})
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"failed ({os.waitstatus_to_exitcode(status)}): {' '.join(args)}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def headline(n: int) -> None:
    """``aws_nvl36x2`` json against xlsx (cold and warm diagram cache, no diagrams), in turn."""
    import statistics

    design = ROOT / "designs" / "aws_nvl36x2.yaml"
    with tempfile.TemporaryDirectory() as tmp:
        cache = {"INFRA_DIAGRAM_CACHE": str(Path(tmp) / "cache")}
        cases = {"json": (command("json", design, Path(tmp)), None),
                 "xlsx (cold cache)": (command("xlsx", design, Path(tmp)), None),
                 "xlsx (warm cache)": (command("xlsx", design, Path(tmp)), cache),
                 "xlsx --no-diagrams": (command("xlsx", design, Path(tmp)) + ["--no-diagrams"],
                                        None)}
        measure(*cases["xlsx (warm cache)"])  # fill the cache
        runs: dict[str, list] = {k: [] for k in cases}
        for _ in range(n):
            for k, (args, env) in cases.items():
                runs[k].append(measure(args, env))
        base = statistics.median(w for w, _, _ in runs["json"])
        base_cpu = statistics.median(c for _, c, _ in runs["json"])
        print(f"{'aws_nvl36x2':24s} {'wall s':>7s} {'x json':>7s} {'+ s':>6s} {'cpu s':>7s} "
              f"{'x json':>7s} {'+ s':>6s} {'MiB':>5s}  (median of {n}, run in turn; "
              "+ s: seconds over the JSON run)")
        for k, rs in runs.items():
            w = statistics.median(r[0] for r in rs)
            c = statistics.median(r[1] for r in rs)
            print(f"{k:24s} {w:7.2f} {w / base:7.2f} {w - base:6.2f} {c:7.2f} "
                  f"{c / base_cpu:7.2f} {c - base_cpu:6.2f} {max(r[2] for r in rs):5.0f}",
                  flush=True)


def second_core() -> str:
    """Whether a second core was free: two CPU-bound processes at once against one alone.

    On a shared 2-vCPU machine the second vCPU is often taken by the neighbours; then
    work done beside the main process (the summary and workbook workers) saves nothing
    and wall time is the sum of the CPU times. 1.0x: free; 2.0x: taken.
    """
    spin = [sys.executable, "-c", "sum(range(8_000_000))"]
    t0 = time.perf_counter()
    subprocess.run(spin, check=True)
    one = time.perf_counter() - t0
    t0 = time.perf_counter()
    procs = [subprocess.Popen(spin) for _ in range(2)]
    for p in procs:
        p.wait()
    ratio = (time.perf_counter() - t0) / one
    return f"second core {'free' if ratio < 1.3 else 'taken'}: two processes {ratio:.2f}x one"


def slope(a: tuple[int, float], b: tuple[int, float]) -> float:
    return math.log(b[1] / a[1]) / math.log(b[0] / a[0])


def timed(args: list[str], runs: int) -> tuple[float, float, float]:
    """Median wall and CPU seconds of ``runs`` runs, and the largest peak RSS."""
    import statistics

    rs = [measure(args) for _ in range(runs)]
    return (statistics.median(r[0] for r in rs), statistics.median(r[1] for r in rs),
            max(r[2] for r in rs))


def run(sizes: list[int], kinds: list[str], depths: list[int], runs: int = 1) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmpd = Path(tmp)
        print(f"{'case':28s} {'command':9s} {'wall s':>8s} {'cpu s':>7s} {'peak MiB':>9s} "
              f"{'slope':>6s}")
        for kind in kinds:
            prev = None
            for n in sizes:
                design = tmpd / f"hall_{n}.yaml"
                if not design.exists():
                    design.write_text(hall(n))
                wall, cpu, rss = timed(command(kind, design, tmpd / "out"), runs)
                s = f"{slope(prev, (n, cpu)):6.2f}" if prev else "     -"
                print(f"{f'{n:,} distinct layouts':28s} {kind:9s} {wall:8.2f} {cpu:7.2f} "
                      f"{rss:9.0f} {s}", flush=True)
                prev = (n, cpu)
        for d in depths:
            design = tmpd / f"deep_{d}.yaml"
            design.write_text(deep(d))
            wall, cpu, rss = timed(command("json", design, tmpd / "out"), runs)
            print(f"{f'pod DAG {d} levels':28s} {'json':9s} {wall:8.2f} {cpu:7.2f} {rss:9.0f}",
                  flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10, 100])
    ap.add_argument("--commands", nargs="+", default=["json", "xlsx", "svg", "failures",
                                                       "compare"])
    ap.add_argument("--depths", type=int, nargs="*", default=[30])
    ap.add_argument("--headline", type=int, metavar="N", default=0,
                    help="also time aws_nvl36x2 json vs xlsx, N runs each in turn")
    ap.add_argument("--runs", type=int, default=1, metavar="N",
                    help="run each size and depth case N times: medians (default 1)")
    ap.add_argument("--quiet", action="store_true",
                    help="run infra design with -q (no terminal summary), to see its cost")
    ap.add_argument("--write", nargs=2, metavar=("N", "FILE"),
                    help="write the N-layout hall (or 'deepD' for a pod DAG) and exit")
    a = ap.parse_args()
    if a.quiet:
        QUIET.append("-q")
    # byte-compile the package first, as an installed package is (pip compiles at
    # install); without it every run pays ~0.3 s compiling infra from source when
    # PYTHONDONTWRITEBYTECODE is set
    import compileall

    compileall.compile_dir(ROOT / "infra", quiet=1)
    # fill the parsed-catalog cache once, as any earlier run of infra does (a run after
    # editing the catalog pays ~0.2 s more: see docs/guides/performance.md)
    subprocess.run([infra_exe(), "catalog", "list"], stdout=subprocess.DEVNULL, check=True)
    if a.write:
        n, file = a.write
        Path(file).write_text(deep(int(n[4:])) if n.startswith("deep") else hall(int(n)))
        return
    print(second_core(), flush=True)
    run(a.sizes, a.commands, a.depths, a.runs)
    if a.headline:
        headline(a.headline)
    print(second_core())
    print(f"(self peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB; "
          "timings taken on a shared machine: compare slopes and ratios)")


if __name__ == "__main__":
    main()
