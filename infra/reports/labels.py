"""Human labels and units for metric and column names (names end in their unit).

One place turns ``it_kw_per_rack`` into ``IT per rack`` + ``kW``: every report (terminal,
workbook, markdown, HTML) takes its labels and units from here, so a unit is written once,
in the label or the unit column, never also in the number format.
"""

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
    ("_gib", "GiB"),
    ("_kw", "kW"),
    ("_kg", "kg"),
    ("_kw_bound", "kW (at most)"),
    ("_mw", "MW"),
    ("_ratio", "ratio"),
    ("_count", "count"),
    ("_gpus", "GPUs"),
    ("_usd", "USD"),
    ("_per_day", "per day"),
    ("_hours", "hours"),
    ("_scope", ""),  # capex_scope: a name, no unit
    ("gpu_hours_lost_per_year", "GPU-hours per year"),
    ("_seconds", "seconds"),
    ("_minutes", "minutes"),
    ("_per_year", "per year"),
]

# unit words dropped from a name when the unit is shown beside it
UNIT_TOKENS = {"kw", "kg", "mw", "w", "usd", "gbit", "gbyte", "tbit", "tbyte", "gib", "s", "u", "ratio",
               "fraction", "hours", "seconds", "minutes"}
WORDS = {
    "it": "IT", "kw": "kW", "gpu": "GPU", "gpus": "GPUs", "cpu": "CPU", "cpus": "CPUs",
    "hbm": "HBM", "pcie": "PCIe", "nvlink": "NVLink", "pflops": "", "pops": "", "usd": "USD",
    "sku": "SKU", "skus": "SKUs", "mamf": "MAMF", "tor": "ToR", "pue": "PUE", "mc": "MC",
    "ci": "CI", "fp64": "FP64", "fp32": "FP32", "tf32": "TF32", "bf16": "BF16", "fp16": "FP16",
    "fp8": "FP8", "fp6": "FP6", "fp4": "FP4", "int8": "INT8", "nic": "NIC", "nics": "NICs",
    "flops": "FLOPS", "capex": "Capex", "tco": "TCO", "dpu": "DPU", "c2c": "C2C",
}
LABELS = {  # names whose plain reading would mislead
    "other_racks": "Management and storage racks",
    "heaviest_rack_kg": "Heaviest rack",
    "rack_weight_unplanned_layouts_count": "Rack layouts of unknown weight",
    "heaviest_rack_lower_bound_kg": "Heaviest rack, at least",
    # power_supply table: what the shelves deliver (their DC output), not IT at the feeds
    "load_kw": "Load on shelves/PDUs",
    "degraded_bandwidth_fraction": "Bandwidth kept by the worst degraded GPU",  # NIC or NVLink rows
    "largest_placeable_job_gpus": "Largest job in one NVLink domain",
    "worst_single_failure_gpus": "Worst single failure, GPUs lost",
    "allreduce_busbw_8gib_domain_gbyte_s": "All-reduce 8 GiB, one domain",
    "allreduce_busbw_8gib_design_gbyte_s": "All-reduce 8 GiB, all GPUs",
    "capex_priced_usd": "Capex, priced lines",
    "capex_unpriced_sku_count": "Unpriced SKUs",
    "power_unknown_parts_count": "Parts with unpublished power",
    "power_unknown_kw_bound": "Unpublished parts could add",
    "it_power_kw": "IT power (design maximum)",
    "it_power_typical_kw": "IT power (typical)",
    "fabric_power_unknown_parts_count": "Fabric parts with unpublished power",
    "gpus_without_mamf_count": "GPUs without published MAMF",
    "pcie_max_oversubscription": "PCIe worst over-subscription",
    "peak_dense_pflops": "Peak dense", "achievable_pflops": "Achievable",
    "unit_price_usd": "Unit price", "extended_usd": "Extended",
    "gpu_hours_lost_per_year": "GPU-hours lost",
    "hbm_tbyte": "HBM capacity", "hbm_tbyte_s": "HBM bandwidth",
    "hbm_gib": "HBM capacity (vendor GB)",  # vendors' HBM GB are GiB: the unit says so
    "front_end_gbit_s_per_tray": "Front-end per tray",
    "cpu_memory_tbyte": "CPU memory", "cpu_memory_tbyte_s": "CPU memory bandwidth",
    "capex_completeness_fraction": "Capex lines priced",
    "it_power_mw": "IT power (design maximum)", "facility_power_mw": "Facility power",
    "max_it_kw_per_rack": "Highest IT per rack",
}
NOT_SUPPORTED = ("peak_dense_pflops", "peak_sparse_pflops", "peak_dense_pops",
                 "peak_sparse_pops")  # a 0 here is a precision the chip does not run: n/a


def metric_unit(name: str) -> str:
    """Unit of a metric from its name's suffix (``it_power_kw`` -> ``kW``)."""
    if name.startswith("peak_dense_pops"):
        return "POPS (dense)"
    if name.startswith("peak_sparse_pops"):
        return "POPS (sparse)"
    if name.startswith("allreduce_busbw"):
        return "GB/s busbw (predicted)"
    if "pflops" in name:
        if "sparse" in name:
            return "PFLOPS (sparse)"
        return "PFLOPS (dense)" if "dense" in name else "PFLOPS"
    for suffix, unit in SUFFIX_UNITS:
        if name.endswith(suffix):
            return unit
    return "count"


