"""Growth of the ``infra design --report json`` job against distinct layouts, pods and tray
types (issue 32, item 2: "growth linear in distinct layouts, pods and tray types, slopes
printed").

- ``layouts``: :mod:`bench_hetero`'s hall of N distinct rack layouts (10 / 100 / 1,000),
  each in its own pod, here of 7 racks (bench_hetero's has 2);
- ``pods``: a hall of N pod definitions (10 / 100 / 1,000), each of 6-8 racks of one
  GB200 NVL72 layout, all under one ``hall`` pod, on bench_hetero's 3-tier
  rail-optimized fabric: only the pods grow.
- ``trays``: 100 distinct rack layouts (``bench_hetero.hall(100)``), their compute trays
  drawn from N distinct compute tray types (1 / 10 / 100: copies of
  ``nvidia-gb200-compute-tray`` under new slugs, in a second catalog directory loaded
  beside the shipped one, as ``--catalog`` twice does); layout i uses type ``i % N``.
  Only the tray types grow (and what is built per tray type: its expansion, PCIe paths,
  NVLink graphs of the layouts that differ in it).

Every case is over 4,096 GPUs (the smallest, 10 layouts or pods, has 69-70 racks), so
each lists its cabling as a summary: under that, the JSON report holds a per-cable plan
(4,824 cables for 20 racks), and a 20-rack case would cost more than a 200-rack one.

Each case runs the job as ``infra design FILE --report json -q`` runs it, through the
library (catalog load from the warm parsed-catalog cache, the prices, ``analyze_file``,
``as_dict``, ``write_reports(..., ("json",))``), in a fresh process, its imports done
before the clock starts: the figure is the CPU seconds of the job itself
(``time.process_time``), minimum over ``--runs`` runs taken in turn. The whole
process's CPU (imports and start-up included, ``os.wait4``) is printed beside it. The
slope is the log-log slope of the job's CPU time between successive sizes (1.0 =
linear; fixed costs such as loading the catalog make it lower at small sizes).

The tree measured is whatever ``import infra`` finds: run with ``PYTHONPATH=OTHER_TREE``
to measure another checkout (``bench_before_after.py`` does).

Run::

    python benchmarks/bench_growth.py --runs 3
    python benchmarks/bench_growth.py --axes pods --sizes 10 100 1000 --runs 5
"""

from __future__ import annotations

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_hetero import FABRIC, hall  # noqa: E402

AXES = {"layouts": (10, 100, 1000), "pods": (10, 100, 1000), "trays": (1, 10, 100)}
TRAY = "nvidia-gb200-compute-tray"

RACK = ("racks:\n  nvl72:\n    type: nvidia-gb200-nvl72-rack\n    contents:\n"
        "      - {type: nvidia-mgx-33kw-power-shelf, count: 8}\n"
        "      - {type: nvidia-gb200-compute-tray, count: 18}\n"
        "      - {type: nvidia-nvlink5-switch-tray, count: 9, cooling: liquid}\n"
        "      - {type: supermicro-gb300-in-rack-cdu, count: 1}\n")

CHILD = """\
import os, sys, time
from pathlib import Path
from infra.analysis.summary import analyze_file
from infra.models.catalog import catalog_dirs, load_catalog
from infra.models.prices import load_prices
from infra.reports.writer import write_reports
from infra.cli.main import short_lived_gc
short_lived_gc()  # as the console script does
design, extra, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
dirs = catalog_dirs(None) + ((extra,) if extra != "-" else ())
t = time.process_time()
catalog = load_catalog(dirs)
book = load_prices((), catalog)
analysis = analyze_file(design, catalog, book)
data = analysis.as_dict()
write_reports(data, Path(design).stem, ("json",), out, analysis=analysis, diagrams=False)
print("job_cpu", time.process_time() - t, flush=True)
"""


RACKS_PER_POD = 7  # the layouts axis: 10 pods of 7 racks of 64-72 GPUs: over 4,096 GPUs


def layouts(n: int) -> str:
    """``bench_hetero.hall(n)``, each pod of :data:`RACKS_PER_POD` racks of its layout."""
    text = hall(n)
    out, pods_changed = re.subn(r"^(    racks: \{l\d+: )2\}$", rf"\g<1>{RACKS_PER_POD}}}", text,
                                flags=re.M)
    assert pods_changed == n
    return out


def pods(n: int) -> str:
    """``n`` pod definitions of 6-8 racks of one layout, under one ``hall`` pod."""
    defs = "".join(f"  p{i}:\n    racks: {{nvl72: {6 + i % 3}}}\n" for i in range(n))
    members = ", ".join(f"p{i}: 1" for i in range(n))
    return (f"name: hall of {n} pods\n{RACK}pods:\n{defs}  hall:\n    pods: {{{members}}}\n"
            f"{FABRIC}build:\n  hall: 1\n")


