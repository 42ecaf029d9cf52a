"""Cooling: heat to liquid and to air per rack, and the cooling units that remove it.

Assumptions
-----------
- In-rack units (CDUs) serve the rack they are mounted in.
- A pod's in-row/room units serve the heat of their medium from the pod's racks that
  have no in-rack unit for it.
- Units needed = ceil(heat / capacity). Units the analysis sizes (a pod's ``cooling:``
  entry with no ``count``) get N+1: one spare, so one unit's failure leaves no heat
  unremoved (a CDU serving an SU would otherwise take every GPU it cools with it);
  the entry's ``spares`` sets another number (0: N). Listed units short of the heat are a
  finding (:mod:`infra.analysis.findings`), with every figure still computed, and so
  are listed units short of N + ``spares`` when the design states ``spares``. Modular in-row heat exchangers are sized in
  modules (fan cabinets) when a module capacity is published; when no capacity is
  published the count is reported as unknown, never guessed.
- Liquid heat with no unit to remove it is an error; air heat with no air unit is
  assumed to go to the hall's existing air handling (reported as such), as does the heat
  of fabric switches, which sit outside the modelled racks.
- Plausibility errors: liquid-cooled parts in a rack type rated air-only; a CDU mounted
  in an air-only rack; a wholly air-cooled unit in a rack type rated liquid-only.
- Warning: air heat per rack above ``assumptions.air_heat_limit_kw_per_rack``, by default
  :data:`AIR_HEAT_LIMIT_KW` (hardware-facts.md §8: practical air-cooled limit ~25-30 kW per
  rack [AN, STH 2024 and industry guides]; the top of that range is taken).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from infra.analysis.findings import Finding
from infra.errors import LOCATE, InfeasibleDesignError
from infra.models.resolve import ResolvedDesign
from infra.models.systems import CoolingUnit

from infra.analysis.power.it_power import DesignPower

AIR_HEAT_LIMIT_KW = 30.0
AIR_HEAT_LIMIT_SOURCE = ("practical air-cooled rack limit ~25-30 kW (hardware-facts.md §8; "
                         "ServeTheHome 2024 and industry guides, AN); upper end taken")


@dataclass(frozen=True)
class CoolingRow:
    """One cooling unit type, where it sits, the heat it must remove and how many."""

    unit: str
    cooling_kind: str
    scope: str  # "rack:<layout>" or "pod:<pod>"
    removes: str
    heat_kw: float  # per rack / per pod instance
    capacity_kw: float | None  # per unit (or per module)
    sized_in: str  # "units" or the module name
    needed: int | None  # per rack / per pod instance; None = capacity unpublished
    installed: int | None  # units the design lists (per rack / pod), None = sized here
    instances: int  # racks or pod instances in the cluster
    note: str = ""
    spares: int = 0  # beyond ``needed``: added when sized here (default 1), required if stated

    @property
    def units(self) -> int | None:
        """Units per rack / pod instance: those listed, else needed + spares (None: unknown)."""
        if self.installed is not None:
            return self.installed
        return None if self.needed is None else self.needed + self.spares

    @property
    def total_units(self) -> int | None:
        n = self.units
        return None if n is None else n * self.instances


@dataclass(frozen=True)
class DesignCooling:
    rows: tuple[CoolingRow, ...]
    liquid_kw: float
    air_kw: float
    air_to_hall_kw: float  # air heat no listed unit removes
    warnings: tuple[str, ...] = ()
    air_limit_kw: float = AIR_HEAT_LIMIT_KW
    air_limit_source: str = AIR_HEAT_LIMIT_SOURCE
    findings: tuple[Finding, ...] = ()  # listed units short of the heat they must remove

    def unit_counts(self) -> dict[str, int | None]:
        """Pod-level unit slug -> units in the cluster; None when a count is unknown
        (capacity unpublished), never a guessed 1."""
        out: dict[str, int | None] = {}
        for r in self.rows:
            if r.scope.startswith("pod:"):
                n, prev = r.total_units, out.get(r.unit, 0)
                out[r.unit] = None if n is None or prev is None else prev + n
        return out


def design_cooling(rd: ResolvedDesign, power: DesignPower) -> DesignCooling:
    """Size cooling units against each rack's and pod's heat; raise when short."""
    rows: list[CoolingRow] = []
    findings: list[Finding] = []
    by_layout = {r.layout: r for r in power.racks}
    for name, rp in by_layout.items():
        _plausible(rd, name, rp)
    covered: dict[str, set[str]] = {name: set() for name in by_layout}
    for name, rp in by_layout.items():
        for item in rd.layouts[name].of_kind("cooling_unit"):
            unit: CoolingUnit = item.part  # type: ignore[assignment]
            heat = _heat(unit.removes, rp.liquid_kw, rp.air_kw)
            row = _size(unit, heat, item.count, f"rack:{name}", rp.racks)
            findings += _check(rd, row, ("racks", name, "contents"))
            rows.append(row)
            covered[name].update(_media(unit.removes))
    air_to_hall = 0.0
    for use in rd.pod_cooling:
        heat = sum(_heat(use.unit.removes, by_layout[ln].liquid_kw, by_layout[ln].air_kw) * n
                   for ln, n in use.racks if not covered[ln] & _media(use.unit.removes))
        row = _size(use.unit, heat, use.explicit_count, f"pod:{use.pod}", use.pod_count,
                    _spares(rd, use))
        findings += _check(rd, row, ("pods", use.pod, "cooling"))
        rows.append(row)
        pod_racks = [ln for ln, _ in use.racks]
        for ln in pod_racks:
            covered[ln].update(_media(use.unit.removes))
    for name, rp in by_layout.items():
        if rp.liquid_kw > 0 and "liquid" not in covered[name]:
            path = ("racks", name)
            raise InfeasibleDesignError(
                f"{rp.liquid_kw:.1f} kW of liquid heat per rack of {name!r} has no CDU or heat "
                "exchanger to remove it", file=str(rd.file), path=path,
                line=LOCATE,
                hint="mount an in-rack CDU or list an in-row unit under the pod's 'cooling:'")
        if "air" not in covered[name]:
            air_to_hall += rp.air_kw * rp.racks
    liquid = sum(r.liquid_kw * r.racks for r in power.racks)
    # fabric switches and storage units sit outside the modelled racks and node-end optics
    # are not in any rack layout's units: their heat goes to the hall's air
    extra = power.fabric_kw + power.node_optics_kw + power.scaleup_cables_kw + power.storage_kw
    air = sum(r.air_kw * r.racks for r in power.racks) + extra
    a = rd.design.assumptions
    limit = a.air_heat_limit_kw_per_rack or AIR_HEAT_LIMIT_KW
    src = "design (assumptions.air_heat_limit_kw_per_rack)" if a.air_heat_limit_kw_per_rack \
        else AIR_HEAT_LIMIT_SOURCE
    warns = tuple(
        f"rack layout {r.layout!r}: {r.air_kw:.1f} kW of air heat per rack is above the "
        f"{limit:g} kW air-cooled rack limit ({src}); plan rear-door heat exchangers, "
        "containment or liquid cooling" for r in power.racks if r.air_kw > limit + 1e-9)
    return DesignCooling(tuple(rows), liquid, air, air_to_hall + extra, warns, limit, src,
                         tuple(findings))


def _plausible(rd: ResolvedDesign, name: str, rp) -> None:
    """Errors for cooling that cannot work: liquid in an air rack, air units in a liquid one."""
    layout = rd.layouts[name]
    rack = layout.rack
    path = ("racks", name, "contents")
    for i, item in enumerate(layout.items):
        p = item.part
        if rack.cooling == "air" and isinstance(p, CoolingUnit) and p.removes != "air":
            raise InfeasibleDesignError(
                f"{p.slug!r} (a {p.cooling_kind.replace('_', ' ')}) is mounted in rack type "
                f"{rack.slug!r}, which is air-cooled and has no liquid loop for it",
                file=str(rd.file), path=path + (i,), line=LOCATE,
                hint="use a liquid or hybrid rack type, or remove the CDU")
    for up, _n in rp.units:
        where = ("racks", name)
        if rack.cooling == "air" and up.liquid_w > 0:
            raise InfeasibleDesignError(
                f"{up.slug!r} sends {up.liquid_w / 1000:.2f} kW to liquid but rack type "
                f"{rack.slug!r} is air-cooled", file=str(rd.file), path=where,
                line=LOCATE,
                hint="use a liquid or hybrid rack type (with a CDU or in-row unit)")
        if rack.cooling == "liquid" and up.power_w > 0 and up.liquid_w == 0:
            raise InfeasibleDesignError(
                f"{up.slug!r} is wholly air-cooled ({up.air_w / 1000:.2f} kW to air) but rack "
                f"type {rack.slug!r} is liquid-cooled only", file=str(rd.file), path=where,
                line=LOCATE,
                hint="use a hybrid rack type, or mark the unit 'cooling: liquid' if it is")


def _media(removes: str) -> set[str]:
    return {"liquid", "air"} if removes == "both" else {removes}


def _heat(removes: str, liquid_kw: float, air_kw: float) -> float:
    return {"liquid": liquid_kw, "air": air_kw, "both": liquid_kw + air_kw}[removes]


def _spares(rd: ResolvedDesign, use) -> int | None:
    """The ``spares`` the design states for this pod's unit (None: not stated)."""
    pod = rd.design.pods.get(use.pod)
    for c in (pod.cooling if pod else ()):
        if c.type == use.unit.slug:
            return c.spares
    return None


