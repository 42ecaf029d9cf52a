"""Does each speed trick pay for itself? (issue 32, item 3)

Four tricks, each switched off on its own, against all of them on, on three user-visible
jobs, each run as a fresh ``infra`` process:

- ``headline``: ``infra design designs/gb200_nvl72.yaml --report xlsx`` (diagram cache
  warm, summary printed to /dev/null);
- ``hall-json``: a hall of 1,000 distinct rack layouts (``bench_hetero.hall(1000)``),
  ``infra design HALL --report json``;
- ``sweep``: ``infra sweep designs/gb200_nvl72_576.yaml`` over 2,000 scenarios (20
  designs, PUE 1.10-1.29, x 100 energy prices), ``--workers 1``, csv.

Tricks and how one is switched off (in the launcher, before the command runs):

- ``workers``: the forked report workers (``infra/reports/worker.py``, removed after
  this measurement: see :data:`REMOVED`): ``worker.can_fork`` returned False, so the
  parent did the jobs in turn (its documented fallback);
- ``gc``: the GC pause (``short_lived_gc``/``freeze_long_lived`` in ``infra/cli/runtime.py``
  and ``gc_deferred`` in ``infra/models/gcpause.py``): all three made no-ops;
- ``catalog-cache``: ``INFRA_CATALOG_CACHE=off`` (on: a cache directory warmed first);
- ``yamlfast``: the one-pass YAML reader (``infra/models/yamlfast.build``) always
  raises ``Fallback``, so every file takes the full compose/check/construct path.

The figure is CPU seconds of the process and its children (``os.wait4``), the minimum
over ``--runs`` repeats taken in turn (other agents load this 2-core machine; the
minimum is the least disturbed run); wall seconds and peak RSS are printed beside it,
with ``uptime``'s load before and after. A trick's saving on a job is
``(off - on) / off``: the share of the job's CPU time it removes.

Run::

    python benchmarks/bench_tricks.py --runs 3
    python benchmarks/bench_tricks.py --runs 3 --markdown   # the guide's table
    python benchmarks/bench_tricks.py --jobs headline --tricks gc --runs 5
    python benchmarks/bench_tricks.py --targets 200 --runs 3  # issue 32's item 2 targets
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

TRICKS = ("workers", "gc", "catalog-cache", "yamlfast")
# removed after this benchmark measured them (their code is gone: they cannot be run)
REMOVED = {"workers": "removed in issue 32: saved no CPU time on any job"}
JOBS = ("headline", "hall-json", "sweep")
THRESHOLD = 0.10  # a trick saving less than this on every job is removed (issue 32)

GRID = """\
parameters:
  pue: {path: assumptions.pue, range: {start: 1.10, stop: 1.29, step: 0.01}}
  e: {input: energy_usd_per_kwh, range: {start: 0.01, stop: 0.109, step: 0.001}}