def trays(n: int, catalog: Path, layouts: int = 100) -> str:
    """``hall(layouts)`` with layout i's compute trays of type ``bench-tray-{i % n}``
    (written to ``catalog``; type 0 is the shipped tray itself)."""
    src = (ROOT / "catalogs" / "trays" / f"{TRAY}.yaml").read_text()
    catalog.mkdir(parents=True, exist_ok=True)
    for k in range(1, n):
        text = src.replace(f"slug: {TRAY}\n", f"slug: bench-tray-{k}\n", 1)
        text = re.sub(r"^name: (.*)$", rf"name: \1 (bench copy {k})", text, count=1, flags=re.M)
        (catalog / f"bench-tray-{k}.yaml").write_text(text)
    out, layout = [], -1
    for line in hall(layouts).splitlines(keepends=True):
        if re.match(r"  l\d+:\n", line):
            layout = int(line.strip()[1:-1])
        k = layout % n
        if k and "type: nvidia-gb200-compute-tray," in line:
            line = line.replace(f"type: {TRAY},", f"type: bench-tray-{k},")
        out.append(line)
    return "".join(out)


def tree() -> Path:
    """The checkout whose ``infra`` this process imports (the one measured)."""
    import infra

    return Path(infra.__file__).resolve().parent.parent


def measure(design: Path, extra: str, out: Path, env: dict) -> tuple[float, float]:
    """(job CPU s, whole-process CPU s) of one fresh process, importing :func:`tree`'s
    ``infra`` (run from there: ``python -c`` puts the working directory first)."""
    root = tree()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        os.chdir(root)
        env = {**env, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
        os.close(r)
        os.dup2(w, 1)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
        args = [sys.executable, "-c", CHILD, str(design), extra, str(out)]
        os.execve(args[0], args, {**os.environ, **env})
    os.close(w)
    with os.fdopen(r) as f:
        text = f.read()
    _, status, usage = os.wait4(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    m = re.search(r"job_cpu ([\d.e-]+)", text)
    if code or not m:
        raise SystemExit(f"{design} failed ({code}): run the child by hand to see why")
    return float(m.group(1)), usage.ru_utime + usage.ru_stime


def slope(a: tuple[int, float], b: tuple[int, float]) -> float:
    return math.log(b[1] / a[1]) / math.log(b[0] / a[0])


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def run(axes: dict[str, tuple[int, ...]], runs: int) -> dict[str, list[tuple[int, float, float]]]:
    """{axis: [(size, job CPU s, process CPU s)]}, printed with the slopes."""
    print(f"# growth {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {load()}, "
          f"infra from {tree()}", flush=True)
    results: dict[str, list[tuple[int, float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmpname:
        tmp = Path(tmpname)
        env = {"INFRA_DIAGRAM_CACHE": "off", "INFRA_CATALOG_CACHE": str(tmp / "catalog-cache")}
        cases = []
        for axis, sizes in axes.items():
            for n in sizes:
                design = tmp / f"{axis}{n}.yaml"
                extra = "-"
                if axis == "layouts":
                    design.write_text(layouts(n))
                elif axis == "pods":
                    design.write_text(pods(n))
                else:
                    cat = tmp / f"cat{n}"
                    design.write_text(trays(n, cat))
                    extra = str(cat) if n > 1 else "-"
                (tmp / "out").mkdir(exist_ok=True)
                measure(design, extra, tmp / "out", env)  # the catalog cache warm
                cases.append((axis, n, design, extra))
        got: dict[tuple[str, int], list[tuple[float, float]]] = {}
        for r in range(runs):
            for axis, n, design, extra in cases:
                got.setdefault((axis, n), []).append(measure(design, extra, tmp / "out", env))
            print(f"# pass {r + 1}/{runs} done, {load()}", flush=True)
    print(f"{'axis':7s} {'size':>6s} {'job cpu s':>10s} {'process s':>10s} {'slope':>6s}")
    for axis, sizes in axes.items():
        prev = None
        results[axis] = []
        for n in sizes:
            rs = got[(axis, n)]
            job, proc = min(j for j, _ in rs), min(p for _, p in rs)
            s = f"{slope(prev, (n, job)):6.2f}" if prev else "     -"
            print(f"{axis:7s} {n:6,d} {job:10.3f} {proc:10.3f} {s}", flush=True)
            prev = (n, job)
            results[axis].append((n, job, proc))
    print(f"# end {time.strftime('%H:%M UTC', time.gmtime())}, {load()}", flush=True)
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--axes", nargs="+", choices=list(AXES), default=list(AXES))
    ap.add_argument("--sizes", nargs="+", type=int, help="sizes (one axis only)")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    if a.sizes and len(a.axes) != 1:
        ap.error("--sizes needs exactly one --axes")
    run({ax: tuple(a.sizes) if a.sizes else AXES[ax] for ax in a.axes}, a.runs)


if __name__ == "__main__":
    main()
