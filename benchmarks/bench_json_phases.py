"""CPU seconds of each phase of ``infra design HALL --report json``, in one process.

On a shared machine wall times say little; the process's own CPU time per phase (best of
N runs, the catalog loaded once) says where the time goes. Phases: the design file's
YAML read, validation and resolution, each analysis, the tables, the JSON text.

Run::

    python benchmarks/bench_json_phases.py 1000        # bench_hetero's 1,000-layout hall
    python benchmarks/bench_json_phases.py designs/aws_nvl36x2.yaml --runs 5
"""

from __future__ import annotations

import argparse
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("design", help="a design file, or N for bench_hetero's N-layout hall")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.design)
        if args.design.isdigit():
            from bench_hetero import hall

            path = Path(tmp) / f"hall{args.design}.yaml"
            path.write_text(hall(int(args.design)))
        best = phases(path, args.runs)
    width = max(map(len, best))
    for name, s in best.items():
        print(f"{name:<{width}}  {s:7.3f} s")
    print(f"{'total':<{width}}  {sum(best.values()):7.3f} s CPU (best of {args.runs} per phase)")


if __name__ == "__main__":
    main()
