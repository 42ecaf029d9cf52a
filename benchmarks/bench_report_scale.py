"""Every design report format against GPU count (1k-1B) and pod depth (1-30).

Issue 34's targets: xlsx, svg and html of a 10^9-GPU identical-rack design and of a
30-level pod hierarchy each <= 5 s CPU and <= 500 MiB; nothing grows with the rack count.

Each case is one ``infra design FILE --report FMT -q`` process, as a user runs it, timed
with ``os.wait4``: CPU seconds (user + sys, waited-for children included: report workers
and the Graphviz renderer) and peak RSS of the largest process. Wall time is not
printed: other work shares the CPUs (the load average is printed with the figures). The
rendered-diagram cache is off, so every picture is drawn. Each child runs under an
address-space limit (``--limit-gib``, default 6) and a timeout, so a regression fails
its case instead of taking the machine down.

Designs (generated): ``gpus``: N GB200 NVL72 racks built directly (72 GPUs each, no
fabric: a fabric of 10^9 GPUs does not exist at today's radices; past 10^8 GPUs the tool
refuses the design, exit 2, and the row shows that refusal's cost); ``dag``:
bench_hetero's pod DAG, each level holding two pods that both hold the next two (2^(d-1)
racks from 2d pod definitions; refused past depth 21); ``depth``: the same DAG doubling
for 20 levels and one pod a level below that, so 30 levels stay under the limit.

Slopes are log-log between neighbouring sizes (CPU; 0 = flat, 1 = linear).

Run::

    python benchmarks/bench_report_scale.py                       # all three axes, 1 run each
    python benchmarks/bench_report_scale.py --axis depth --runs 3 --formats xlsx html
    python benchmarks/bench_report_scale.py --axis none --layouts 2000 --formats html
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_hetero import deep, hall  # noqa: E402

FORMATS = ("json", "md", "xlsx", "svg", "html")
GPUS = (1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000)
DEPTHS = (1, 5, 10, 20, 30)
NVL72 = ("racks:\n  nvl72:\n    type: nvidia-gb200-nvl72-rack\n    contents:\n"
         "      - {type: nvidia-mgx-33kw-power-shelf, count: 8}\n"
         "      - {type: nvidia-gb200-compute-tray, count: 18}\n"
         "      - {type: nvidia-nvlink5-switch-tray, count: 9, cooling: liquid}\n"
         "      - {type: supermicro-gb300-in-rack-cdu, count: 1}\n")


def flat(gpus: int) -> str:
    racks = max(1, gpus // 72)  # at most gpus: 10^8 stays within the tool's limit
    return f"name: {racks:,} NVL72 racks ({racks * 72:,} GPUs)\n{NVL72}build:\n  nvl72: {racks}\n"


def deep_capped(depth: int, doubling: int = 20) -> str:
    """A pod hierarchy ``depth`` levels deep whose first ``doubling`` levels double (as
    :func:`bench_hetero.deep`) and whose deeper levels hold one pod each: 30 levels of
    pods within the tool's 10^8-GPU limit (2^19 racks, 37.7M GPUs), where the doubling
    DAG past 21 levels is refused (exit 2)."""
    text = deep(depth)
    for level in range(doubling - 1, depth - 1):
        text = text.replace(f"pods: {{a{level + 1}: 1, b{level + 1}: 1}}", f"pods: {{a{level + 1}: 1}}")
    return text.replace("pod DAG", "pod hierarchy")


def measure(args: list[str], limit_gib: float, timeout: float) -> tuple[float, float, int]:
    """CPU seconds (with children), peak RSS MiB of the largest process, exit status."""
    limit = int(limit_gib * 2**30)

    def child() -> None:  # pragma: no cover - runs in the child
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=child, env={**os.environ, "INFRA_DIAGRAM_CACHE": "off"})
    timer = threading.Timer(timeout, proc.kill)  # a run past the timeout fails its case
    timer.start()
    try:
        _, status, usage = os.wait4(proc.pid, 0)  # wait4, not proc.wait: its rusage
    finally:
        timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode


def run_case(exe: str, design: Path, fmt: str, out: Path, runs: int, limit_gib: float,
             timeout: float) -> tuple[float, float, int]:
    cpus, mibs, rc = [], [], 0
    for _ in range(runs):
        shutil.rmtree(out, ignore_errors=True)
        cpu, mib, rc = measure([exe, "design", str(design), "--report", fmt, "-o", str(out),
                                "-q"], limit_gib, timeout)
        cpus.append(cpu)
        mibs.append(mib)
    return statistics.median(cpus), max(mibs), rc


def scan(axis: str, sizes: list[int], formats: list[str], runs: int, limit_gib: float,
         timeout: float) -> list[str]:
    exe = shutil.which("infra", path=str(Path(sys.executable).parent)) or "infra"
    over = []
    with tempfile.TemporaryDirectory() as tmp:
        designs = {}
        for n in sizes:
            f = Path(tmp) / f"{axis}{n}.yaml"
            f.write_text(flat(n) if axis == "gpus" else deep(n) if axis == "dag"
                         else hall(n) if axis == "layouts" else deep_capped(n))
            designs[n] = f
        label = {"gpus": "GPUs", "layouts": "layouts"}.get(axis, "depth")
        if axis == "dag":
            print("\n(doubling pod DAG: 2^(d-1) racks; past 10^8 GPUs, depth 22 and up, the "
                  "design is refused: rc2 = exit 2 with the limit's message)")
        print(f"\n{axis}: CPU s / peak MiB per format (median of {runs}); load {load()}")
        print(f"{label:>14}  " + "  ".join(f"{fmt:>15}" for fmt in formats))
        got: dict[str, list[tuple[int, float]]] = {fmt: [] for fmt in formats}
        for n in sizes:
            cells = []
            for fmt in formats:
                cpu, mib, rc = run_case(exe, designs[n], fmt, Path(tmp) / "out", runs,
                                        limit_gib, timeout)
                mark = "" if rc == 0 else f" rc{rc}"
                cells.append(f"{cpu:6.2f} / {mib:5.0f}{mark}")
                got[fmt].append((n, cpu))
                if axis == "layouts":  # issue 34: HTML of 2,000 layouts <= 300 MiB
                    if rc or (fmt == "html" and mib > 300):
                        over.append(f"{n:,} layouts {fmt}: {mib:.0f} MiB, exit {rc}")
                elif rc not in (0, 2) or cpu > 5 or mib > 500:  # 2: refused, as it should be
                    over.append(f"{axis} {n:,} {fmt}: {cpu:.2f} s, {mib:.0f} MiB, exit {rc}")
            print(f"{n:>14,}  " + "  ".join(f"{c:>15}" for c in cells), flush=True)
        print(f"{'CPU slopes':>14}  " + "  ".join(
            f"{' '.join(f'{s:+.2f}' for s in slopes(got[fmt], axis)):>15}" for fmt in formats))
    return over


def slopes(points: list[tuple[int, float]], axis: str) -> list[float]:
    """log-log slopes against racks (gpus axis) or against 2^depth (the rack count)."""
    def x(n: int) -> float:
        return math.log(n) if axis == "gpus" else (n - 1) * math.log(2) or 1e-9

    out = []
    for (a, ca), (b, cb) in zip(points, points[1:]):
        dx = x(b) - x(a)
        out.append(math.log(cb / ca) / dx if dx and ca > 0 and cb > 0 else 0.0)
    return out


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--axis", choices=("gpus", "depth", "dag", "all", "none"), default="all")
    ap.add_argument("--formats", nargs="*", default=list(FORMATS), choices=FORMATS)
    ap.add_argument("--gpus", type=int, nargs="*", default=list(GPUS))
    ap.add_argument("--depths", type=int, nargs="*", default=list(DEPTHS))
    ap.add_argument("--layouts", type=int, nargs="*", default=[],
                    help="also bench_hetero's hall of N distinct layouts (e.g. 2000: the "
                         "HTML target is <= 300 MiB; minutes of rendering)")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--limit-gib", type=float, default=6.0,
                    help="address-space limit of each run (default 6 GiB)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per run")
    a = ap.parse_args()
    over = []
    for axis, sizes in (("gpus", a.gpus), ("depth", a.depths), ("dag", a.depths)):
        if a.axis in (axis, "all"):
            over += scan(axis, sizes, a.formats, a.runs, a.limit_gib, a.timeout)
    if a.layouts:
        over += scan("layouts", a.layouts, a.formats, a.runs, a.limit_gib, max(a.timeout, 600))
    print(f"\nload after: {load()}")
    print("targets (GPUs and depth: <= 5 s CPU and <= 500 MiB, or a quick exit 2; layouts: "
          "html <= 300 MiB): " + ("all met" if not over else
                                                          "MISSED: " + "; ".join(over)))


if __name__ == "__main__":
    main()
