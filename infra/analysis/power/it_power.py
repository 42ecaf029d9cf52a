"""IT power per unit, rack and design: the design maximum (what feeds and cooling must
carry), the typical draw, and the split of heat to liquid vs air, part by part.

Assumptions
-----------
- A unit's maximum is its published whole-system figure (``max_power_w``) when the
  catalog has one; otherwise the sum of its parts' maxima (TDP / max power, or a stated
  estimate) plus the tray's declared ``overhead_w`` (fans, board, drives, BMC, board
  power conversion). Typical = the published typical figure, else the maximum.
- Parts with no figure are listed in ``unknown`` with their stated bound (``power_bound_w``);
  the total is then a lower bound and ``unknown_bound_kw`` says by how much at most.
- Heat equals electrical power. Heat to liquid = power of the parts a tray marks
  ``cooling: liquid``; the rest (fans, boards, air-cooled parts, overhead) goes to air.
- Cooling units, power shelves and PDUs are facility equipment, not IT load; the
  facility figure is IT x PUE. Power-shelf conversion loss is added to IT (as air heat)
  only where a shelf publishes its efficiency.
- Scale-out fabric switches and their switch-side optics are IT load outside the racks
  (``fabric_kw``). So are the design's storage units (``storage:``, ``storage_kw``:
  units x the storage part's maximum; air heat), except an entry marked
  ``it_load: false`` (a site-wide system the cluster only reaches). Node-end optics (and the node half of active cables) are added to IT
  for nodes whose power is a sum of parts; a published system maximum already covers
  the optics in its own cages.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from infra.analysis.power.power_figures import PartFigure, check_overrides, overrides_of, part_figure
from infra.analysis.power.supply import RackSupply, check_supply, rack_supply
from infra.models.parts import NvlinkSwitchTray, Part
from infra.models.resolve import LayoutItem, ResolvedDesign, ResolvedLayout
from infra.models.systems import ComputeTray, CoolingUnit, Pdu, PowerShelf
from infra.units import w_to_kw

NON_IT_KINDS = (CoolingUnit, PowerShelf, Pdu)


@dataclass(frozen=True)
class PartPower:
    """One part type inside one unit: count, per-part figures, heat path, tag."""

    slug: str
    count: int
    max_w: float | None  # per part; None = unknown
    typical_w: float | None
    medium: str  # "liquid" | "air"
    tag: str
    bound_w: float | None = None  # per part, for unknowns

    @property
    def total_max_w(self) -> float:
        return self.count * (self.max_w or 0.0)


@dataclass(frozen=True)
class UnitPower:
    slug: str
    kind: str
    power_w: float  # maximum
    liquid_w: float
    air_w: float
    basis: str  # "published system figure" | "sum of parts" | "published unit figure"
    unknown: tuple[str, ...] = ()  # parts whose power is not published
    typical_w: float = 0.0
    parts: tuple[PartPower, ...] = ()
    unknown_bound_w: float | None = 0.0  # None: an unknown part has no stated bound
    parts_sum_w: float | None = None  # sum of parts beside a published system figure
    tag: str = ""  # tag of the figure used (unit-level figures)


@dataclass(frozen=True)
class RackPower:
    layout: str
    rack_type: str
    racks: int
    it_kw: float  # design maximum per rack
    liquid_kw: float
    air_kw: float
    supply_kw: float | None  # installed power shelves + PDUs in the rack
    reference_it_kw: float | None  # published (often analyst) estimate for comparison
    units: tuple[tuple[UnitPower, int], ...]
    unknown: tuple[str, ...]
    it_typical_kw: float = 0.0
    unknown_bound_kw: float | None = 0.0
    supply: RackSupply | None = None
    findings: tuple = ()  # design-rule findings (infra.analysis.findings.Finding)


@dataclass(frozen=True)
class DesignPower:
    racks: tuple[RackPower, ...]
    it_kw: float  # racks + fabric + node-end optics: the design maximum
    facility_kw: float
    pue: float
    unknown: tuple[str, ...]
    fabric_kw: float = 0.0  # switches and switch-side optics outside the racks
    it_typical_kw: float = 0.0
    unknown_bound_kw: float | None = 0.0  # None: some unknown has no stated bound
    node_optics_kw: float = 0.0  # node-end optics of sum-of-parts nodes (in it_kw)
    fabric_typical_kw: float = 0.0
    scaleup_cables_kw: float = 0.0  # active cables joining NVLink switch trays across racks
    overrides: tuple[tuple[str, float | None, float | None, str], ...] = ()
    storage_kw: float = 0.0  # storage units of the design (in it_kw; air heat)
    storage_typical_kw: float = 0.0

    @property
    def is_lower_bound(self) -> bool:
        return bool(self.unknown)


def part_power_w(part: Part, parts) -> float | None:
    """Maximum power of one component (a superchip without a module figure sums its chips)."""
    return part_figure(part, parts).max_w


def unit_power(item: LayoutItem | Part, parts, overrides: dict | None = None) -> UnitPower:
    """Power and heat split of one rack-mounted unit. ``parts``: where its parts and tray
    layout come from (the resolved design, or :class:`~infra.models.expand.CatalogParts`
    for a part compared outside a design)."""
    part = item.part if isinstance(item, LayoutItem) else item
    medium = getattr(item, "cooling", None) or getattr(part, "cooling", None) or "air"
    if medium not in ("liquid", "air"):
        medium = "air"
    if isinstance(part, ComputeTray):
        return _tray_power(part, parts, overrides)
    f = part_figure(part, parts, overrides)
    basis = "published unit figure"
    if f.unknown and isinstance(part, NvlinkSwitchTray):
        chip = part_figure(parts.get(part.chips.type), parts, overrides)
        if not chip.unknown:
            n = part.chips.count
            f, basis = PartFigure(chip.max_w * n, chip.typical_w * n, chip.tag), "sum of parts"
    line = PartPower(part.slug, 1, f.max_w, f.typical_w, medium, f.tag, f.bound_w)
    return _unit(part, (line,), basis, tag=f.tag)


def _unit(part: Part, lines: tuple[PartPower, ...], basis: str, **kw) -> UnitPower:
    mx = sum(p.total_max_w for p in lines)
    liquid = sum(p.total_max_w for p in lines if p.medium == "liquid")
    typ = sum(p.count * (p.typical_w or 0.0) for p in lines)
    unknown = tuple(sorted({p.slug for p in lines if p.max_w is None}))
    bounds = [p.count * p.bound_w if p.bound_w else None for p in lines if p.max_w is None]
    bound = None if any(b is None for b in bounds) else sum(bounds)
    return UnitPower(part.slug, part.kind, mx, liquid, mx - liquid, basis, unknown, typ, lines,
                     bound, **kw)


def _tray_power(tray: ComputeTray, parts, overrides: dict | None) -> UnitPower:
    lay = parts.tray_layout(tray)
    counts: dict[tuple[str, str], int] = {}
    tops: dict[str, Part] = {}
    for inst in lay.instances.values():
        if inst.parent is None:
            key = (inst.part.slug, inst.component.cooling)
            counts[key] = counts.get(key, 0) + 1
            tops[inst.part.slug] = inst.part
    lines = []
    for (slug, medium), n in counts.items():
        f = part_figure(tops[slug], parts, overrides)
        lines.append(PartPower(slug, n, f.max_w, f.typical_w, medium, f.tag, f.bound_w))
    over = f"{tray.slug} overhead (fans, board, drives)"
    if tray.overhead_w is not None:
        typ = tray.overhead_typical_w if tray.overhead_typical_w is not None else tray.overhead_w
        lines.append(PartPower(over, 1, tray.overhead_w, typ, "air",
                               tray.source_of("overhead_w").tag))
    elif tray.max_power_w is None:
        lines.append(PartPower(over, 1, None, None, "air", "unknown"))
    own = part_figure(tray, parts, overrides)
    summed = _unit(tray, tuple(lines), "sum of parts")
    if own.unknown:
        return summed
    liquid = min(summed.liquid_w, own.max_w)
    return UnitPower(tray.slug, tray.kind, own.max_w, liquid, own.max_w - liquid,
                     "published system figure", (), own.typical_w, summed.parts, 0.0,
                     summed.power_w, own.tag)


def rack_power(rd: ResolvedDesign, layout: ResolvedLayout,
               cache: dict | None = None) -> RackPower:
    """IT power of one rack of ``layout``; error if it exceeds the rack's usable supply.

    ``cache`` (part slug, cooling) -> UnitPower is shared between the layouts of one
    design, so each unit type is priced in watts once, not once per layout.
    """
    overrides = overrides_of(rd.design)
    cache = {} if cache is None else cache
    units = []
    for item in layout.items:
        if isinstance(item.part, NON_IT_KINDS):
            continue
        key = (item.part.slug, item.cooling)
        if key not in cache:
            cache[key] = unit_power(item, rd, overrides)
        units.append((cache[key], item.count))
    it = sum(u.power_w * n for u, n in units)
    liquid = sum(u.liquid_w * n for u, n in units)
    typ = sum(u.typical_w * n for u, n in units)
    loss = _conversion_loss_w(layout, it)
    bounds = [None if u.unknown_bound_w is None else u.unknown_bound_w * n for u, n in units]
    bound = None if any(b is None for b in bounds) else w_to_kw(sum(bounds))
    # the shelves' rating is their DC output: they carry the DC load, not the AC they draw
    sup = rack_supply(rd, layout, w_to_kw(it))
    rp = RackPower(layout.name, layout.rack.slug, rd.rack_counts.get(layout.name, 0),
                   w_to_kw(it + loss), w_to_kw(liquid), w_to_kw(it + loss - liquid),
                   sup.installed_kw if sup else None, _reference_kw(layout.rack),
                   tuple(units), tuple(sorted({x for u, _ in units for x in u.unknown})),
                   w_to_kw(typ + _conversion_loss_w(layout, typ)), bound, sup)
    found = check_supply(rd, layout, rp.it_kw, sup, supplied_kw=w_to_kw(it))
    return dataclasses.replace(rp, findings=found) if found else rp


def _reference_kw(rack) -> float | None:
    if rack.reference_it_kw is not None:
        return rack.reference_it_kw
    return next((e.max_kw for e in rack.envelopes if e.max_kw), None)


def _conversion_loss_w(layout: ResolvedLayout, load_w: float) -> float:
    """AC->DC loss of the rack's power shelves, where every shelf publishes an efficiency."""
    shelves = [i.part for i in layout.items if isinstance(i.part, PowerShelf)]
    if not shelves or any(s.efficiency is None for s in shelves):
        return 0.0
    eff = min(s.efficiency for s in shelves)
    return load_w * (1 / eff - 1)


