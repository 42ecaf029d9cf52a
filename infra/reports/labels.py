"""Human labels and units for metric names (names end in their unit)."""

from __future__ import annotations

SUFFIX_UNITS = [
    ("_gbit_s_per_tray", "Gb/s per tray"),
    ("oversubscription", "ratio (demand / capacity)"),
    ("_fraction", "fraction"),
    ("_gbyte_s_per_gpu", "GB/s per GPU"),
    ("_gbit_s_per_gpu_nominal", "Gb/s per GPU"),
    ("_gbit_s_per_gpu_effective", "Gb/s per GPU"),
    ("_tbit_s", "Tb/s"),
    ("_gbit_s", "Gb/s"),
    ("_tbyte_s", "TB/s"),
    ("_gbyte_s", "GB/s"),
    ("_tbyte", "TB"),
    ("_kw", "kW"),
    ("_mw", "MW"),
    ("_ratio", "ratio"),
    ("_count", "count"),
    ("_gpus", "GPUs"),
    ("_usd", "USD"),
    ("_per_day", "per day"),
    ("_hours", "hours"),
]


def metric_unit(name: str) -> str:
    """Unit of a metric from its name's suffix (``it_power_kw`` -> ``kW``)."""
    if name.startswith("peak_dense_pops") :
        return "POPS (dense)"
    if "pflops" in name:
        return "PFLOPS (dense)" if "dense" in name else "PFLOPS"
    for suffix, unit in SUFFIX_UNITS:
        if name.endswith(suffix):
            return unit
    return "count"


def metric_label(name: str) -> str:
    return name.replace("_", " ")
