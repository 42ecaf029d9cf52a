"""IT power per unit, rack and design, with the split of heat to liquid vs air.

Assumptions
-----------
- A unit's power is its published whole-system figure (``max_power_w``) when the
  catalog has one; otherwise the sum of its parts' TDP / max power plus the tray's
  declared ``overhead_w``. Parts with no published power are listed in ``unknown`` and
  the total is then a lower bound.
- Heat equals electrical power. Heat to liquid = power of the parts a tray marks
  ``cooling: liquid``; the rest (fans, boards, air-cooled parts) goes to air.
- Cooling units, power shelves and PDUs are facility equipment, not IT load; the
  facility figure is IT x PUE.
- Scale-out fabric switches and their switch-side optics are IT load outside the racks
  (``fabric_kw``); their power is added to the design's IT power, their heat to air.
"""

from __future__ import annotations

from dataclasses import dataclass

from infra.errors import InfeasibleDesignError
from infra.models.catalog import Catalog
from infra.models.expand import expand_tray
from infra.models.parts import NvlinkSwitchTray, Part, Superchip
from infra.models.resolve import LayoutItem, ResolvedDesign, ResolvedLayout
from infra.models.systems import ComputeTray, CoolingUnit, Pdu, PowerShelf
from infra.models.yamlio import line_of
from infra.units import w_to_kw

NON_IT_KINDS = (CoolingUnit, PowerShelf, Pdu)


@dataclass(frozen=True)
class UnitPower:
    slug: str
    kind: str
    power_w: float
    liquid_w: float
    air_w: float
    basis: str  # "published system figure" | "sum of parts"
    unknown: tuple[str, ...] = ()  # parts whose power is not published


@dataclass(frozen=True)
class RackPower:
    layout: str
    rack_type: str
    racks: int
    it_kw: float
    liquid_kw: float
    air_kw: float
    supply_kw: float | None  # installed power shelves + PDUs in the rack
    reference_it_kw: float | None  # published (often analyst) estimate for comparison
    units: tuple[tuple[UnitPower, int], ...]
    unknown: tuple[str, ...]


@dataclass(frozen=True)
class DesignPower:
    racks: tuple[RackPower, ...]
    it_kw: float  # racks + fabric
    facility_kw: float
    pue: float
    unknown: tuple[str, ...]
    fabric_kw: float = 0.0  # switches and switch-side optics outside the racks

    @property
    def is_lower_bound(self) -> bool:
        return bool(self.unknown)


def part_power_w(part: Part, catalog: Catalog) -> float | None:
    """Power of one component; a superchip without a module figure sums its chips."""
    if isinstance(part, Superchip) and part.tdp_w is None:
        cpu, gpu = catalog.get(part.cpu.type), catalog.get(part.gpus.type)
        if cpu.power_w is None or gpu.power_w is None:
            return None
        return part.cpu.count * cpu.power_w + part.gpus.count * gpu.power_w
    return part.power_w


def unit_power(item: LayoutItem | Part, catalog: Catalog) -> UnitPower:
    """Power and heat split of one rack-mounted unit."""
    part = item.part if isinstance(item, LayoutItem) else item
    medium = getattr(item, "cooling", None) or getattr(part, "cooling", None) or "air"
    if isinstance(part, ComputeTray):
        return _tray_power(part, catalog)
    if isinstance(part, NvlinkSwitchTray) and part.max_power_w is None:
        chip = catalog.get(part.chips.type)
        if chip.power_w is not None:
            w = chip.power_w * part.chips.count
            return UnitPower(part.slug, part.kind, w, w if medium == "liquid" else 0,
                             0 if medium == "liquid" else w, "sum of parts")
    w = part.power_w
    unknown = () if w is not None else (part.slug,)
    w = w or 0.0
    liquid = w if medium == "liquid" else 0.0
    return UnitPower(part.slug, part.kind, w, liquid, w - liquid, "published unit figure", unknown)


def _tray_power(tray: ComputeTray, catalog: Catalog) -> UnitPower:
    lay = expand_tray(tray, catalog)
    liquid = total = 0.0
    unknown: list[str] = []
    for inst in lay.instances.values():
        if inst.parent is not None:
            continue
        w = part_power_w(inst.part, catalog)
        if w is None:
            unknown.append(inst.part.slug)
            continue
        total += w
        if inst.component.cooling == "liquid":
            liquid += w
    if tray.max_power_w is not None:
        return UnitPower(tray.slug, tray.kind, tray.max_power_w, min(liquid, tray.max_power_w),
                         tray.max_power_w - min(liquid, tray.max_power_w),
                         "published system figure")
    if tray.overhead_w is None:
        unknown.append(f"{tray.slug} overhead (fans, board, drives)")
    total += tray.overhead_w or 0.0
    return UnitPower(tray.slug, tray.kind, total, liquid, total - liquid, "sum of parts",
                     tuple(sorted(set(unknown))))


def rack_power(rd: ResolvedDesign, layout: ResolvedLayout) -> RackPower:
    """IT power of one rack of ``layout``; error if it exceeds the rack's supply."""
    units = []
    it = liquid = 0.0
    unknown: list[str] = []
    supply = 0.0
    has_supply = False
    for item in layout.items:
        if isinstance(item.part, (PowerShelf, Pdu)):
            supply += item.part.capacity_kw * item.count
            has_supply = True
        if isinstance(item.part, NON_IT_KINDS):
            continue
        up = unit_power(item, rd.catalog)
        units.append((up, item.count))
        it += up.power_w * item.count
        liquid += up.liquid_w * item.count
        unknown.extend(up.unknown)
    rp = RackPower(layout.name, layout.rack.slug, rd.rack_counts.get(layout.name, 0),
                   w_to_kw(it), w_to_kw(liquid), w_to_kw(it - liquid),
                   supply if has_supply else None, layout.rack.reference_it_kw,
                   tuple(units), tuple(sorted(set(unknown))))
    _check_supply(rd, layout, rp)
    return rp


def _check_supply(rd: ResolvedDesign, layout: ResolvedLayout, rp: RackPower) -> None:
    path = ("racks", layout.name, "contents")
    limits = []
    if rp.supply_kw is not None:
        limits.append((rp.supply_kw, "its power shelves/PDUs supply", "add power shelves or PDUs"))
    if layout.rack.max_power_kw is not None:
        limits.append((layout.rack.max_power_kw, f"rack type {layout.rack.slug!r} is rated for",
                       "move units to another rack"))
    for limit, what, fix in limits:
        if rp.it_kw > limit + 1e-9:
            raise InfeasibleDesignError(
                f"rack layout {layout.name!r} draws {rp.it_kw:.1f} kW IT, {what} {limit:g} kW",
                file=str(rd.file), path=path, line=line_of(rd.file, path), hint=fix)


def design_power(rd: ResolvedDesign, fabrics: list | None = None) -> DesignPower:
    """Power of every rack layout, the fabrics (``FabricResult`` list) and the design."""
    racks = tuple(rack_power(rd, rd.layouts[n]) for n in rd.layouts if rd.rack_counts.get(n))
    fabric = sum(f.power_kw for f in fabrics or [])
    it = sum(r.it_kw * r.racks for r in racks) + fabric
    unknown = sorted({u for r in racks for u in r.unknown}
                     | {u for f in fabrics or [] for u in f.unknown_power})
    pue = rd.design.assumptions.pue
    return DesignPower(racks, it, it * pue, pue, tuple(unknown), fabric)
