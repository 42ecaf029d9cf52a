"""Start-up cost of ``infra design ... --report json``: imports, and the whole run.

Each run is a fresh process, as a user runs it. Three figures per design:

- **imports**: the parent process's import time, from ``python -X importtime`` (the sum of
  the top-level imports' cumulative times), with ``-q`` so that only the parent imports
  (the summary printer is a forked child that imports ``rich``). ``-X importtime`` adds a
  few per cent of its own.
- **wall** and **CPU** of the plain command (the summary printed to ``/dev/null``), and of
  ``import infra`` (the notebook API, which must stay lazy).
- the **top list**: self import time by infra module and by third-party package (median
  over the runs), and how many modules the parent imported.
- with ``--instructions`` (needs ``valgrind``): instructions executed by the design
  path's imports alone and by the whole ``-q`` run, counted by cachegrind with
  ``PYTHONHASHSEED=0``. They do not depend on the neighbours' load, so a change of a few
  per cent shows where wall times on a shared machine cannot.

Run::

    python benchmarks/bench_startup.py                       # aws_nvl36x2, 7 runs
    python benchmarks/bench_startup.py --runs 15 --top 30
    python benchmarks/bench_startup.py --design /tmp/d30.yaml  # e.g. bench_hetero --write deep30
    python benchmarks/bench_startup.py --runs 3 --instructions  # + cachegrind counts (~1 min)

The package is byte-compiled first (as pip does at install): with ``PYTHONDONTWRITEBYTECODE``
set and no ``.pyc``, every run would compile infra from source. Timings on a shared
machine are noisy: compare medians taken in the same period, and read the ranges.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( +)(\S+)")


def parse_importtime(text: str) -> tuple[float, dict[str, float], int]:
    """(total import s, self seconds by group, module count) from ``-X importtime`` output.

    Groups: each ``infra.*`` module by name, every other module under its top-level
    package (``networkx``, ``pydantic``, ``email`` ...).

    Examples
    --------
    >>> out = ("import time: self [us] | cumulative | imported package\\n"
    ...        "import time:       100 |        300 | infra\\n"
    ...        "import time:       200 |        200 |   networkx.classes\\n")
    >>> total, by, n = parse_importtime(out)
    >>> (total, by["infra"], by["networkx"], n)
    (0.0003, 0.0001, 0.0002, 2)
    """
    total, by, count = 0, defaultdict(int), 0
    for m in _LINE.finditer(text):
        own, cum, depth, name = int(m[1]), int(m[2]), len(m[3]), m[4]
        count += 1
        if depth == 1:
            total += cum
        by[name if name.startswith("infra") else name.split(".")[0]] += own
    return total / 1e6, {k: v / 1e6 for k, v in by.items()}, count


def _env() -> dict[str, str]:
    env = {**os.environ, "INFRA_DIAGRAM_CACHE": "off"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def timed(args: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (children included) of one process, output discarded."""
    before = os.times()
    t0 = time.perf_counter()
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                   env=_env())
    wall = time.perf_counter() - t0
    after = os.times()
    return wall, (after.children_user - before.children_user
                  + after.children_system - before.children_system)


def imports(design: Path, out: Path) -> tuple[float, dict[str, float], int]:
    """One ``-X importtime`` run of the design command (parent only: ``-q``)."""
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "infra", "design", str(design),
                        "--report", "json", "-q", "--output", str(out)],
                       capture_output=True, text=True, check=True, env=_env())
    return parse_importtime(r.stderr)


# the modules the design command imports, imported alone (what --instructions counts first)
DESIGN_IMPORTS = ("import infra.cli.main, infra.analysis.reliability.failure_view, "
                  "infra.analysis.summary, infra.models.catalog_cache, infra.reports.writer, "
                  "infra.reports.json_report, infra.reports.terminal")


def instructions(args: list[str]) -> int | None:
    """Instructions one process executes (cachegrind); None without valgrind."""
    import shutil

    if not shutil.which("valgrind"):
        return None
    r = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                        "--cachegrind-out-file=/dev/null", *args], capture_output=True,
                       text=True, check=True, env={**_env(), "PYTHONHASHSEED": "0"})
    m = re.search(r"I\s+refs:\s+([\d,]+)", r.stderr)
    return int(m[1].replace(",", "")) if m else None


def _fmt(xs: list[float]) -> str:
    return f"{statistics.median(xs):6.3f} s ({min(xs):.3f}-{max(xs):.3f})"


def bench(design: Path, runs: int, top: int, count: bool = False) -> None:
    """Print the figures for one design (with ``count``, cachegrind's instructions too)."""
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        cmd = [py, "-m", "infra", "design", str(design), "--report", "json", "--output", str(out)]
        timed(cmd)  # warm the file cache and the parsed-catalog cache
        imp, walls, cpus, nap, groups, counts = [], [], [], [], defaultdict(list), []
        for _ in range(runs):  # in turn, so a slow period hits every figure alike
            total, by, n = imports(design, out)
            imp.append(total)
            counts.append(n)
            for k, v in by.items():
                groups[k].append(v)
            w, c = timed(cmd)
            walls.append(w)
            cpus.append(c)
            nap.append(timed([py, "-c", "import infra; infra.__version__"])[0])
    print(f"{design.name}: {runs} fresh processes each, in turn")
    print(f"  imports (-X importtime, -q)  {_fmt(imp)}   {statistics.median(counts):.0f} modules")
    print(f"  infra design --report json   {_fmt(walls)} wall, {_fmt(cpus)} CPU")
    print(f"  python -c 'import infra'     {_fmt(nap)} wall")
    med = {k: statistics.median(v + [0.0] * (runs - len(v))) for k, v in groups.items()}
    infra = sum(v for k, v in med.items() if k.startswith("infra"))
    print(f"  self import time, median (infra's own modules together: {infra:.3f} s):")
    for k, v in sorted(med.items(), key=lambda kv: -kv[1])[:top]:
        print(f"    {v * 1000:7.1f} ms  {k}")
    if count:
        with tempfile.TemporaryDirectory() as tmp:
            imp_ir = instructions([py, "-c", DESIGN_IMPORTS])
            run_ir = instructions([py, "-m", "infra", "design", str(design), "--report", "json",
                                   "--quiet", "--output", tmp])
        if imp_ir is None or run_ir is None:
            print("  instructions: valgrind not found")
        else:
            print(f"  instructions (cachegrind): imports {imp_ir / 1e6:,.1f} M, "
                  f"whole -q run {run_ir / 1e6:,.1f} M")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--design", type=Path, action="append",
                    help="design file (repeatable; default designs/aws_nvl36x2.yaml)")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--top", type=int, default=20, help="rows of the self-time list")
    ap.add_argument("--instructions", action="store_true",
                    help="also count instructions under valgrind's cachegrind (deterministic)")
    a = ap.parse_args()
    import compileall

    compileall.compile_dir(ROOT / "infra", quiet=1)
    for d in a.design or [ROOT / "designs" / "aws_nvl36x2.yaml"]:
        bench(d, a.runs, a.top, a.instructions)
    print(f"(load average {os.getloadavg()[0]:.2f}; timings on a shared machine are noisy: "
          "compare medians taken in the same period)")


if __name__ == "__main__":
    main()
