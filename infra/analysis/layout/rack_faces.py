"""Rack instances and rear faces of each rack layout, for NetBox-style elevations.

A design gives racks by layout and count, never one by one; the elevation drawing shows
one rack per distinct layout with the names of its instances (the first few, the last
and the count, from :mod:`infra.analysis.layout.rack_names`: never by listing every
rack). Names follow the cabling plan, exports and ingest
(:mod:`infra.analysis.layout.identity`): ``<pod><i>/.../r<k>``, or ``r<k>`` for racks
built directly.

Rear face. Every racked unit is taken as full depth (seen from the rear as occupied, as
NetBox draws full-depth devices). Mounted at the rear, beside the units:

- 0U units of the layout (PDUs), full height;
- in-rack CDUs whose height is unpublished, over the free U below the units (the only
  place a racked CDU can be), marked as such, with the free U beside them;
- the NVLink cable cartridge, in layouts with NVLink switch trays, spanning the compute
  and switch trays it connects;
- a DC busbar where the layout has power shelves (MGX/ORv3 racks feed trays from it);
- liquid supply/return manifolds in liquid and hybrid racks.

Weights are not in the catalog, so ``weight_kg`` is None (unknown, never 0).

Examples
--------
>>> from infra.models.resolve import load_design
>>> rd = load_design("designs/aws_nvl36x2.yaml")
>>> (f,) = rack_faces(rd)
>>> f.layout, f.names.shown(), f.free_u, [r.label for r in f.rear]
('nvl36', 'ultraserver0/r0, ultraserver0/r1', 15.0, ['NVLink cable cartridge', 'liquid manifolds'])
"""

from __future__ import annotations

from dataclasses import dataclass

from infra.analysis.layout.elevation import unit_positions
from infra.analysis.layout.rack_names import RackNames, rack_names
from infra.models.resolve import ResolvedDesign


@dataclass(frozen=True)
class RearItem:
    label: str
    kind: str
    top_u: int  # highest U it spans
    bottom_u: int  # lowest U it spans
    slug: str | None = None  # the catalog part, for mounted units


@dataclass(frozen=True)
class RackFaces:
    layout: str
    names: RackNames  # its instances: count, first few and last, in build order
    used_u: float
    free_u: float
    weight_kg: float | None  # None: the catalog has no weights
    rear: tuple[RearItem, ...]


def rack_faces(rd: ResolvedDesign) -> list[RackFaces]:
    """Instances, U used/free and rear-face items of every layout the design builds."""
    names = rack_names(rd)
    out = []
    for lname, layout in rd.layouts.items():
        if lname not in names:
            continue
        top = layout.rack.u_height
        rear: list[RearItem] = []
        placed = unit_positions(layout)
        nvl = [(pos, item) for item, pos in placed if pos is not None
               and item.part.kind in ("compute_tray", "nvlink_switch_tray")]
        if any(item.part.kind == "nvlink_switch_tray" for _, item in nvl):
            hi = max(p + int(round(i.part.u_height)) - 1 for p, i in nvl)
            rear.append(RearItem("NVLink cable cartridge", "nvlink_backplane", hi,
                                 min(p for p, _ in nvl)))
        if layout.of_kind("power_shelf"):
            rear.append(RearItem("DC busbar", "power_shelf", top, 1))
        if layout.rack.cooling in ("liquid", "hybrid"):
            rear.append(RearItem("liquid manifolds", "cooling_unit", top, 1))
        lowest = min((pos for _, pos in placed if pos is not None), default=top + 1)
        for item, pos in placed:
            if pos is None and item.part.kind == "cooling_unit" and lowest > 1:
                # an in-rack CDU of unpublished height: racked, it can only be in the free U
                # below the units, so it is drawn there (not as a full-height 0U strip)
                rear.append(RearItem(f"{item.part.name} (height unpublished; in the free U)",
                                     item.part.kind, lowest - 1, 1, item.part.slug))
            elif pos is None:
                rear.append(RearItem(item.part.name, item.part.kind, top, 1, item.part.slug))
        used = layout.used_u
        out.append(RackFaces(lname, names[lname], used, top - used, None, tuple(rear)))
    return out


def network_faces(elevations) -> list[RackFaces]:
    """Faces of the network racks (:func:`infra.analysis.layout.placement.network_elevations`,
    counted from the design's templates): switches only, nothing mounted at the rear.
    Their instances are not named here (``first`` is empty): the cabling plan names them
    ``<group>/n<k>`` (leaves, at the end of their SU's row) and ``network/n<k>``."""
    return [RackFaces(e.layout, RackNames(e.layout, e.racks, (), ""), e.used_u,
                      e.u_height - e.used_u, None, ()) for e in elevations]


def network_power_rows(elevations) -> list[dict]:
    """``power_by_rack`` rows of the network racks (from
    :func:`infra.analysis.layout.placement.network_elevations`): all of their power is air
    heat; their PDUs are not modelled (no supply figure) and switches publish no typical
    draw (None). A switch without a published figure makes the row a lower bound, named
    in ``unknown_power_parts``."""
    rows = []
    for e in elevations:
        unknown = sorted({s.slug for s in e.slots if s.power_w is None})
        rows.append({"layout": e.layout, "rack_type": e.rack_type, "racks": e.racks,
                     "it_kw_per_rack": round(e.it_kw, 2), "it_typical_kw_per_rack": None,
                     "liquid_kw_per_rack": 0.0, "air_kw_per_rack": round(e.air_kw, 2),
                     "supply_kw_per_rack": None, "published_estimate_kw_per_rack": None,
                     "it_kw_total": round(e.it_kw * e.racks, 2),
                     "unknown_power_parts": ", ".join(unknown)})
    return rows
