"""Analyse generated GB200 NVL72 and DGX H100 clusters of ~1k, 10k and 100k GPUs.

Each size runs in a fresh process; prints wall time of load + full analysis and the
process's peak RSS. Run: python benchmarks/bench_scale.py
"""

from __future__ import annotations

import resource
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
    group: su
    tiers:
"""
TIER = ("      - {{role: {role}, switch: nvidia-quantum-x800-q3400, port_gbit_s: 400, "
        "down: {{{lower}: {optic}, switch_end: nvidia-mms4x00-ns}}}}\n")
RACKS = {
    "nvl72": ("nvl72", 576, """\
  nvl72:
    type: nvidia-gb200-nvl72-rack
    contents:
      - {type: nvidia-mgx-33kw-power-shelf, count: 8}
      - {type: nvidia-gb200-compute-tray, count: 18}
      - {type: nvidia-nvlink5-switch-tray, count: 9}
      - {type: supermicro-gb300-in-rack-cdu, count: 1}
"""),
    "dgx": ("dgx4", 256, """\
  dgx4:
    type: generic-42u-air-rack
    contents:
      - {type: nvidia-dgx-h100, count: 4}
"""),
}


def generate(kind: str, gpus: int, directory: Path) -> Path:
    layout, per_pod, rack = RACKS[kind]
    pods = max(1, round(gpus / per_pod))
    tiers = "".join(TIER.format(role=r, lower="node_end" if r == "leaf" else "lower_end",
                                optic="nvidia-mms4x00-ns400" if r == "leaf" else "nvidia-mms4x00-ns")
                    for r in ("leaf", "spine", "core"))
    text = (f"name: generated {kind} cluster ({pods * per_pod} GPUs)\nracks:\n{rack}"
            f"pods:\n  su:\n    racks: {{{layout}: 8}}\n{FABRIC}{tiers}build:\n  su: {pods}\n")
    path = directory / f"{kind}_{gpus}.yaml"
    path.write_text(text)
    return path


def one(path: str) -> None:
    t0 = time.perf_counter()
    from infra.analysis.summary import analyze_file

    a = analyze_file(path)
    data = a.as_dict()
    dt = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    m = data["metrics"]
    print(f"{m['gpus']:>8,} GPUs  {dt:7.3f} s  peak RSS {rss:6.1f} MiB  "
          f"(fabric: {m['leaf_switches']:,} leaf / {m['spine_switches']:,} spine / "
          f"{m['core_switches']:,} core, {m['transceivers']:,} transceivers; "
          f"{len(data['tables']['cabling']):,} cabling rows)")


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        one(sys.argv[2])
        return
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("nvl72", "dgx"):
            print(f"{kind}: load + every analysis (BOM, compute, power, cooling, bandwidth, "
                  "PCIe, blast radius, 3-tier fabric sizing, cabling)")
            for gpus in (1_000, 10_000, 100_000):
                path = generate(kind, gpus, Path(tmp))
                subprocess.run([sys.executable, __file__, "--one", str(path)], check=True, cwd=ROOT)


if __name__ == "__main__":
    main()
