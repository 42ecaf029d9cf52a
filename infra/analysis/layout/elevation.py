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

    The slots of an item are worked out once per (unit type, cooling, role, count, U it
    starts below) and shared by every layout that stacks that item there (slots are
    frozen): a hall of 1,000 layouts repeats the same few runs.
    """
    by_layout = {r.layout: r for r in power.racks}
    out = []
    powers: dict[tuple, tuple] = {}  # (part, cooling) -> _item_power: once per unit type
    made: dict[tuple, Slot] = {}  # (part, cooling, role, position) -> its slot
    runs: dict[tuple, tuple] = {}  # (part, cooling, role, count, top) -> (slots, top after)
    for name, layout in rd.layouts.items():
        rp = by_layout.get(name)
        if rp is None:
            continue
        slots: list[Slot] = []
        top = layout.rack.u_height
        for item in layout.items:
            key = (item.part.slug, item.cooling, item.role, item.count, top)
            run = runs.get(key)
            if run is None:
                run = runs[key] = _stack(item, top, rd, powers, made)
            slots.extend(run[0])
            top = run[1]
        out.append(RackElevation(name, layout.rack.slug, rp.racks, layout.rack.u_height,
                                 layout.used_u, rp.it_kw, rp.liquid_kw, rp.air_kw, tuple(slots)))
    return out


def _stack(item: LayoutItem, top, rd: ResolvedDesign, powers: dict, made: dict) -> tuple:
    """The slots of ``item`` stacked down from ``top`` (as :func:`unit_positions`
    stacks them), and the top left for the next item."""
    h = float(getattr(item.part, "u_height", 0) or 0)
    pkey = (item.part.slug, item.cooling)
    if pkey not in powers:
        powers[pkey] = _item_power(item, rd)
    w, liq, air = powers[pkey]
    slots = []
    positions, top = _stacked(h, item.count, top)
    for pos in positions:
        key = (item.part.slug, item.cooling, item.role, pos)
        slot = made.get(key)
        if slot is None:
            slot = made[key] = Slot(pos, h, item.part.slug, item.part.name, item.part.kind,
                                    item.role, w, liq, air)
        slots.append(slot)
    return tuple(slots), top


def unit_positions(layout: ResolvedLayout) -> list[tuple[LayoutItem, int | None]]:
    """Every mounted unit of ``layout`` (one entry per unit) with the lowest U it
    occupies, stacked from the top U down in the listed order; None for 0U units
    (worked out once per layout: layouts are frozen)."""
    cached = layout.__dict__.get("_unit_positions")
    if cached is None:
        top = layout.rack.u_height
        out = []
        for item in layout.items:
            positions, top = _stacked(float(getattr(item.part, "u_height", 0) or 0),
                                      item.count, top)
            out += [(item, pos) for pos in positions]
        cached = layout.__dict__["_unit_positions"] = tuple(out)
    return list(cached)


def _stacked(h: float, count: int, top: float) -> tuple[list[int | None], float]:
    """The lowest U of each of ``count`` units ``h`` U high stacked down from ``top``
    (None for 0U units, which take no space), and the top left for what follows."""
    if not h:
        return [None] * count, top
    out = []
    for _ in range(count):
        out.append(int(round(top - h + 1)))
        top -= h
    return out, top


def _item_power(item: LayoutItem, rd: ResolvedDesign) -> tuple:
    """(W, liquid W, air W) of one unit; None where not published, 0 for facility units."""
    if isinstance(item.part, NON_IT_KINDS):
        return 0.0, 0.0, 0.0
    up = unit_power(item, rd)
    if item.part.slug in up.unknown:  # not published: unknown, not zero
        return None, None, None
    return up.power_w, up.liquid_w, up.air_w


def elevation_rows(elevations: list[RackElevation]) -> list[dict]:
    """One row per mounted unit (the ``rack_elevation`` table of JSON format 1; the table
    now holds :func:`elevation_run_rows`).

    The columns that come from the unit (position onwards) are built once per slot and
    copied into each layout's row (slots are shared between layouts).
    """
    tails: dict[int, dict] = {}
    rows = []
    for e in elevations:
        head = {"layout": e.layout, "rack_type": e.rack_type, "racks": e.racks}
        for s in e.slots:
            tail = tails.get(id(s))
            if tail is None:
                tail = tails[id(s)] = {
                    "position_u": s.position_u, "height_u": s.height_u, "unit": s.slug,
                    "kind": s.kind, "role": s.role or "", "power_w": _r(s.power_w),
                    "liquid_w": _r(s.liquid_w), "air_w": _r(s.air_w)}
            rows.append({**head, **tail})
    return rows


def elevation_run_rows(elevations: list[RackElevation]) -> list[dict]:
    """The ``rack_elevation`` table: one row per run of identical stacked units.

    The same rows as ``elevation_runs(elevation_rows(elevations))``, built from the
    slots without making the per-unit rows first (each slot's columns once: slots are
    shared between layouts).
    """
    cols: dict[int, tuple] = {}  # id(slot) -> (run columns, position, height)
    out: list[dict] = []
    run: dict | None = None  # the open run; its bottom and count are kept in locals
    run_head = run_unit = bottom = None
    count = 0
    for e in elevations:
        head = (e.layout, e.rack_type, e.racks)
        same_head = run is not None and run_head == head
        for s in e.slots:
            c = cols.get(id(s))
            if c is None:
                c = cols[id(s)] = ((s.slug, s.kind, s.role or "", s.height_u, _r(s.power_w),
                                    _r(s.liquid_w), _r(s.air_w)), s.position_u, s.height_u or 0)
            unit, pos, h = c
            if same_head and unit == run_unit and (pos is None) == (bottom is None) and (
                    pos is None or bottom - h == pos):
                bottom = pos
                count += 1
                continue
            if run is not None:
                run["bottom_position_u"], run["count"] = bottom, count
            slug, kind, role, height, w, liq, air = unit
            run = {"layout": e.layout, "rack_type": e.rack_type, "racks": e.racks,
                   "top_position_u": pos, "bottom_position_u": pos, "count": 1,
                   "height_u": height, "unit": slug, "kind": kind, "role": role,
                   "power_w_per_unit": w, "liquid_w_per_unit": liq, "air_w_per_unit": air}
            out.append(run)
            run_head, run_unit, bottom, count, same_head = head, unit, pos, 1, True
    if run is not None:
        run["bottom_position_u"], run["count"] = bottom, count
    return out


RUN_KEYS = ("layout", "rack_type", "racks", "unit", "kind", "role", "height_u", "power_w",
            "liquid_w", "air_w")


def elevation_runs(rows: list[dict]) -> list[dict]:
    """The rack elevation with each run of identical stacked units on one row.

    A 1,000-layout hall has 35,000 mounted units; their runs are 5x fewer rows. A run
    keeps the U of its top and bottom units (``position_u`` of the per-unit rows), so
    every unit's position can still be read off. Rows that are runs already (the
    ``rack_elevation`` table of JSON format 2, with ``top_position_u``) are returned as
    they are.

    Examples
    --------
    >>> u = {"layout": "a", "rack_type": "r", "racks": 2, "unit": "t", "kind": "k",
    ...      "role": "", "height_u": 1.0, "power_w": 5.0, "liquid_w": 0.0, "air_w": 5.0}
    >>> runs = elevation_runs([{**u, "position_u": 9}, {**u, "position_u": 8},
    ...                        {**u, "position_u": 5}])
    >>> [(r["top_position_u"], r["bottom_position_u"], r["count"]) for r in runs]
    [(9, 8, 2), (5, 5, 1)]
    """
    if rows and "top_position_u" in rows[0]:
        return list(rows)
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