def design_power(rd: ResolvedDesign, fabrics: list | None = None) -> DesignPower:
    """Power of every rack layout, the fabrics (``FabricResult`` list) and the design."""
    fabrics = fabrics or []
    check_overrides(rd)
    units: dict = {}
    racks = tuple(rack_power(rd, rd.layouts[n], units) for n in rd.layouts
                  if rd.rack_counts.get(n))
    fabric = sum(f.power_kw for f in fabrics)
    fabric_typ = sum(getattr(f, "power_typical_kw", f.power_kw) for f in fabrics)
    share = _summed_node_share(rd, racks)
    node = share * sum(f.node_optics_kw for f in fabrics)
    node_typ = share * sum(getattr(f, "node_optics_typical_kw", f.node_optics_kw) for f in fabrics)
    xr, xr_typ = _scaleup_cables_kw(rd)
    st, st_typ, st_unknown, st_bound = storage_power_kw(rd)
    it = sum(r.it_kw * r.racks for r in racks) + fabric + node + xr + st
    typ = sum(r.it_typical_kw * r.racks for r in racks) + fabric_typ + node_typ + xr_typ + st_typ
    unknown = sorted({u for r in racks for u in r.unknown} | {u for f in fabrics for u in f.unknown_power}
                     | set(st_unknown))
    bounds = [None if r.unknown_bound_kw is None else r.unknown_bound_kw * r.racks for r in racks]
    # a fabric's unknown parts are bounded by their power_bound_w as a rack's are
    bounds += [None if getattr(f, "unknown_bound_w", None) is None and f.unknown_power
               else w_to_kw(getattr(f, "unknown_bound_w", 0.0) or 0.0) for f in fabrics]
    bounds.append(st_bound)
    bound = None if any(b is None for b in bounds) else sum(bounds)
    pue = rd.design.assumptions.pue
    ov = tuple((o.type, o.max_w, o.typical_w, o.source) for o in rd.design.power_overrides)
    return DesignPower(racks, it, it * pue, pue, tuple(unknown), fabric, typ, bound, node,
                       fabric_typ, xr, ov, st, st_typ)


