"""Capex from a price book, yearly energy and maintenance, TCO over N years.

Assumptions
-----------
- A price covers the unit as the catalog and reference designs populate it. The walk
  goes top-down (rack -> rack units -> tray parts -> superchip parts) and stops at the
  first priced unit, so nothing is counted twice. An unpriced unit whose parts are
  priced is still listed as unpriced (its chassis, boards, fans, memory...).
- Capex sums the priced lines only; when any line is unpriced it is a **lower bound**
  and the unpriced SKUs are listed. No price is ever invented.
- Energy: facility power (IT x PUE) drawn all year (8,760 h) at ``energy_usd_per_kwh``.
  IT power is the sum of TDP / published maxima, so this is a full-load upper bound
  on energy for the parts counted (and a lower bound where a part's power is unknown).
- Maintenance: a fixed fraction of capex per year. Default 5 %: an assumption of this
  project (hardware-facts.md gives no figure); override with ``--maintenance``.
- TCO = capex + years x (energy + maintenance); no discounting, no facility build cost,
  no staff, no network fabric unless the design prices it.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from infra.errors import CompareError
from infra.models.catalog import Catalog
from infra.models.expand import expand_tray
from infra.models.parts import NvlinkSwitchTray, Part, Superchip
from infra.models.prices import Price, PriceBook
from infra.models.resolve import ResolvedDesign
from infra.models.systems import ComputeTray
from infra.units import HOURS_PER_YEAR

EIA_INDUSTRIAL_USD_PER_KWH = 0.0806  # US EIA industrial average 2023 [D] S37
DEFAULT_YEARS = 5
DEFAULT_MAINTENANCE_FRACTION = 0.05
UPTIME_2023_PUE = 1.58  # Uptime Institute survey average 2023 [AN] S37

CATEGORY = {
    "rack": "racks", "compute_tray": "compute", "superchip": "compute", "gpu": "compute",
    "cpu": "compute", "pcie_switch": "compute", "nic": "network_nics",
    "nvlink_switch_tray": "scale_up_nvlink", "nvlink_switch_chip": "scale_up_nvlink",
    "network_switch": "network_switches", "rack_unit": "rack_units",
    "optic": "network_optics_cables", "cable": "network_optics_cables",
    "power_shelf": "power", "pdu": "power", "cooling_unit": "cooling",
}
CATEGORIES = ("integrated_rack_system", "compute", "scale_up_nvlink", "network_nics",
              "network_switches", "network_optics_cables", "rack_units", "power", "cooling",
              "racks")
INTEGRATED = "integrated_rack_system"


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
        ]
        for ok, msg, hint in checks:
            if not ok:
                raise CompareError(msg, hint=hint)


@dataclass(frozen=True)
class CapexLine:
    category: str
    slug: str
    kind: str
    count: int | None  # None: the count is unknown (e.g. cooling units of unpublished capacity)
    unit_usd: float | None
    price: Price | None = None
    note: str = ""

    @property
    def total_usd(self) -> float | None:
        if self.unit_usd is None or self.count is None:
            return None
        return self.unit_usd * self.count


@dataclass(frozen=True)
class Capex:
    lines: tuple[CapexLine, ...]

    @property
    def priced_usd(self) -> float | None:
        """Sum of priced lines; None when nothing is priced."""
        totals = [ln.total_usd for ln in self.lines if ln.total_usd is not None]
        return sum(totals) if totals else None

    @property
    def unpriced(self) -> list[str]:
        return sorted({ln.slug for ln in self.lines if ln.total_usd is None})

    @property
    def is_lower_bound(self) -> bool:
        return bool(self.unpriced)

    def by_category(self) -> dict[str, float]:
        out: dict[str, float] = defaultdict(float)
        for ln in self.lines:
            if ln.total_usd is not None:
                out[ln.category] += ln.total_usd
        return dict(out)

    def prices(self) -> list[Price]:
        return list({ln.price.slug: ln.price for ln in self.lines if ln.price}.values())

    def scaled(self, factor: float) -> Capex:
        """Capex of ``factor`` times as many of everything (counts stay fractional)."""
        return Capex(tuple(CapexLine(ln.category, ln.slug, ln.kind,
                                     None if ln.count is None else ln.count * factor,
                                     ln.unit_usd, ln.price, ln.note) for ln in self.lines))


@dataclass(frozen=True)
class Tco:
    capex_usd: float | None
    capex_is_lower_bound: bool
    energy_usd_per_year: float
    maintenance_usd_per_year: float | None
    years: int
    tco_usd: float | None
    usd_per_dense_pflop_year: float | None
    notes: tuple[str, ...] = field(default_factory=tuple)


class _Walker:
    """Collects capex lines top-down, stopping at the first priced unit."""

    def __init__(self, catalog: Catalog, book: PriceBook) -> None:
        self.catalog, self.book = catalog, book
        self.lines: list[CapexLine] = []

    def add(self, part: Part, n: int | None, note: str = "", category: str | None = None) -> bool:
        p = self.book.get(part.slug)
        self.lines.append(CapexLine(category or CATEGORY.get(part.kind, part.kind), part.slug,
                                    part.kind, n, p.usd if p else None, p, note))
        return p is not None

    def unit(self, part: Part, n: int) -> None:
        if isinstance(part, ComputeTray):
            if not self.add(part, n, "tray chassis, boards, memory beyond its listed parts"):
                self.tray_parts(part, n)
        elif isinstance(part, NvlinkSwitchTray):
            if not self.add(part, n, "switch tray beyond its switch chips"):
                self.add(self.catalog.get(part.chips.type), n * part.chips.count)
        else:
            self.add(part, n)

    def tray_parts(self, tray: ComputeTray, n: int) -> None:
        lay = expand_tray(tray, self.catalog)
        top: Counter = Counter()
        inner: dict[str, Counter] = defaultdict(Counter)
        parts: dict[str, Part] = {}
        for inst in lay.instances.values():
            parts[inst.part.slug] = inst.part
            if inst.parent is None:
                top[inst.part.slug] += 1
            else:
                inner[lay.instances[inst.parent].part.slug][inst.part.slug] += 1
        for slug, k in top.items():
            part = parts[slug]
            if isinstance(part, Superchip):
                if not self.add(part, n * k, "module beyond its CPU and GPUs"):
                    for child, m in inner[slug].items():
                        self.add(parts[child], n * m)
            else:
                self.add(part, n * k)


def design_capex(rd: ResolvedDesign, book: PriceBook,
                 cooling_units: dict[str, int | None] | None = None,
                 fabrics: list | None = None) -> Capex:
    """Capex lines of a design: racks, their contents, cross-rack cables, pod cooling.

    ``cooling_units`` maps pod-level cooling unit slugs to their count (None when the
    count is unknown, e.g. AWS IRHX of unpublished capacity).
    """
    w = _Walker(rd.catalog, book)
    for lname, racks in rd.rack_counts.items():
        lay = rd.layouts[lname]
        if w.add(lay.rack, racks, "populated rack system (contents included)", INTEGRATED
                 if book.get(lay.rack.slug) else None):
            continue
        for item in lay.items:
            w.unit(item.part, racks * item.count)
    for shape in rd.domain_shapes:
        if shape.cross_rack_cable is not None:
            w.add(shape.cross_rack_cable, shape.count, "cross-rack NVLink cable set")
    for slug, n in (cooling_units or {}).items():
        w.add(rd.catalog.get(slug), n, "" if n is not None else "count unknown")
    for f in fabrics or []:  # switches, optics and cables of the scale-out fabrics
        for t in f.tiers:
            w.add(rd.catalog.get(t.switch), t.switches, f"fabric {f.name} ({t.role})")
        for slug, n in f.transceivers.items():
            w.add(rd.catalog.get(slug), n, f"fabric {f.name}")
        for slug, n in f.cables.items():
            if slug in rd.catalog:
                w.add(rd.catalog.get(slug), n, f"fabric {f.name}")
            else:  # generic fibre: no SKU chosen, so no price
                w.lines.append(CapexLine(CATEGORY["cable"], "fibre-link", "cable", n, None,
                                         None, f"fabric {f.name}: fibre, SKU not chosen"))
    return Capex(tuple(w.lines))


def tray_capex(tray: ComputeTray, catalog: Catalog, book: PriceBook, n: int = 1) -> Capex:
    w = _Walker(catalog, book)
    w.unit(tray, n)
    return Capex(tuple(w.lines))


def gpu_capex(gpu: Part, book: PriceBook, n: int = 1) -> Capex:
    p = book.get(gpu.slug)
    return Capex((CapexLine("compute", gpu.slug, gpu.kind, n, p.usd if p else None, p),))


def total_cost(capex: Capex, facility_kw: float, dense_pflops: float | None,
               a: CostAssumptions) -> Tco:
    """TCO over ``a.years``: capex + years x (energy at full facility power + maintenance).

    Examples
    --------
    One H100 at 700 W, PUE 1.58 -> 1.106 kW x 8,760 h x $0.0806 = $780.9 per year;
    TCO = 27,500 + 5 x (780.9 + 5 % x 27,500) = $38,279:

    >>> c = Capex((CapexLine("compute", "h", "gpu", 1, 27500.0),))
    >>> t = total_cost(c, 0.7 * 1.58, 0.989, CostAssumptions())
    >>> round(t.energy_usd_per_year, 1), round(t.tco_usd)
    (780.9, 38279)
    """
    energy = facility_kw * HOURS_PER_YEAR * a.energy_usd_per_kwh
    usd = capex.priced_usd
    maint = None if usd is None else usd * a.maintenance_fraction_per_year
    tco = None if usd is None else usd + a.years * (energy + maint)
    per = (tco / (dense_pflops * a.years)) if tco is not None and dense_pflops else None
    return Tco(usd, capex.is_lower_bound, energy, maint, a.years, tco, per)