def shown_unit(name: str) -> str:
    """The unit a report writes beside a metric's value: :func:`metric_unit`, except
    ``count`` (the label says what is counted) and ``fraction`` (the value is a percent).

    >>> shown_unit("it_power_kw"), shown_unit("capex_completeness_fraction"), shown_unit("gpus")
    ('kW', '', '')
    """
    unit = metric_unit(name)
    if unit.startswith(("PFLOPS (", "POPS (")) and unit.split("(")[1][:-1] in name:
        return unit.split(" (")[0]  # "Peak dense BF16": PFLOPS, not PFLOPS (dense)
    return "" if unit in ("count", "fraction") else unit


def value_text(name: str, value) -> str:
    """A metric's value as every report writes it (the unit goes beside it).

    Unknown is ``unknown``, never 0; a peak FLOPS of 0 is a precision the chip does not
    run (``n/a``); a fraction is a percent with the digits it has; MW keep 3 decimals.

    Examples
    --------
    >>> value_text("peak_dense_pflops_fp4", 0), value_text("peak_dense_pflops_fp4", None)
    ('n/a', 'unknown')
    >>> value_text("capex_completeness_fraction", 0.0), value_text("x_fraction", 1 / 3)
    ('0%', '33.3%')
    >>> value_text("it_power_mw", 1.37405), value_text("gpus", 1016), value_text("kw", 40.8)
    ('1.374', '1,016', '40.8')
    """
    if value is None:
        return "unknown"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if not isinstance(value, (int, float)):
        return str(value)
    if value == 0 and name.startswith(NOT_SUPPORTED):
        return "n/a"
    if metric_unit(name) == "fraction":
        return f"{value:.1%}".replace(".0%", "%")
    if name.endswith("_mw"):
        return f"{value:,.3f}"
    if isinstance(value, float) and value % 1:
        return f"{value:,.2f}".rstrip("0").rstrip(".")
    return f"{value:,.0f}"


def metric_label(name: str) -> str:
    """Human label of a name, without its unit (``it_power_kw`` -> ``IT power``).

    Examples
    --------
    >>> metric_label("it_kw_per_rack"), metric_label("peak_dense_pflops_bf16")
    ('IT per rack', 'Peak dense BF16')
    >>> metric_label("degraded_bandwidth_fraction")
    'Bandwidth kept by the worst degraded GPU'
    """
    if name in LABELS:
        return LABELS[name]
    tokens = [t for t in name.split("_") if t]
    keep = [t for t in tokens if t not in UNIT_TOKENS] or tokens
    words = [WORDS.get(t, t) for t in keep]
    text = " ".join(w for w in words if w)
    text = text.replace("scale up", "scale-up").replace("scale out", "scale-out")
    return (text[:1].upper() + text[1:]) if text else name


def column_header(name: str) -> str:
    """Label with the unit in brackets (``it_kw_per_rack`` -> ``IT per rack (kW)``).

    Examples
    --------
    >>> column_header("it_kw_per_rack"), column_header("gpus_lost")
    ('IT per rack (kW)', 'GPUs lost')
    >>> column_header("scale_up_gbyte_s_per_gpu")
    'Scale-up per GPU (GB/s)'
    """
    label = metric_label(name)
    unit = column_unit(name)
    if unit and unit.startswith(("PFLOPS (", "POPS (")) and unit.split("(")[1][:-1] in name:
        unit = unit.split(" (")[0]  # "Peak dense BF16 (PFLOPS)", not "(PFLOPS (dense))"
    if not unit or unit in ("count", "ratio") or unit.startswith("ratio ("):
        return label
    for tail in (" per GPU", " per tray"):
        if unit.endswith(tail) and tail.strip().lower() in label.lower():
            unit = unit[: -len(tail)]
    if unit == "fraction":
        unit = "%"
    return f"{label} ({unit})"


COLUMN_TAILS = ("_per_rack", "_per_unit", "_total", "_per_gpu")
# number formats carry no unit text: the unit is in the label or the Unit column
NUMBER_FORMATS = {
    "kW": "#,##0.0", "MW": "#,##0.00", "W": "#,##0", "USD": '"$"#,##0',
    "GB/s": "#,##0.0", "TB/s": "#,##0.0", "Gb/s": "#,##0", "Tb/s": "#,##0.0", "TB": "#,##0.00",
    "PFLOPS": "#,##0.0", "PFLOPS (dense)": "#,##0.0", "POPS (dense)": "#,##0.0",
    "PFLOPS (sparse)": "#,##0.0", "POPS (sparse)": "#,##0.0",
    "ratio": "0.00", "ratio (demand / capacity)": '0.00"x"', "fraction": "0.0%",
    "GPUs": "#,##0", "count": "#,##0", "GB/s per GPU": "#,##0", "Gb/s per GPU": "#,##0",
    "Gb/s per tray": "#,##0", "U": "0", "hours": "#,##0.0", "minutes": "#,##0.0",
    "seconds": "#,##0.0", "per year": "#,##0.000", "per day": "#,##0.000",
    "GPU-hours per year": "#,##0",
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
