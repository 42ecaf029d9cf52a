"""Capex from a price book, yearly energy and maintenance, facility, TCO over N years.

Assumptions
-----------
- Capex follows one pricing rule (:mod:`infra.analysis.cost.capex`): a price covers a unit's
  contents only when it says ``covers: contents``; unpriced lines make capex a lower
  bound and are listed. No price is ever invented.
- Energy: facility power (IT x PUE) drawn all year (8,760 h) at ``energy_usd_per_kwh``.
  IT power is the planning power of the power analysis (``it_power_kw``), so this is a
  full-load figure for the parts counted (a lower bound where a part's power is unknown).
- Maintenance: a fixed fraction of capex per year. Default 5 %: an assumption of this
  project (hardware-facts.md gives no figure); override with ``--maintenance``.
- Facility: build cost per MW of IT (critical) load x IT MW, charged for the share
  ``years / facility_life_years`` of the building's life (straight line). Default
  $11.7M per MW (Cushman & Wakefield 2025, average of 19 US markets, $9.3-15.0M; land,
  owner-furnished equipment and soft costs excluded) over 15 years (assumption).
  Set it to 0 for an existing hall.
- TCO = capex + facility + A x (energy + maintenance), A = sum over years t = 1..N of
  1 / (1 + discount rate)^t (A = N undiscounted, the default).
- NPV of the cash flow (capex in year 0; energy, maintenance and the facility charge
  facility / N in each year 1..N, all discounted) = capex + A x (energy + maintenance +
  facility / N); it equals the TCO when the discount rate is 0 (the TCO charges the
  facility share undiscounted, as a capital cost).
- $ per GPU-hour = TCO / (GPUs x 8,760 h x N x utilisation); default utilisation 1.0:
  every provisioned hour, the basis on which cloud GPU-hours are priced (e.g. AWS
  Capacity Blocks, hardware-facts.md section 4c).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from infra.analysis.cost.bom import bill_of_materials, tray_bill
from infra.analysis.cost.capex import (  # noqa: F401 - re-exported
    CATEGORIES, CATEGORY, INTEGRATED, Capex, CapexLine, price_bom)
from infra.errors import CompareError
from infra.models.parts import Part
from infra.models.prices import PriceBook
from infra.models.resolve import ResolvedDesign
from infra.models.systems import ComputeTray
from infra.units import HOURS_PER_YEAR

EIA_INDUSTRIAL_USD_PER_KWH = 0.0806  # US EIA industrial average 2023 [D] S37
DEFAULT_YEARS = 5
DEFAULT_MAINTENANCE_FRACTION = 0.05
UPTIME_2023_PUE = 1.58  # Uptime Institute survey average 2023 [AN] S37

FACILITY_USD_PER_MW = 11_700_000  # Cushman & Wakefield 2025, 19 US markets' average [3P]
FACILITY_SOURCE = ("Cushman & Wakefield, Data Center Development Cost Guide 2025: $11.7M per MW "
                   "of critical load, average of 19 US markets (range $9.3-15.0M; land, OFCI "
                   "equipment and soft costs excluded) [3P] "
                   "https://cushwake.cld.bz/Data-Center-Development-Cost-Guide-2025/8-9")
FACILITY_LIFE_YEARS = 15  # assumption: straight-line share of the building per TCO year


@dataclass(frozen=True)
class CostAssumptions:
    """Site and finance assumptions; every one is stated in the comparison output."""

    energy_usd_per_kwh: float = EIA_INDUSTRIAL_USD_PER_KWH
    energy_source: str = "US EIA industrial average 8.06 c/kWh (2023) [D] S37"
    pue: float | None = None  # None: each design's own PUE
    years: int = DEFAULT_YEARS
    maintenance_fraction_per_year: float = DEFAULT_MAINTENANCE_FRACTION
    maintenance_source: str = ("assumption: 5 % of capex per year (no public figure in "
                               "hardware-facts.md)")
    precision: str = "bf16"
    utilisation_fraction: float = 1.0
    discount_rate: float = 0.0
    facility_usd_per_mw: float = FACILITY_USD_PER_MW
    facility_source: str = FACILITY_SOURCE
    facility_life_years: float = FACILITY_LIFE_YEARS

    @property
    def annuity_factor(self) -> float:
        """Sum over years 1..N of 1 / (1 + r)^t (N when r = 0)."""
        r, n = self.discount_rate, self.years
        return float(n) if r == 0 else (1 - (1 + r) ** -n) / r

    @property
    def facility_share(self) -> float:
        """Share of the facility build cost charged to this TCO horizon."""
        return min(1.0, self.years / self.facility_life_years)

    def __post_init__(self) -> None:
        checks = [
            (math.isfinite(self.energy_usd_per_kwh) and self.energy_usd_per_kwh >= 0,
             f"energy price must be a finite number >= 0 USD/kWh, got {self.energy_usd_per_kwh}",
             "e.g. --energy-usd-per-kwh 0.0806"),
            (self.pue is None or 1.0 <= self.pue <= 3.0, f"PUE {self.pue} is outside 1.0-3.0",
             "e.g. --pue 1.2"),
            (self.years >= 1, f"years must be >= 1, got {self.years}", "e.g. --years 5"),
            (0 <= self.maintenance_fraction_per_year < 1,
             f"maintenance {self.maintenance_fraction_per_year} is not a fraction in [0, 1)",
             "e.g. --maintenance 0.05 for 5 % of capex per year"),
            (0 < self.utilisation_fraction <= 1,
             f"utilisation {self.utilisation_fraction} is not a fraction in (0, 1]",
             "e.g. --utilisation 0.8"),
            (math.isfinite(self.discount_rate) and 0 <= self.discount_rate < 1,
             f"discount rate {self.discount_rate} is not a fraction in [0, 1)",
             "e.g. --discount-rate 0.08"),
            (math.isfinite(self.facility_usd_per_mw) and self.facility_usd_per_mw >= 0,
             f"facility cost {self.facility_usd_per_mw} must be a finite number >= 0 USD/MW",
             "e.g. --facility-usd-per-mw 11700000, or 0 for an existing hall"),
            (self.facility_life_years > 0, "facility life must be > 0 years", "e.g. 15"),
        ]
        for ok, msg, hint in checks:
            if not ok:
                raise CompareError(msg, hint=hint)


@dataclass(frozen=True)
class Tco:
    """Cost of ownership over ``years``; USD figures are None where capex is unknown.

    With ``capex_is_lower_bound`` every figure built on capex is a lower bound too;
    ``capex_scope`` says what the priced capex covers.
    """

    capex_usd: float | None
    capex_is_lower_bound: bool
    energy_usd_per_year: float
    maintenance_usd_per_year: float | None
    years: int
    tco_usd: float | None
    usd_per_dense_pflop_year: float | None
    notes: tuple[str, ...] = field(default_factory=tuple)
    facility_usd: float = 0.0
    usd_per_gpu_hour: float | None = None
    capex_scope: str = "none"
    capex_completeness_fraction: float | None = None
    npv_usd: float | None = None  # capex + A x (energy + maintenance + facility / years)
    annuity_factor: float | None = None  # A: sum over years 1..N of 1 / (1 + r)^t
    discount_rate: float = 0.0


def design_capex(rd: ResolvedDesign, book: PriceBook,
                 cooling_units: dict[str, int | None] | None = None,
                 fabrics: list | None = None) -> Capex:
    """Capex lines of a design: its bill of materials priced under one rule.

    ``cooling_units`` maps pod-level cooling unit slugs to their count (None when the
    count is unknown, e.g. AWS IRHX of unpublished capacity).
    """
    return price_bom(bill_of_materials(rd, cooling_units, fabrics), book)


def tray_capex(tray: ComputeTray, parts, book: PriceBook, n: int = 1) -> Capex:
    """The capex of ``n`` trays/servers alone (``parts``: see
    :func:`~infra.analysis.cost.bom.tray_bill`)."""
    c = price_bom(tray_bill(tray, parts, n), book)
    return Capex(c.lines, cap="systems")


def gpu_capex(gpu: Part, book: PriceBook, n: int = 1) -> Capex:
    p = book.get(gpu.slug)
    return Capex((CapexLine("compute", gpu.slug, gpu.kind, n, p.usd if p else None, p,
                            line=1),), cap="gpus-only")


def total_cost(capex: Capex, it_kw: float, pue: float, dense_pflops: float | None,
               gpus: float, a: CostAssumptions) -> Tco:
    """TCO over ``a.years``: capex + facility + A x (energy + maintenance).

    Parameters
    ----------
    capex : Capex
    it_kw : float
        Planning IT power (kW); facility power is ``it_kw x pue``.
    pue : float
    dense_pflops : float or None
        Peak dense PFLOPS of ``a.precision`` (for $ per PFLOP-year).
    gpus : float
        GPUs (for $ per GPU-hour).
    a : CostAssumptions

    Examples
    --------
    One H100 at 700 W, PUE 1.58 -> 1.106 kW x 8,760 h x $0.0806 = $780.9 per year;
    facility 0.0007 MW x $11.7M x 5/15 = $2,730; TCO = 27,500 + 2,730 + 5 x (780.9 +
    5 % x 27,500) = $41,009; per GPU-hour 41,009 / (8,760 x 5) = $0.936:

    >>> c = Capex((CapexLine("compute", "h", "gpu", 1, 27500.0),))
    >>> t = total_cost(c, 0.7, 1.58, 0.989, 1, CostAssumptions())
    >>> round(t.energy_usd_per_year, 1), round(t.facility_usd), round(t.tco_usd)
    (780.9, 2730, 41009)
    >>> round(t.usd_per_gpu_hour, 3), round(t.npv_usd)  # undiscounted: NPV = TCO
    (0.936, 41009)
    """
    energy = it_kw * pue * HOURS_PER_YEAR * a.energy_usd_per_kwh
    facility = it_kw / 1000 * a.facility_usd_per_mw * a.facility_share
    usd = capex.priced_usd
    maint = None if usd is None else usd * a.maintenance_fraction_per_year
    tco = None if usd is None else usd + facility + a.annuity_factor * (energy + maint)
    per = (tco / (dense_pflops * a.years)) if tco is not None and dense_pflops else None
    hours = gpus * HOURS_PER_YEAR * a.years * a.utilisation_fraction
    gpu_h = tco / hours if tco is not None and hours else None
    npv = (None if usd is None else
           usd + a.annuity_factor * (energy + maint + facility / a.years))
    return Tco(usd, capex.is_lower_bound, energy, maint, a.years, tco, per, (), facility,
               gpu_h, capex.scope, capex.completeness, npv, a.annuity_factor, a.discount_rate)
