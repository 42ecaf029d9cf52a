"""Label, unit and number format of each comparison row, shared by the compare workbook
and page: the cost and ratio rows spelled out (``$ per GPU-hour``, ``PFLOPS per facility
MW``) with formats that keep their digits; every other row from
:mod:`infra.reports.labels`.

Examples
--------
>>> row_style("usd_per_gpu_hour")
('$ per GPU-hour', 'USD', '"$"#,##0.000')
>>> row_style("tco_usd_7y")[0], row_style("peak_dense_pflops_bf16_per_facility_mw")[:2]
('TCO over 7 years', ('Peak dense BF16 per facility MW', 'PFLOPS per MW'))
"""

from __future__ import annotations

import re

from infra.reports.labels import metric_label, metric_unit, number_format

USD = '"$"#,##0'
FIXED = {
    "energy_usd_per_year": ("Energy per year", "USD", USD),
    "maintenance_usd_per_year": ("Maintenance per year", "USD", USD),
    "facility_usd": ("Facility over the horizon", "USD", USD),
    "usd_per_gpu_hour": ("$ per GPU-hour", "USD", '"$"#,##0.000'),
    "capex_lower_bound": ("Capex complete?", "", None),
    "capex_is_lower_bound": ("Capex is a lower bound", "", None),
    "gpus_per_facility_mw": ("GPUs per facility MW", "per MW", "#,##0.0"),
    "racks_per_facility_mw": ("Racks per facility MW", "per MW", "#,##0.00"),
    "racks": ("Racks (compute + network)", "", "#,##0"),
    "it_power_kw_per_rack": ("IT power per rack, average of all racks", "kW", "#,##0.00"),
    "peak_dense_tflops_bf16_per_1000_usd": ("Peak dense BF16 TFLOPS per $1,000",
                                            "TFLOPS per $1,000", "#,##0.00"),
    "hbm_gib_per_1000_usd": ("HBM per $1,000", "GiB per $1,000", "#,##0.00"),
    "peak_dense_tflops_bf16_per_w": ("Peak dense BF16 TFLOPS per W", "TFLOPS per W", "0.00"),
    "price_usd": ("Price", "USD", USD),
    "train_tokens": ("Tokens trained", "tokens", "#,##0"),
    "train_usd_per_run": ("Cost of the training run", "USD", USD),
    "train_usd_per_million_tokens": ("$ per million tokens trained", "USD", '"$"#,##0.000'),
    "design_rule_findings": ("Design-rule findings", "", None),
}


def row_style(metric: str) -> tuple[str, str, str | None]:
    """``(label, unit, number format)`` of a comparison row (format None: General)."""
    if metric in FIXED:
        return FIXED[metric]
    if m := re.fullmatch(r"tco_usd_(\d+)y", metric):
        return f"TCO over {m[1]} years", "USD", USD
    if m := re.fullmatch(r"usd_per_dense_pflop_year_(\w+)", metric):
        return f"$ per dense {m[1].upper()} PFLOP-year", "USD", USD
    for tail, per, short in (("_per_facility_mw", "facility MW", "MW"),
                             ("_per_musd_capex", "$M of capex", "$M")):
        if metric.endswith(tail):
            head = metric[: -len(tail)]
            unit = metric_unit(head).replace(" (dense)", "")
            return f"{metric_label(head)} per {per}", f"{unit} per {short}", "#,##0.0"
    unit = metric_unit(metric)
    return metric_label(metric), "" if unit in ("count", "fraction") else unit, number_format(unit)


def cell_format(metric: str, value) -> str | None:
    """The row's number format, with two decimals where a whole-number format would hide
    a fraction (1.25 NICs per GPU is not '1')."""
    fmt = row_style(metric)[2]
    if fmt in ("#,##0", None) and isinstance(value, float) and value % 1:
        return "#,##0.00##"
    return fmt


__all__ = ["cell_format", "row_style"]
