"""Plain-text terminal summary of a design analysis (no figure is computed here)."""

from __future__ import annotations

from typing import Any

from infra.reports.labels import metric_unit

HEADLINE = [
    "gpus", "cpus", "racks", "compute_trays", "hbm_tbyte", "hbm_tbyte_s",
    "cpu_memory_tbyte", "combined_memory_tbyte",
    "peak_dense_pflops_bf16", "peak_dense_pflops_fp8", "peak_dense_pflops_fp4",
    "peak_sparse_pflops_fp4", "achievable_pflops_bf16", "it_power_kw", "facility_power_kw",
    "liquid_heat_kw", "air_heat_kw", "scale_up_domains", "scale_up_domain_gpus",
    "scale_up_gbyte_s_per_gpu", "scale_up_bisection_gbyte_s",
    "scale_up_domain_combined_memory_tbyte", "scale_up_max_oversubscription_ratio",
    "scale_out_gbit_s_per_gpu_nominal", "scale_out_gbit_s_per_gpu_effective",
    "front_end_gbit_s_per_tray", "pcie_max_oversubscription", "worst_single_failure_gpus",
    "fabric_tiers", "leaf_switches", "spine_switches", "core_switches", "transceivers",
    "scale_out_bisection_tbit_s", "fabric_power_kw",
]


def fmt(value: Any, none: str = "unknown") -> str:
    if value is None:
        return none
    if isinstance(value, float):
        return f"{value:,.2f}".rstrip("0").rstrip(".") if value % 1 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def table(rows: list[dict], columns: list[str] | None = None, none: str = "-") -> str:
    """Fixed-width text table of ``rows`` (list of dicts)."""
    if not rows:
        return "  (none)"
    cols = columns or list(rows[0])
    cells = [[fmt(r.get(c), none) for c in cols] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
    line = "  " + "  ".join(c.ljust(w) for c, w in zip(cols, widths))
    out = [line, "  " + "  ".join("-" * w for w in widths)]
    # a column is right-aligned only when all its cells are numbers (or blanks)
    numeric = [all(_num(row[i]) or row[i] in ("-", "n/a", "unknown", "") for row in cells)
               for i in range(len(cols))]
    for row in cells:
        out.append("  " + "  ".join(v.rjust(w) if numeric[i] else v.ljust(w)
                                    for i, (v, w) in enumerate(zip(row, widths))))
    return "\n".join(out)


def _num(text: str) -> bool:
    return text.replace(",", "").replace(".", "").replace("-", "").isdigit()


def render_summary(data: dict[str, Any], extra_metrics: list[str] | None = None) -> str:
    """Terminal summary of the JSON-contract dict."""
    m, t = data["metrics"], data["tables"]
    out = [f"{data['design']['name']}  ({data['design']['source_file']})", ""]
    keys = HEADLINE + [k for k in (extra_metrics or []) if k in m]
    width = max(len(k) for k in keys)
    for k in keys:
        if k in m and not (k.startswith(("fabric_", "leaf_", "spine_", "core_", "transceivers",
                                          "scale_out_bisection")) and not t.get("fabric")):
            out.append(f"  {k.ljust(width)}  {fmt(m[k]):>12}  {metric_unit(k)}")
    out += ["", "Bill of materials (by kind):"]
    bom = [{"kind": r["kind"], "sku": r["slug"], "count": r["count"]}
           for r in t["bill_of_materials"]]
    out.append(table(bom))
    out += ["", "Power per rack:"]
    out.append(table(t["power_by_rack"], ["layout", "racks", "it_kw_per_rack", "liquid_kw_per_rack",
                                          "air_kw_per_rack", "supply_kw_per_rack",
                                          "published_estimate_kw_per_rack"]))
    out += ["", "Cooling:"]
    out.append(table(t["cooling"], ["unit", "scope", "removes", "heat_kw", "capacity_kw",
                                     "needed", "installed", "total_units"]))
    out += ["", "Per-GPU bandwidth by tray type (per direction):"]
    out.append(table(t["bandwidth"], ["tray", "trays", "scale_up_domain_gpus",
                                       "scale_up_gbyte_s_per_gpu", "scale_out_gbit_s_per_gpu_nominal",
                                       "scale_out_gbit_s_per_gpu_effective",
                                       "pcie_max_oversubscription", "worst_link"]))
    if t.get("fabric"):
        out += ["", "Fabric tiers:"]
        out.append(table(t["fabric"], ["fabric", "role", "switch", "switches", "radix",
                                        "down_links", "ports_free", "lower_end_transceivers",
                                        "switch_end_transceivers", "cables"]))
    out += ["", f"Blast radius ({data['tables']['assumptions'][1]['value']} NVLink partitions):"]
    out.append(table(t["blast_radius"], ["component_kind", "component", "count", "gpus_lost",
                                          "gpus_degraded", "degraded_bandwidth_fraction",
                                          "domains_broken", "largest_placeable_job_gpus"]))
    notes = [a for a in t["assumptions"] if a["item"] != "note"]
    if notes:
        out += ["", "Assumptions and gaps:"]
        out += [f"  - {a['item']}: {fmt(a['value'])}" for a in notes]
    return "\n".join(out) + "\n"
