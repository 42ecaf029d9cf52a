"""CPU seconds of each phase of ``infra design HALL --report json``, in one process.

On a shared machine wall times say little; the process's own CPU time per phase (best of
N runs, the catalog loaded once) says where the time goes. Phases: the design file's
YAML read, validation and resolution, each analysis, the tables, the JSON text.

Best of N in one process hides what only the first run pays (memos on the catalog,
first-touch memory). ``--fresh N`` runs, in each of N fresh processes, the four library
calls a user's run makes (``load_design``, ``analyze``, ``as_dict``, ``to_json``, the
catalog loaded first) once, and prints the median and range of each; ``--cli-gc``
tunes the garbage collector first as the ``infra`` command does.

Run::

    python benchmarks/bench_json_phases.py 1000        # bench_hetero's 1,000-layout hall
    python benchmarks/bench_json_phases.py designs/aws_nvl36x2.yaml --runs 5
    python benchmarks/bench_json_phases.py 1000 --fresh 7
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]


def phases(path: Path, runs: int) -> dict[str, float]:
    """Best CPU seconds of each phase over ``runs`` runs."""
    from infra.analysis.compute import summarize_compute
    from infra.analysis.cost.bom import bill_of_materials
    from infra.analysis.cost.tco import design_capex
    from infra.analysis.limits import check_design_size
    from infra.analysis.network.bandwidth import design_bandwidth
    from infra.analysis.network.fabric import design_fabrics
    from infra.analysis.power.cooling import design_cooling
    from infra.analysis.power.envelopes import design_envelopes
    from infra.analysis.power.it_power import design_power
    from infra.analysis.reliability.blast_radius import blast_radius
    from infra.analysis.summary import DesignAnalysis
    from infra.models import resolve, yamlio
    from infra.models.catalog import load_catalog
    from infra.models.prices import load_prices
    from infra.reports.json_report import to_json
    from infra.topology.scaleup import scale_up_domains

    cat = load_catalog()
    best: dict[str, float] = {}

    def tm(name, f):
        t = time.process_time()
        out = f()
        best[name] = min(best.get(name, float("inf")), time.process_time() - t)
        return out

    for _ in range(runs):
        data = tm("read_yaml", lambda: yamlio.read_yaml(path, resolve.DesignError))
        rd = tm("design_from_data", lambda: resolve.design_from_data(data, path, cat))
        tm("check_design_size", lambda: check_design_size(rd))
        fab = tm("fabrics", lambda: design_fabrics(rd))
        power = tm("power", lambda: design_power(rd, fab))
        cool = tm("cooling", lambda: design_cooling(rd, power))
        bom = tm("bill_of_materials", lambda: bill_of_materials(rd, cool.unit_counts(), fab))
        book = tm("prices", lambda: load_prices(catalog=rd.catalog))
        capex = tm("capex", lambda: design_capex(rd, book, cool.unit_counts(), fab))
        comp = tm("compute", lambda: summarize_compute(rd))
        tm("scale_up_domains", lambda: scale_up_domains(rd))
        bw = tm("bandwidth", lambda: design_bandwidth(rd))
        blast = tm("blast_radius", lambda: blast_radius(rd, power, cool, fab))
        env = tm("envelopes", lambda: design_envelopes(rd, power))
        a = DesignAnalysis(rd, bom, comp, power, cool, bw, blast, fab, capex, env)
        out = tm("as_dict (metrics, tables)", a.as_dict)
        tm("to_json", lambda: to_json(out))
    return best


def steps(path: Path) -> dict[str, float]:
    """CPU seconds of the four library calls of one ``infra design --report json`` run."""
    from infra.analysis.summary import analyze
    from infra.models.catalog import load_catalog
    from infra.models.resolve import load_design
    from infra.reports.json_report import to_json

    cat = load_catalog()
    out: dict[str, float] = {}
    t = time.process_time()
    rd = load_design(path, cat)
    out["load_design"] = time.process_time() - t
    t = time.process_time()
    a = analyze(rd)
    out["analyze"] = time.process_time() - t
    t = time.process_time()
    data = a.as_dict()
    out["as_dict"] = time.process_time() - t
    t = time.process_time()
    to_json(data)
    out["to_json"] = time.process_time() - t
    return out


def _one_fresh(path: Path, cli_gc: bool) -> dict[str, float]:
    """:func:`steps` of one pass in a fresh interpreter."""
    code = ("import json, sys; sys.path[:0] = sys.argv[3:]\n"
            "from pathlib import Path\n"
            "if sys.argv[2] == '1':\n"
            "    from infra.cli.main import short_lived_gc; short_lived_gc()\n"
            "import bench_json_phases as b\n"
            "p = Path(sys.argv[1])\n"
            "print(json.dumps(b.steps(p)))\n")
    here = Path(__file__).resolve()
    out = subprocess.run([sys.executable, "-c", code, str(path), "1" if cli_gc else "0",
                          str(here.parents[1]), str(here.parent)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[-1])


def _report(best: dict[str, float], runs: int) -> None:
    width = max(map(len, best))
    for name, s in best.items():
        print(f"{name:<{width}}  {s:7.3f} s")
    print(f"{'total':<{width}}  {sum(best.values()):7.3f} s CPU (best of {runs} per phase)")


def _report_fresh(samples: list[dict[str, float]]) -> None:
    width = 11
    for name in samples[0]:
        xs = [s[name] for s in samples]
        print(f"{name:<{width}}  {statistics.median(xs):7.3f} s  [{min(xs):.3f}-{max(xs):.3f}]")
    totals = [sum(s.values()) for s in samples]
    print(f"{'total':<{width}}  {statistics.median(totals):7.3f} s  "
          f"[{min(totals):.3f}-{max(totals):.3f}] CPU (median [range] of {len(samples)} fresh "
          "processes)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("design", help="a design file, or N for bench_hetero's N-layout hall")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--fresh", type=int, metavar="N",
                    help="one pass in each of N fresh processes (median and range)")
    ap.add_argument("--cli-gc", action="store_true",
                    help="with --fresh: tune the garbage collector as the infra command does")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.design)
        if args.design.isdigit():
            from bench_hetero import hall

            path = Path(tmp) / f"hall{args.design}.yaml"
            path.write_text(hall(int(args.design)))
        if args.fresh:
            _report_fresh([_one_fresh(path, args.cli_gc) for _ in range(args.fresh)])
        else:
            _report(phases(path, args.runs), args.runs)


if __name__ == "__main__":
    main()
