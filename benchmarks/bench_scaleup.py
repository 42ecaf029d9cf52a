"""Two-tier NVLink domains: one domain vs a ~100k-GPU cluster of the same domains.

The analyses cost what the distinct shapes cost (one NVL576-style domain graph, one
DGX GH200 domain graph), not what the GPU count costs: both runs of a kind should take
about the same time. Each run is a fresh process (load + every analysis + JSON); prints
wall time and peak RSS. Run: python benchmarks/bench_scaleup.py
"""

from __future__ import annotations

import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIRS = {"gb200_nvl576": "concepts"}  # announced, never shipped: kept out of designs/*.yaml
KINDS = {  # shipped design, pod name, GPUs per domain
    "gb200_nvl576": ("nvl576", 576),
    "dgx_gh200_256": ("dgx_gh200", 256),
}


def generate(design: str, domains: int, directory: Path) -> Path:
    """The shipped design with ``build: {<pod>: domains}``."""
    pod, _ = KINDS[design]
    text = (ROOT / "designs" / DIRS.get(design, "") / f"{design}.yaml").read_text()
    text = re.sub(rf"build:\n  {pod}: 1\n", f"build:\n  {pod}: {domains}\n", text)
    path = directory / f"{design}_{domains}.yaml"
    path.write_text(text)
    return path


def one(path: str) -> None:
    t0 = time.perf_counter()
    from infra.analysis.summary import analyze_file

    data = analyze_file(path).as_dict()
    dt = time.perf_counter() - t0
    use = resource.getrusage(resource.RUSAGE_SELF)
    rss = use.ru_maxrss / 1024
    m = data["metrics"]
    # CPU time beside wall time: on a shared machine wall time includes waiting for a core
    print(f"{m['gpus']:>8,} GPUs in {m['scale_up_domains']:>4} domains of "
          f"{m['scale_up_domain_gpus']}  wall {dt:7.3f} s  CPU {use.ru_utime + use.ru_stime:6.3f} s"
          f"  peak RSS {rss:6.1f} MiB", flush=True)


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        one(sys.argv[2])
        return
    with tempfile.TemporaryDirectory() as tmp:
        for design, (_, size) in KINDS.items():
            print(f"{design}: load + every analysis (compute, power, cooling, bandwidth, PCIe, "
                  "blast radius incl. L1/L2 switch cases)")
            for domains in (1, round(100_000 / size)):
                path = generate(design, domains, Path(tmp))
                subprocess.run([sys.executable, __file__, "--one", str(path)], check=True, cwd=ROOT)


if __name__ == "__main__":
    main()