def storage_power_kw(rd: ResolvedDesign) -> tuple[float, float, tuple[str, ...], float | None]:
    """(max kW, typical kW, unknown slugs, kW bound of the unknowns) of the design's
    storage units: ``count`` x the storage part's figure (a design's power override
    applies), for every ``storage:`` entry but those marked ``it_load: false``.

    Examples
    --------
    >>> from infra.models.resolve import load_design
    >>> mx, typ, unknown, bound = storage_power_kw(load_design("designs/gb200_nvl72_576.yaml"))
    >>> round(mx, 3), unknown
    (5.0, ())
    """
    overrides = overrides_of(rd.design)
    mx = typ = 0.0
    unknown: list[str] = []
    bound: float | None = 0.0
    for name, spec in rd.design.storage.items():
        if not spec.it_load:
            continue
        part = rd.part(spec.type, "storage_system", path=("storage", name, "type"))
        f = part_figure(part, rd, overrides)
        if f.unknown:
            unknown.append(part.slug)
            bound = None if bound is None or f.bound_w is None else bound + spec.count * f.bound_w
            continue
        mx += spec.count * f.max_w
        typ += spec.count * f.typical_w
    return (w_to_kw(mx), w_to_kw(typ), tuple(sorted(set(unknown))),
            None if bound is None else w_to_kw(bound))