def _size(unit: CoolingUnit, heat: float, installed: int | None, scope: str, instances: int,
          spares: int | None = None) -> CoolingRow:
    if unit.capacity_kw is not None:
        cap, sized_in = unit.capacity_kw, "units"
    else:
        cap, sized_in = unit.module_capacity_kw, unit.module_name or "modules"
    needed = math.ceil(heat / cap - 1e-9) if cap else None
    note = "" if cap else f"{unit.slug}: capacity not published; count unknown"
    if installed is None and spares is None:
        spares = 1  # sized here: N+1 unless the design says otherwise
    if cap and spares is not None:
        what = "sized here" if installed is None else "required by the design"
        note = f"N+{spares} ({what}; cooling entry's spares)" if spares else \
            f"N, no spare ({what}; cooling entry's spares: 0)"
    return CoolingRow(unit.slug, unit.cooling_kind, scope, unit.removes, heat, cap, sized_in,
                      needed, installed, instances, note, spares or 0)


def _check(rd: ResolvedDesign, row: CoolingRow, path: tuple) -> list[Finding]:
    if row.capacity_kw is None or row.installed is None or row.sized_in != "units":
        return []
    if row.installed * row.capacity_kw + 1e-9 < row.heat_kw:
        return [Finding.at("cooling_capacity",
            f"{row.installed} x {row.unit} remove {row.installed * row.capacity_kw:g} kW, "
            f"short of the {row.heat_kw:.1f} kW {row.removes} heat load ({row.scope})",
            file=rd.file, path=path, line=LOCATE,
            hint=f"use {row.needed} units or a larger unit")]
    if row.needed is not None and row.installed < row.needed + row.spares:
        return [Finding.at("cooling_redundancy",
            f"{row.installed} x {row.unit} for a {row.heat_kw:.1f} kW {row.removes} heat load "
            f"({row.scope}): {row.needed} carry it, the design asks for {row.spares} spare(s) "
            f"(N+{row.spares} = {row.needed + row.spares})",
            file=rd.file, path=path, line=LOCATE,
            hint=f"list {row.needed + row.spares} units, or lower spares")]
    return []