"""


def launch(off: list[str], argv: list[str]) -> None:  # pragma: no cover - in the child
    """Switch the ``off`` tricks off, then run ``infra ARGV`` as the console script does."""
    import contextlib

    if "gc" in off:
        from infra.models import gcpause

        gcpause.gc_deferred = contextlib.nullcontext
    if "yamlfast" in off:
        from infra.models import yamlfast

        def build(loader):
            raise yamlfast.Fallback

        yamlfast.build = build
    from infra.cli import main as cli_main

    if "gc" in off:
        cli_main.short_lived_gc = lambda: None  # freeze_long_lived then does nothing too
    sys.argv = ["infra", *argv]
    cli_main.main()


def measure(off: list[str], argv: list[str], env: dict) -> tuple[float, float, float]:
    """Wall s, CPU s (children included) and peak RSS MiB of one fresh process."""
    args = [sys.executable, __file__, "--launch", ",".join(off) or "-", "--", *argv]
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
        os.execve(args[0], args, {**os.environ, **env})
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):  # 1: a design-rule finding, still a full run
        raise SystemExit(f"failed ({code}): {' '.join(args)}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def jobs(tmp: Path, names: list[str]) -> dict[str, list[str]]:
    out = {}
    if "headline" in names:
        out["headline"] = ["design", str(ROOT / "designs" / "gb200_nvl72.yaml"), "--report",
                           "xlsx", "-o", str(tmp / "out")]
    if "hall-json" in names:
        from bench_hetero import hall

        design = tmp / "hall.yaml"
        design.write_text(hall(1000))
        out["hall-json"] = ["design", str(design), "--report", "json", "-o", str(tmp / "out")]
    if "sweep" in names:
        grid = tmp / "grid.yaml"
        grid.write_text(GRID)
        out["sweep"] = ["sweep", str(ROOT / "designs" / "gb200_nvl72_576.yaml"), "--grid",
                        str(grid), "--workers", "1", "--no-progress", "--report", "csv",
                        "-o", str(tmp / "out")]
    return out


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def run(job_names: list[str], tricks: list[str], runs: int, markdown: bool) -> dict:
    configs = [("all on", [])] + [(f"{t} off", [t]) for t in tricks]
    results: dict[tuple[str, str], list] = {}
    with tempfile.TemporaryDirectory() as tmpname:
        tmp = Path(tmpname)
        cache = {"INFRA_DIAGRAM_CACHE": str(tmp / "diagrams"),
                 "INFRA_CATALOG_CACHE": str(tmp / "catalog")}
        cmds = jobs(tmp, job_names)
        started = f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {load()}"
        print(f"# start {started}", flush=True)
        for argv in cmds.values():  # warm the diagram and catalog caches
            measure([], argv, cache)
        for r in range(runs):
            for job, argv in cmds.items():
                for label, off in configs:
                    env = {**cache, **({"INFRA_CATALOG_CACHE": "off"} if "catalog-cache" in off
                                       else {})}
                    results.setdefault((job, label), []).append(measure(off, argv, env))
            print(f"# pass {r + 1}/{runs} done, {load()}", flush=True)
        ended = f"{time.strftime('%H:%M UTC', time.gmtime())}, {load()}"
    print(f"# end {ended}")
    header = (f"{'job':10s} {'config':20s} {'cpu s':>7s} {'median':>7s} {'wall s':>7s} "
              f"{'MiB':>5s}  saving")
    print(header)
    table = {}
    for job in cmds:
        base = min(c for _, c, _ in results[(job, "all on")])
        for label, off in configs:
            rs = results[(job, label)]
            cpu = min(c for _, c, _ in rs)
            wall = min(w for w, _, _ in rs)
            mib = max(m for _, _, m in rs)
            saving = (cpu - base) / cpu if off else None
            table[(job, label)] = (cpu, wall, mib, saving)
            med = statistics.median(c for _, c, _ in rs)
            print(f"{job:10s} {label:20s} {cpu:7.2f} {med:7.2f} {wall:7.2f} {mib:5.0f}  "
                  + ("" if saving is None else f"{100 * saving:+.1f} %"), flush=True)
    verdict = {}
    for t in tricks:
        best = max(table[(j, f"{t} off")][3] for j in cmds)
        verdict[t] = "keep" if best >= THRESHOLD else "remove"
        print(f"{t}: largest saving {100 * best:+.1f} % -> {verdict[t]}")
    if markdown:
        print()
        print(f"Measured {started} to {ended}; CPU seconds, minimum of {runs} fresh processes "
              "per cell (wall seconds in brackets); saving = (off - on) / off.")
        print()
        print("| trick | " + " | ".join(cmds) + " | verdict |")
        print("|---|" + "---|" * len(cmds) + "---|")
        row = ["all on"] + [f"{table[(j, 'all on')][0]:.2f} s ({table[(j, 'all on')][1]:.2f} s)"
                            for j in cmds] + [""]
        print("| " + " | ".join(row) + " |")
        for t in tricks:
            cells = []
            for j in cmds:
                cpu, wall, _, s = table[(j, f"{t} off")]
                cells.append(f"off: {cpu:.2f} s ({wall:.2f} s), saves {100 * s:+.1f} %")
            print(f"| {t} | " + " | ".join(cells) + f" | {verdict[t]} |")
    return table


def targets(runs: int, scenarios: int) -> None:
    """Issue 32's throughput targets (item 2), CPU time: a design-changing sweep scenario
    on ``gb200_nvl72_576`` (target <= 20 ms), a cost-only scenario (<= 2 ms; the extra
    CPU of N energy prices over one, per price), and 1,000 distinct layouts
    ``--report json`` (<= 2 s, <= 200 MiB) and ``--report xlsx`` (<= 10 s), fresh
    processes, minimum of ``runs``."""
    base = ROOT / "designs" / "gb200_nvl72_576.yaml"

    def cpu(fn) -> float:
        t = time.process_time()
        res = fn()
        spent = time.process_time() - t
        bad = [r for r in getattr(res, "rows", []) if r.get("error")]
        if bad:  # a scenario that failed would be timed as a cheap one
            raise SystemExit(f"{len(bad)} scenarios failed, e.g. {bad[0]['error']}")
        return spent

    # as bench_sweep's "design" workload: every scenario a distinct design (PUE x the
    # leaf tier's oversubscription, so the fabric is sized again)
    pues = max(1, scenarios // 2)
    design = {"parameters": {
        "pue": {"path": "assumptions.pue", "range": {
            "start": 1.0, "stop": 1.0 + (pues - 1) * 0.001, "step": 0.001}},
        "o": {"path": "fabrics.compute.tiers.0.oversubscription", "values": [1, 2]}}}
    scenarios = 2 * pues

    def cost(n: int) -> dict:
        return {"parameters": {"e": {"input": "energy_usd_per_kwh", "range": {
            "start": 0.001, "stop": n * 0.001, "step": 0.001}}}}

    print(f"# targets {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {load()}")
    with tempfile.TemporaryDirectory() as tmpname:
        tmp = Path(tmpname)
        env = {"INFRA_DIAGRAM_CACHE": str(tmp / "diagrams"), "INFRA_CATALOG_CACHE": str(tmp / "c")}
        argv = jobs(tmp, ["hall-json"])["hall-json"]
        measure([], argv, env)  # caches warm
        # first, while this process is small: a forked child's peak RSS counts its parent's
        # pages until the exec
        for fmt, goal in (("json", "2 s, 200 MiB"), ("xlsx", "10 s")):
            args = [*argv[:3], fmt, *argv[4:], "--quiet"]
            rs = [measure([], args, env) for _ in range(runs)]
            print(f"1,000 layouts --report {fmt} -q: {min(c for _, c, _ in rs):6.2f} s CPU "
                  f"(median {statistics.median(c for _, c, _ in rs):.2f}), "
                  f"{max(m for _, _, m in rs):.0f} MiB (target {goal})", flush=True)
    from infra.analysis.summary import analyze_file
    from infra.sweeps import sweep

    analyze_file(base)  # catalog cache warm, imports done
    per_design = min(cpu(lambda: sweep(base, design, workers=1)) for _ in range(runs)) / scenarios
    one = min(cpu(lambda: sweep(base, cost(1), workers=1)) for _ in range(runs))
    many = min(cpu(lambda: sweep(base, cost(scenarios + 1), workers=1)) for _ in range(runs))
    per_cost = (many - one) / scenarios
    print(f"design-changing scenario, {base.name}: {per_design * 1000:7.1f} ms CPU "
          f"(target 20 ms; {scenarios} scenarios, --workers 1)")
    print(f"cost-only scenario:                          {per_cost * 1000:7.2f} ms CPU "
          f"(target 2 ms; {scenarios + 1} energy prices against 1)")
    print(f"# end {time.strftime('%H:%M UTC', time.gmtime())}, {load()}")


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--launch":
        off = [] if sys.argv[2] == "-" else sys.argv[2].split(",")
        launch(off, sys.argv[4:])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--jobs", nargs="+", choices=JOBS, default=list(JOBS))
    ap.add_argument("--tricks", nargs="+", choices=[t for t in TRICKS if t not in REMOVED],
                    default=[t for t in TRICKS if t not in REMOVED])
    ap.add_argument("--markdown", action="store_true", help="also print the guide's table")
    ap.add_argument("--targets", type=int, metavar="SCENARIOS",
                    help="measure issue 32's throughput targets instead (sweeps of SCENARIOS)")
    a = ap.parse_args()
    if a.targets:
        targets(a.runs, a.targets)
        return
    run(a.jobs, a.tricks, a.runs, a.markdown)


if __name__ == "__main__":
    main()