def _scaleup_cables_kw(rd: ResolvedDesign) -> tuple[float, float]:
    """Max and typical kW of the cable sets joining switch trays across racks (NVL36x2):
    per-link cable power x the domain's cross-rack links x domains."""
    shapes = [s for s in rd.domain_shapes if s.cross_rack_cable is not None]
    if not shapes:
        return 0.0, 0.0
    from infra.topology.scaleup import scale_up_domains

    mx = typ = 0.0
    for shape, dom in zip(rd.domain_shapes, scale_up_domains(rd)):
        c = shape.cross_rack_cable
        if c is None or not dom.cross_rack_links:
            continue
        f = part_figure(c, rd, overrides_of(rd.design))
        links = dom.cross_rack_links * dom.count
        mx += links * (f.max_w or 0.0)
        typ += links * (f.typical_w or 0.0)
    return w_to_kw(mx), w_to_kw(typ)


def _summed_node_share(rd: ResolvedDesign, racks: tuple[RackPower, ...]) -> float:
    """Fraction of the compute trays whose power is a sum of parts (their node-end optics
    are not inside a published system figure)."""
    total = summed = 0
    for r in racks:
        for u, n in r.units:
            if u.kind == "compute_tray":
                total += n * r.racks
                summed += n * r.racks if u.basis == "sum of parts" else 0
    return summed / total if total else 0.0
