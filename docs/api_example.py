"""The ``infra`` Python API in a notebook-style script (run by the test suite, so it
stays true). Each cell prints what a notebook would show.

Run: python docs/api_example.py
"""

# %% Load and analyse a shipped design
from pathlib import Path

import infra

ROOT = Path(__file__).resolve().parents[1]
analysis = infra.analyze(ROOT / "designs" / "aws_nvl36x2.yaml")
m = analysis.metrics()
print(f"{m['gpus']} GPUs, {m['scale_up_domain_gpus']}-GPU NVLink domain, "
      f"{m['peak_dense_pflops_bf16']:g} PFLOPS bf16 dense, IT {m['it_power_kw']:g} kW")

# %% Any table as a DataFrame
bom = infra.frame(analysis.tables()["bill_of_materials"])
print(bom[["kind", "slug", "count"]].head(6).to_string(index=False))

# %% Compare two designs
cmp = infra.compare(str(ROOT / "designs" / "aws_nvl36x2.yaml"),
                    str(ROOT / "designs" / "gb200_nvl72.yaml"))
rows = infra.frame(cmp.rows()).set_index("metric")
print(rows.loc[["gpus", "it_power_kw", "peak_dense_pflops_bf16_per_facility_mw"],
               ["aws_nvl36x2", "gb200_nvl72"]].to_string())

# %% Sweep: tray NIC option x leaf oversubscription on the GB200 SU
res = infra.sweep(ROOT / "designs" / "gb200_nvl72_576.yaml",
                  ROOT / "sweeps" / "nvl72_nic_oversub.yaml")
df = res.frame()
print(df[["scenario", "tray", "leaf_oversubscription", "status",
          "scale_out_gbit_s_per_gpu_effective", "fabric_switches_per_gpu", "pareto"]]
      .to_string(index=False))

# %% What changes between two scenarios, and why
d = infra.diff_designs(ROOT / "designs" / "aws_nvl36x2.yaml", ROOT / "designs" / "gb200_nvl72.yaml")
print(f"{len(d.inputs)} inputs differ; e.g. {d.inputs[2].path}: {d.inputs[2].a} -> {d.inputs[2].b}")
print(f"{len(d.figures)} figures change; racks {d.figures[1].a} -> {d.figures[1].b}")
