"""Time the full report set (json, xlsx, md, svg, png, dot) for a ~100k-GPU design.

Generates a GB200 NVL72 cluster of ~100k GPUs (benchmarks/bench_scale.py's generator),
then times analysis and each report stage. Run: python benchmarks/bench_reports.py [gpus]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]
from bench_scale import generate  # noqa: E402


def main() -> None:
    gpus = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    from infra.analysis.summary import analyze_file
    from infra.reports.diagrams.render import find_renderer
    from infra.reports.writer import write_reports

    with tempfile.TemporaryDirectory() as tmp:
        path = generate("nvl72", gpus, Path(tmp))
        t0 = time.perf_counter()
        a = analyze_file(path)
        data = a.as_dict()
        t1 = time.perf_counter()
        print(f"{data['metrics']['gpus']:,} GPUs, renderer {find_renderer()}")
        print(f"  analysis                      {t1 - t0:6.2f} s")
        total = 0.0
        for fmts in (("json",), ("md",), ("svg",), ("png",), ("dot",), ("xlsx",),
                     ("json", "xlsx", "md", "svg", "png", "dot")):
            t = time.perf_counter()
            res = write_reports(data, "bench", fmts, Path(tmp) / "out", analysis=a)
            dt = time.perf_counter() - t
            print(f"  {'+'.join(fmts):30s}{dt:6.2f} s  ({len(res.written)} files)")
            total = dt
        print(f"  full report set after analysis: {total:.2f} s; with analysis: {total + t1 - t0:.2f} s")


if __name__ == "__main__":
    main()
