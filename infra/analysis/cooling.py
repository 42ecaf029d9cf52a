"""Cooling: heat to liquid and to air per rack, and the cooling units that remove it.

Assumptions
-----------
- In-rack units (CDUs) serve the rack they are mounted in.
- A pod's in-row/room units serve the heat of their medium from the pod's racks that
  have no in-rack unit for it.
- Units needed = ceil(heat / capacity). Modular in-row heat exchangers are sized in
  modules (fan cabinets) when a module capacity is published; when no capacity is
  published the count is reported as unknown, never guessed.
- Liquid heat with no unit to remove it is an error; air heat with no air unit is
  assumed to go to the hall's existing air handling (reported as such), as does the heat
  of fabric switches, which sit outside the modelled racks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from infra.errors import InfeasibleDesignError
from infra.models.resolve import ResolvedDesign
from infra.models.systems import CoolingUnit
from infra.models.yamlio import line_of

from infra.analysis.power import DesignPower


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

    @property
    def total_units(self) -> int | None:
        n = self.installed if self.installed is not None else self.needed
        return None if n is None else n * self.instances


@dataclass(frozen=True)
class DesignCooling:
    rows: tuple[CoolingRow, ...]
    liquid_kw: float
    air_kw: float
    air_to_hall_kw: float  # air heat no listed unit removes

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
    by_layout = {r.layout: r for r in power.racks}
    covered: dict[str, set[str]] = {name: set() for name in by_layout}
    for name, rp in by_layout.items():
        for item in rd.layouts[name].of_kind("cooling_unit"):
            unit: CoolingUnit = item.part  # type: ignore[assignment]
            heat = _heat(unit.removes, rp.liquid_kw, rp.air_kw)
            row = _size(unit, heat, item.count, f"rack:{name}", rp.racks)
            _check(rd, row, ("racks", name, "contents"))
            rows.append(row)
            covered[name].update(_media(unit.removes))
    air_to_hall = 0.0
    for use in rd.pod_cooling:
        heat = sum(_heat(use.unit.removes, by_layout[ln].liquid_kw, by_layout[ln].air_kw) * n
                   for ln, n in use.racks if not covered[ln] & _media(use.unit.removes))
        row = _size(use.unit, heat, use.explicit_count, f"pod:{use.pod}", use.pod_count)
        _check(rd, row, ("pods", use.pod, "cooling"))
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
                line=line_of(rd.file, path),
                hint="mount an in-rack CDU or list an in-row unit under the pod's 'cooling:'")
        if "air" not in covered[name]:
            air_to_hall += rp.air_kw * rp.racks
    liquid = sum(r.liquid_kw * r.racks for r in power.racks)
    # fabric switches sit outside the modelled racks: their heat goes to the hall's air
    air = sum(r.air_kw * r.racks for r in power.racks) + power.fabric_kw
    return DesignCooling(tuple(rows), liquid, air, air_to_hall + power.fabric_kw)


def _media(removes: str) -> set[str]:
    return {"liquid", "air"} if removes == "both" else {removes}


def _heat(removes: str, liquid_kw: float, air_kw: float) -> float:
    return {"liquid": liquid_kw, "air": air_kw, "both": liquid_kw + air_kw}[removes]


def _size(unit: CoolingUnit, heat: float, installed: int | None, scope: str, instances: int) -> CoolingRow:
    if unit.capacity_kw is not None:
        cap, sized_in = unit.capacity_kw, "units"
    else:
        cap, sized_in = unit.module_capacity_kw, unit.module_name or "modules"
    needed = math.ceil(heat / cap - 1e-9) if cap else None
    note = "" if cap else f"{unit.slug}: capacity not published; count unknown"
    return CoolingRow(unit.slug, unit.cooling_kind, scope, unit.removes, heat, cap, sized_in,
                      needed, installed, instances, note)


def _check(rd: ResolvedDesign, row: CoolingRow, path: tuple) -> None:
    if row.capacity_kw is None or row.installed is None or row.sized_in != "units":
        return
    if row.installed * row.capacity_kw + 1e-9 < row.heat_kw:
        raise InfeasibleDesignError(
            f"{row.installed} x {row.unit} remove {row.installed * row.capacity_kw:g} kW, "
            f"short of the {row.heat_kw:.1f} kW {row.removes} heat load ({row.scope})",
            file=str(rd.file), path=path, line=line_of(rd.file, path),
            hint=f"use {row.needed} units or a larger unit")
