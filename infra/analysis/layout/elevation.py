"""Rack elevations: where each unit of a rack layout sits, by U, with its power and heat.

Assumptions
-----------
- A design lists a layout's contents top to bottom and gives no U positions, so units
  are stacked from the top U down in the listed order; the free space is left at the
  bottom. U numbers count from 1 at the bottom, as in NetBox's elevations.
- Units with no height (0U PDUs, in-rack CDUs whose height is unpublished) are listed
  with ``position_u`` None, as NetBox lists non-racked devices beside the elevation.
- Power per unit is :func:`infra.analysis.power.it_power.unit_power` (facility units such as
  power shelves and CDUs draw no IT power and show 0).

Examples
--------
>>> from infra.models.resolve import load_design
>>> from infra.analysis.power.it_power import design_power
>>> rd = load_design("designs/aws_nvl36x2.yaml")
>>> (e,) = rack_elevations(rd, design_power(rd))
>>> e.u_height, e.used_u, e.slots[0].position_u, e.slots[0].role
(48, 33.0, 48, 'tor (top)')
"""

from __future__ import annotations

from dataclasses import dataclass

from infra.analysis.power.it_power import NON_IT_KINDS, DesignPower, unit_power
from infra.models.resolve import LayoutItem, ResolvedDesign, ResolvedLayout


@dataclass(frozen=True)
class Slot:
    """One mounted unit (not a type: a 9-tray item gives nine slots)."""

    position_u: int | None  # lowest U the unit occupies; None for 0U units
    height_u: float
    slug: str
    name: str
    kind: str
    role: str | None
    power_w: float | None  # None: not published (facility units draw no IT power: 0)
    liquid_w: float | None
    air_w: float | None


@dataclass(frozen=True)
class RackElevation:
    layout: str
    rack_type: str
    racks: int
    u_height: int
    used_u: float
    it_kw: float
    liquid_kw: float
    air_kw: float
    slots: tuple[Slot, ...]


def rack_elevations(rd: ResolvedDesign, power: DesignPower) -> list[RackElevation]:
    """Front view of every rack layout the cluster uses, top U first.

    A slot is made once per (unit type, cooling, role, position) and shared by the
    layouts that hold that unit at that U (slots are frozen).
    """
    by_layout = {r.layout: r for r in power.racks}
    out = []
    powers: dict[tuple, tuple] = {}  # (part, cooling) -> _item_power: once per unit type
    made: dict[tuple, Slot] = {}  # (part, cooling, role, position) -> its slot
    for name, layout in rd.layouts.items():
        rp = by_layout.get(name)
        if rp is None:
            continue
        slots = []
        for item, pos in unit_positions(layout):
            key = (item.part.slug, item.cooling, item.role, pos)
            slot = made.get(key)
            if slot is None:
                pkey = key[:2]
                if pkey not in powers:
                    powers[pkey] = _item_power(item, rd)
                w, liq, air = powers[pkey]
                slot = made[key] = Slot(pos, float(getattr(item.part, "u_height", 0) or 0),
                                        item.part.slug, item.part.name, item.part.kind,
                                        item.role, w, liq, air)
            slots.append(slot)
        out.append(RackElevation(name, layout.rack.slug, rp.racks, layout.rack.u_height,
                                 layout.used_u, rp.it_kw, rp.liquid_kw, rp.air_kw, tuple(slots)))
    return out


def unit_positions(layout: ResolvedLayout) -> list[tuple[LayoutItem, int | None]]:
    """Every mounted unit of ``layout`` (one entry per unit) with the lowest U it
    occupies, stacked from the top U down in the listed order; None for 0U units."""
    top = layout.rack.u_height
    out = []
    for item in layout.items:
        h = float(getattr(item.part, "u_height", 0) or 0)
        for _ in range(item.count):
            pos = None
            if h:
                pos = int(round(top - h + 1))
                top -= h
            out.append((item, pos))
    return out


def _item_power(item: LayoutItem, rd: ResolvedDesign) -> tuple:
    """(W, liquid W, air W) of one unit; None where not published, 0 for facility units."""
    if isinstance(item.part, NON_IT_KINDS):
        return 0.0, 0.0, 0.0
    up = unit_power(item, rd.catalog)
    if item.part.slug in up.unknown:  # not published: unknown, not zero
        return None, None, None
    return up.power_w, up.liquid_w, up.air_w


def elevation_rows(elevations: list[RackElevation]) -> list[dict]:
    """One row per mounted unit, for the ``rack_elevation`` table.

    The columns that come from the unit (position onwards) are built once per slot and
    copied into each layout's row (slots are shared between layouts).
    """
    tails: dict[int, dict] = {}
    rows = []
    for e in elevations:
        for s in e.slots:
            tail = tails.get(id(s))
            if tail is None:
                tail = tails[id(s)] = {
                    "position_u": s.position_u, "height_u": s.height_u, "unit": s.slug,
                    "kind": s.kind, "role": s.role or "", "power_w": _r(s.power_w),
                    "liquid_w": _r(s.liquid_w), "air_w": _r(s.air_w)}
            rows.append({"layout": e.layout, "rack_type": e.rack_type, "racks": e.racks, **tail})
    return rows


RUN_KEYS = ("layout", "rack_type", "racks", "unit", "kind", "role", "height_u", "power_w",
            "liquid_w", "air_w")


def elevation_runs(rows: list[dict]) -> list[dict]:
    """The rack elevation with each run of identical stacked units on one row.

    A 1,000-layout hall has 35,000 mounted units; their runs are 5x fewer rows. A run
    keeps the U of its top and bottom units (``position_u`` of the per-unit rows), so
    every unit's position can still be read off.

    Examples
    --------
    >>> u = {"layout": "a", "rack_type": "r", "racks": 2, "unit": "t", "kind": "k",
    ...      "role": "", "height_u": 1.0, "power_w": 5.0, "liquid_w": 0.0, "air_w": 5.0}
    >>> runs = elevation_runs([{**u, "position_u": 9}, {**u, "position_u": 8},
    ...                        {**u, "position_u": 5}])
    >>> [(r["top_position_u"], r["bottom_position_u"], r["count"]) for r in runs]
    [(9, 8, 2), (5, 5, 1)]
    """
    out: list[dict] = []
    last = None
    for r in rows:
        key = tuple(r.get(k) for k in RUN_KEYS)
        pos, h = r.get("position_u"), r.get("height_u") or 0
        below = last[1]["bottom_position_u"] if last else None
        # the same unit, directly below the run's bottom (or, unplaced, after unplaced ones)
        if last and key == last[0] and (pos is None) == (below is None) and (
                pos is None or below - h == pos):
            last[1]["bottom_position_u"] = pos
            last[1]["count"] += 1
            continue
        run = {"layout": r.get("layout"), "rack_type": r.get("rack_type"),
               "racks": r.get("racks"), "top_position_u": pos, "bottom_position_u": pos,
               "count": 1, "height_u": r.get("height_u"), "unit": r.get("unit"),
               "kind": r.get("kind"), "role": r.get("role"),
               "power_w_per_unit": r.get("power_w"), "liquid_w_per_unit": r.get("liquid_w"),
               "air_w_per_unit": r.get("air_w")}
        out.append(run)
        last = (key, run)
    return out


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 2)
