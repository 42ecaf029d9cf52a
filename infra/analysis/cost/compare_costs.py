"""TCO inputs of a comparison, unrounded, for the live TCO sheet of ``compare.xlsx``.

Per option: capex, its scope and lower-bound note, GPUs, IT kW, PUE and dense PFLOPS of
the cost precision, with the tool's own energy, maintenance, facility, TCO, $ per
PFLOP-year and $ per GPU-hour beside them (the sheet recomputes these from the inputs).
"""

from __future__ import annotations

from typing import Any

from infra.analysis.cost.tco import CostAssumptions


def tco_rows(options, costs: CostAssumptions | None) -> list[dict]:
    """One row per option (:class:`infra.analysis.cost.compare.Option`)."""
    prec = costs.precision if costs else "bf16"
    rows = []
    for o in options:
        b, n = o.block, o.block.built
        pf = b.dense_pflops.get(prec)
        rows.append({
            "option": o.label, "capex_usd": o.capex.priced_usd,
            "capex_scope": o.capex.scope,
            "capex_lower_bound": (o.capex.lower_bound_note
                                  if o.capex.priced_usd is not None else "unknown"),
            "gpus": b.gpus * n, "it_power_kw": b.it_mw * 1000 * n,
            "pue_ratio": o.metrics.get("pue_ratio"),
            f"peak_dense_pflops_{prec}": None if pf is None else pf * n,
            "energy_usd_per_year": o.tco.energy_usd_per_year,
            "maintenance_usd_per_year": o.tco.maintenance_usd_per_year,
            "facility_usd": o.tco.facility_usd, "tco_usd": o.tco.tco_usd,
            f"usd_per_dense_pflop_year_{prec}": o.tco.usd_per_dense_pflop_year,
            "usd_per_gpu_hour": o.tco.usd_per_gpu_hour})
    return rows


def cost_inputs(a: CostAssumptions) -> dict[str, Any]:
    """The cost assumptions as numbers, with the sources of the cited defaults.

    Examples
    --------
    >>> cost_inputs(CostAssumptions())["facility_usd_per_mw"]
    11700000
    """
    return {"energy_usd_per_kwh": a.energy_usd_per_kwh, "pue": a.pue,
            "utilisation_fraction": a.utilisation_fraction, "years": a.years,
            "maintenance_fraction_per_year": a.maintenance_fraction_per_year,
            "discount_rate": a.discount_rate, "facility_usd_per_mw": a.facility_usd_per_mw,
            "facility_life_years": a.facility_life_years, "precision": a.precision,
            "sources": {"energy_usd_per_kwh": a.energy_source,
                        "maintenance_fraction_per_year": a.maintenance_source,
                        "facility_usd_per_mw": a.facility_source}}
