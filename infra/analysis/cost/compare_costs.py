"""TCO inputs of a comparison, unrounded, for the live sheets of ``compare.xlsx``.

- :func:`tco_rows`: per option, capex, its scope and lower-bound note, GPUs, IT kW, PUE
  and dense PFLOPS of the cost precision, with the tool's own energy, maintenance,
  facility, TCO, NPV, $ per PFLOP-year and $ per GPU-hour beside them (the sheet
  recomputes these from the inputs).
- :func:`cash_flow_rows`: per option and year 0..N: capex in year 0; energy,
  maintenance and the facility charge (facility / N) in each year 1..N; the discount
  factor 1 / (1 + r)^t and the present value; their sum is the NPV.
- :func:`scenario_rows`: capex, TCO, NPV, $ per PFLOP-year and $ per GPU-hour at the low,
  base and high end of each price's published range (``low_usd`` / ``high_usd``; a
  price without a range uses its one figure in all three).
- :func:`chart_rows`: the figures the charts draw, with the bound each one is.
"""

from __future__ import annotations

from typing import Any

from infra.analysis.cost.compare_bounds import bound_of, lower_inputs
from infra.analysis.cost.tco import CATEGORIES, CostAssumptions
from infra.units import HOURS_PER_YEAR


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
            "npv_usd": o.tco.npv_usd,
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


def cash_flow_rows(options) -> list[dict]:
    """Year by year, per option: capex in year 0, then energy, maintenance and the
    facility charge in years 1..N; the present value of each year at the discount rate.

    Example: capex 3.1 M$, energy 100 k$, maintenance 155 k$, facility 476.6 k$ over 5
    years (95.3 k$ a year), r = 0: year 1 total = 100 + 155 + 95.3 = 350.3 k$; NPV =
    3,100 + 5 x 350.3 = 4,851.6 k$ = the TCO.
    """
    rows = []
    for o in options:
        t = o.tco
        n, r = t.years, t.discount_rate
        fac = t.facility_usd / n
        for year in range(n + 1):
            capex = t.capex_usd if year == 0 else 0.0
            energy = 0.0 if year == 0 else t.energy_usd_per_year
            maint = 0.0 if year == 0 else t.maintenance_usd_per_year
            facility = 0.0 if year == 0 else fac
            total = (None if capex is None or maint is None
                     else capex + energy + maint + facility)
            df = 1 / (1 + r) ** year
            rows.append({"option": o.label, "year": year, "capex_usd": capex,
                         "energy_usd": energy, "maintenance_usd": maint,
                         "facility_usd": facility, "total_usd": total, "discount_factor": df,
                         "present_value_usd": None if total is None else total * df})
    return rows


SCENARIOS = ("low", "base", "high")


def _scenario_price(price, scenario: str) -> float:
    if scenario == "low":
        return price.low_usd or price.usd
    if scenario == "high":
        return price.high_usd or price.usd
    return price.usd


def scenario_capex(capex, scenario: str) -> float | None:
    """Capex with every priced line at the ``scenario`` end of its price's range."""
    from infra.analysis.cost.capex import PRICED

    lines = [ln for ln in capex.lines if ln.status == PRICED]
    if not lines:
        return None
    return sum(ln.count * (_scenario_price(ln.price, scenario) if ln.price else ln.unit_usd)
               for ln in lines)


def scenario_rows(options, costs: CostAssumptions | None) -> list[dict]:
    """Per option and figure: its value with low, base and high prices (``low``, ``base``,
    ``high`` keys); energy and facility do not depend on prices, so only capex and what
    is built on it moves."""
    a = costs or CostAssumptions()
    rows = []
    for o in options:
        t, n = o.tco, o.block.built
        pf = o.block.dense_pflops.get(a.precision)
        pf = None if pf is None else pf * n
        gpus = o.block.gpus * n
        figures: dict[str, dict[str, float | None]] = {
            k: {} for k in ("capex_usd", "tco_usd", "npv_usd", "usd_per_dense_pflop_year",
                            "usd_per_gpu_hour")}
        for s in SCENARIOS:
            c = scenario_capex(o.capex, s)
            tco = (None if c is None else c + t.facility_usd + t.annuity_factor
                   * (t.energy_usd_per_year + c * a.maintenance_fraction_per_year))
            npv = (None if c is None else c + t.annuity_factor
                   * (t.energy_usd_per_year + c * a.maintenance_fraction_per_year
                      + t.facility_usd / t.years))
            hours = gpus * HOURS_PER_YEAR * t.years * a.utilisation_fraction
            figures["capex_usd"][s] = c
            figures["tco_usd"][s] = tco
            figures["npv_usd"][s] = npv
            figures["usd_per_dense_pflop_year"][s] = (
                tco / (pf * t.years) if tco is not None and pf else None)
            figures["usd_per_gpu_hour"][s] = tco / hours if tco is not None and hours else None
        lb = o.capex.priced_usd is not None and o.capex.is_lower_bound
        for k, v in figures.items():
            rows.append({"option": o.label, "figure": k, **v,
                         "bound": "lower" if lb else None})
    return rows


def _r(x: float | None, nd: int) -> float | None:
    return None if x is None else round(x, nd)


def chart_rows(options, value_ok, precision: str = "bf16") -> list[dict]:
    """Per option: PFLOPS per $M of capex and per facility MW; capex by category and the
    TCO parts (energy and maintenance as present values over the horizon, so the stack
    sums to the TCO); None where unknown, or where ``value_ok(option)`` says the capex
    may not be drawn. ``bounds`` maps each drawn figure that is a bound to ``"lower"`` or
    ``"upper"`` (:mod:`infra.analysis.cost.compare_bounds`)."""
    rows = []
    for o in options:
        pf = o.block.dense_pflops.get(precision)
        ok = value_ok(o)
        capex = o.capex.priced_usd if ok else None
        per_usd = f"peak_dense_pflops_{precision}_per_musd_capex"
        per_mw = f"peak_dense_pflops_{precision}_per_facility_mw"
        row = {"option": f"{o.label} [{o.capex.scope}]",
               per_usd: _r(pf * o.block.built / (capex / 1e6), 3) if pf and capex else None,
               per_mw: _r(pf / o.block.facility_mw, 2) if pf and o.block.facility_mw else None}
        cats = o.capex.by_category() if ok else {}
        for cat in CATEGORIES:
            row[f"capex_{cat}_usd"] = _r(cats.get(cat), 0)
        t, a = o.tco, o.tco.annuity_factor  # no TCO bar without its capex: unknown is not cheap
        row["energy_usd_tco"] = _r(a * t.energy_usd_per_year, 0) if ok else None
        m = t.maintenance_usd_per_year
        row["maintenance_usd_tco"] = _r(None if m is None or not ok else a * m, 0)
        row["facility_usd"] = _r(t.facility_usd, 0) if ok else None
        lower = lower_inputs(o.capex, o.metrics)
        row["bounds"] = {k: b for k, v in row.items() if k != "option" and v is not None
                         and (b := bound_of(k, lower))}
        rows.append(row)
    return rows
