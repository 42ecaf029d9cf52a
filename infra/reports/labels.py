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
    if name.startswith("peak_sparse_pops"):
        return "POPS (sparse)"
    if "pflops" in name:
        if "sparse" in name:
            return "PFLOPS (sparse)"
        return "PFLOPS (dense)" if "dense" in name else "PFLOPS"
    for suffix, unit in SUFFIX_UNITS:
        if name.endswith(suffix):
            return unit
    return "count"


def metric_label(name: str) -> str:
    return name.replace("_", " ")


COLUMN_TAILS = ("_per_rack", "_per_unit", "_total", "_per_gpu")
NUMBER_FORMATS = {
    "kW": '#,##0.0 "kW"', "MW": '#,##0.00 "MW"', "W": '#,##0 "W"', "USD": '"$"#,##0',
    "GB/s": '#,##0.0 "GB/s"', "TB/s": '#,##0.0 "TB/s"', "Gb/s": '#,##0 "Gb/s"',
    "Tb/s": '#,##0.0 "Tb/s"', "TB": '#,##0.00 "TB"', "PFLOPS": '#,##0.0 "PFLOPS"',
    "PFLOPS (dense)": '#,##0.0 "PFLOPS"', "POPS (dense)": '#,##0.0 "POPS"',
    "PFLOPS (sparse)": '#,##0.0 "PFLOPS"', "POPS (sparse)": '#,##0.0 "POPS"',
    "ratio": "0.00", "ratio (demand / capacity)": '0.00"x"', "fraction": "0.0%",
    "GPUs": '#,##0 "GPUs"', "count": "#,##0", "GB/s per GPU": '#,##0 "GB/s"',
    "Gb/s per GPU": '#,##0 "Gb/s"', "Gb/s per tray": '#,##0 "Gb/s"', "U": '0 "U"',
}


def column_unit(name: str) -> str | None:
    """Unit of a table column from its name (``it_kw_per_rack`` -> ``kW``); None if unsure."""
    base = name
    for tail in COLUMN_TAILS:
        if base.endswith(tail):
            base = base[: -len(tail)]
    if base.endswith("_w"):
        return "W"
    if base.endswith("_u"):
        return "U"
    unit = metric_unit(base)
    if unit == "count" and not (base.endswith("_count") or base in ("count", "racks", "trays")):
        return None
    return unit


def number_format(unit: str | None) -> str | None:
    return NUMBER_FORMATS.get(unit or "")
