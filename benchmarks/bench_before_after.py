"""Issue 32's item-2 targets on two checkouts, back to back at the same load.

``bench_tricks.py --targets`` (1,000 distinct layouts ``--report json`` / ``xlsx``, a
design-changing and a cost-only sweep scenario on ``gb200_nvl72_576``) and
``bench_growth.py`` (the JSON job against pods and tray types), each run once per pass
on the ``--before`` tree, then on the ``--after`` tree, ``--passes`` times: the two trees
see the same load, in turn. Each tree is measured with *these* benchmark scripts (copied
into its ``benchmarks/``, which a checkout from before them may lack or hold older) and
its own ``infra`` (``PYTHONPATH=TREE``, run from ``TREE``). The minimum over passes is
printed for each figure, with the load before and after.

Make the "before" checkout without touching your own::

    git worktree add /tmp/before 561d4ed     # the commit before issue 32's work
    python benchmarks/bench_before_after.py --before /tmp/before --after . --passes 3 --markdown
    python benchmarks/bench_before_after.py --from-json figures.json   # the table again

Figures: CPU seconds of the process and its children for the 1,000-layout reports
(``bench_tricks --targets``: fresh ``infra design ... -q`` processes, peak RSS beside),
CPU per scenario for the sweeps (in process, ``--workers 1``), and the JSON job's CPU
(``bench_growth``: in a fresh process, after its imports) at each size of each axis,
with the log-log slopes between neighbouring sizes.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ("bench_tricks.py", "bench_growth.py", "bench_hetero.py")
# label -> pattern of bench_tricks --targets' lines (first group: the figure)
TARGETS = {
    "json_s": r"1,000 layouts --report json -q:\s+([\d.]+) s CPU",
    "json_mib": r"--report json -q:.*?, (\d+) MiB",
    "xlsx_s": r"1,000 layouts --report xlsx -q:\s+([\d.]+) s CPU",
    "design_ms": r"design-changing scenario, [^:]+:\s+([\d.]+) ms CPU",
    "cost_ms": r"cost-only scenario:\s+(-?[\d.]+) ms CPU",
}
GROWTH = re.compile(r"^(layouts|pods|trays)\s+([\d,]+)\s+([\d.]+)\s+([\d.]+)", re.M)
# issue 32, item 2: figure -> (what, the most it may be, unit)
GOALS = {"json_s": ("1,000 layouts `--report json`, CPU", 2.0, "s"),
         "json_mib": ("1,000 layouts `--report json`, peak", 200, "MiB"),
         "xlsx_s": ("1,000 layouts `--report xlsx`, CPU", 10.0, "s"),
         "design_ms": ("design-changing sweep scenario, `gb200_nvl72_576`", 20.0, "ms"),
         "cost_ms": ("cost-only sweep scenario", 2.0, "ms")}
AXIS_WORDS = {"layouts": "distinct layouts", "pods": "pods", "trays": "tray types"}
SLOPE_MAX = 1.0  # "growth linear": no log-log slope between neighbouring sizes above 1


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def bench(tree: Path, script: str, args: list[str]) -> str:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, str(tree / "benchmarks" / script), *args], cwd=tree,
                         env=env, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"{tree}: {script} failed:\n{out.stdout}\n{out.stderr}")
    return out.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path)
    ap.add_argument("--after", type=Path, default=ROOT)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--scenarios", type=int, default=200)
    ap.add_argument("--skip", nargs="*", default=[], choices=["targets", "growth"])
    ap.add_argument("--markdown", action="store_true", help="also print the guide's table")
    ap.add_argument("--json", type=Path, help="also write every figure to this file")
    ap.add_argument("--from-json", type=Path, help="print the table of a --json file, measure nothing")
    a = ap.parse_args()
    if a.from_json:
        saved = json.loads(a.from_json.read_text())
        best = {(n, lab): min(v) for n, lab, v in saved["figures"]}
        print(markdown(best, saved["rev"], saved["started"], saved["ended"], saved["passes"]))
        return
    if not a.before:
        ap.error("--before TREE is needed (or --from-json FILE)")
    trees = {"before": a.before.resolve(), "after": a.after.resolve()}
    for tree in trees.values():
        if tree != ROOT:
            (tree / "benchmarks").mkdir(exist_ok=True)
            for s in SCRIPTS:
                shutil.copy(ROOT / "benchmarks" / s, tree / "benchmarks" / s)
    rev = {k: subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=t, text=True,
                             capture_output=True).stdout.strip() for k, t in trees.items()}
    started = f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load {load()}"
    print(f"# start {started}; " + ", ".join(f"{k} {rev[k]} ({t})" for k, t in trees.items()),
          flush=True)
    figs: dict[tuple[str, str], list[float]] = {}
    for p in range(a.passes):
        for name, tree in trees.items():
            if "targets" not in a.skip:
                text = bench(tree, "bench_tricks.py", ["--targets", str(a.scenarios), "--runs", "1"])
                for label, pat in TARGETS.items():
                    figs.setdefault((name, label), []).append(float(re.search(pat, text).group(1)))
            if "growth" not in a.skip:
                text = bench(tree, "bench_growth.py", ["--runs", "1"])
                for axis, n, job, _proc in GROWTH.findall(text):
                    figs.setdefault((name, f"{axis}_{n.replace(',', '')}"), []).append(float(job))
            print(f"# pass {p + 1} {name} done {time.strftime('%H:%M UTC', time.gmtime())}, "
                  f"load {load()}", flush=True)
    ended = f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load {load()}"
    print(f"# end {ended}")
    print(f"{'figure':14s} {'before':>9s} {'after':>9s}   (minimum of {a.passes}; all passes)")
    labels = list(dict.fromkeys(label for _, label in figs))
    for label in labels:
        b, f = figs.get(("before", label), []), figs.get(("after", label), [])
        print(f"{label:14s} {min(b, default=float('nan')):9.3f} {min(f, default=float('nan')):9.3f}"
              f"   before {b}  after {f}")
    best = {k: min(v) for k, v in figs.items()}
    for axis in AXIS_WORDS:
        for name in trees:
            pts = points(best, name, axis)
            if len(pts) > 1:
                print(f"{axis} slopes {name}: " + ", ".join(f"{s:.2f}" for s in slopes(pts)))
    if a.json:
        a.json.write_text(json.dumps({"started": started, "ended": ended, "rev": rev,
                                      "passes": a.passes, "figures": [
                                          [n, lab, v] for (n, lab), v in figs.items()]}, indent=1))
    if a.markdown:
        print()
        print(markdown(best, rev, started, ended, a.passes))


def points(best: dict, name: str, axis: str) -> list[tuple[int, float]]:
    return sorted((int(lab.split("_")[1]), v) for (n, lab), v in best.items()
                  if n == name and lab.startswith(axis + "_"))


def slopes(pts: list[tuple[int, float]]) -> list[float]:
    return [math.log(b[1] / a[1]) / math.log(b[0] / a[0]) for a, b in zip(pts, pts[1:])]


def markdown(best: dict, rev: dict, started: str, ended: str, passes: int) -> str:
    """The guide's table (``docs/guides/performance.md``; tests/test_docs_tricks.py checks
    its verdicts and slopes against its figures)."""
    lines = [f"Measured {started} to {ended}; before = `{rev['before']}`, after = "
             f"`{rev['after']}`; CPU, the minimum of {passes} passes, each running the "
             "before tree then the after tree.", "",
             "| target (issue 32, item 2) | before | after | met after |", "|---|---|---|---|"]
    fmt = {"s": "{:.2f} s", "MiB": "{:.0f} MiB", "ms": "{:.2f} ms"}
    for key, (what, goal, unit) in GOALS.items():
        cells = [fmt[unit].format(best[(n, key)]) if (n, key) in best else "not run"
                 for n in ("before", "after")]
        met = "yes" if best.get(("after", key), math.inf) <= goal else "no"
        lines.append(f"| {what} <= {fmt[unit].format(goal)} | {cells[0]} | {cells[1]} | {met} |")
    for axis, word in AXIS_WORDS.items():
        cells, worst = [], math.inf
        for n in ("before", "after"):
            pts = points(best, n, axis)
            if len(pts) < 2:
                cells.append("not run")
                continue
            sl = slopes(pts)
            worst = max(sl) if n == "after" else worst
            cells.append(" / ".join(f"{v:.3f}" for _, v in pts) + " s, slopes "
                         + ", ".join(f"{x:.2f}" for x in sl))
        sizes = " / ".join(f"{k:,}" for k, _ in points(best, "after", axis))
        met = "yes" if worst <= SLOPE_MAX else "no"
        lines.append(f"| JSON job at {sizes} {word}: slopes <= {SLOPE_MAX:.1f} | {cells[0]} | "
                     f"{cells[1]} | {met} |")
    return "\n".join(lines)

if __name__ == "__main__":
    main()
