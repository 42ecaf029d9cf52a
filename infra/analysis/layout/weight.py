"""Rack weights for floor loading: each rack layout (compute and network) as built.

A rack's weight is its enclosure's weight plus the weight of every unit mounted in it,
from each catalog entry's ``weight_kg`` (the vendor's figure for the unit as installed,
without packaging). Where a unit or the enclosure has no published weight the sum is a
lower bound, and the parts missing are named, never counted as 0 kg silently. Where the
rack type publishes a loaded weight (a vendor's figure for the whole rack as shipped) it
is shown beside the computed one; where the enclosure publishes a static load rating, a
rack whose units weigh more than it carries is a design-rule finding.

Examples
--------
>>> from infra.models.resolve import load_design
>>> from infra.analysis.power.it_power import design_power
>>> from infra.analysis.layout.elevation import rack_elevations
>>> rd = load_design("designs/dgx_h100_su.yaml")
>>> w = hall_weight(rd, rack_elevations(rd, design_power(rd)))
>>> r = w.racks[0]  # 42U enclosure 134.09 kg + 4 DGX H100 x 130.45 kg; PDUs unpublished
>>> r.layout, round(r.kg, 2), r.missing, r.planning_kg
('dgx4', 655.89, ('apc-ap8886',), None)
"""

from __future__ import annotations

from dataclasses import dataclass

from infra.analysis.findings import Finding
from infra.analysis.layout.elevation import RackElevation
from infra.errors import LOCATE
from infra.models.resolve import ResolvedDesign


@dataclass(frozen=True)
class RackWeight:
    """One rack layout's weight (every rack of the layout weighs the same)."""

    layout: str
    rack_type: str
    racks: int
    kg: float  # enclosure + units with a published weight (a lower bound if missing)
    units_kg: float  # the mounted units alone (what the enclosure's rating carries)
    missing: tuple[str, ...]  # slugs without a published weight (the enclosure included)
    published_kg: float | None  # the rack type's published loaded weight, shown beside
    static_load_kg: float | None  # the enclosure's static load rating, when published
    published_tag: str | None = None  # how sure the published loaded weight is (V, 3P...)

    @property
    def complete(self) -> bool:
        return not self.missing

    @property
    def planning_kg(self) -> float | None:
        """The figure to plan the floor with: the computed weight when every part's is
        published; else the rack type's published loaded weight when there is one (and it
        is not below what the known parts already weigh); else None (only a bound)."""
        if self.complete:
            return self.kg
        if self.published_kg is not None:
            return max(self.kg, self.published_kg)
        return None

    @property
    def basis(self) -> str:
        """How :attr:`planning_kg` was reached, in words."""
        if self.complete:
            return "sum of the parts' published weights"
        unpublished = ", ".join(self.missing)
        if self.published_kg is not None:
            tag = f" [{self.published_tag}]" if self.published_tag else ""
            return (f"the rack's published loaded weight ({self.published_kg:,.0f} kg{tag}); "
                    f"from its parts at least {self.kg:,.1f} kg ({unpublished} unpublished)")
        return f"at least {self.kg:,.1f} kg: {unpublished} unpublished"

    @property
    def over_rating(self) -> bool:
        """The units alone weigh more than the enclosure's static load rating."""
        return self.static_load_kg is not None and self.units_kg > self.static_load_kg


@dataclass(frozen=True)
class HallWeight:
    racks: tuple[RackWeight, ...]
    total_kg: float  # every rack's planning figure, else its known parts (a lower bound
    complete: bool  # unless every layout has a planning figure)

    @property
    def heaviest(self) -> RackWeight | None:
        """The heaviest rack layout (by its planning figure, else its lower bound)."""
        return max(self.racks, key=lambda r: r.planning_kg or r.kg, default=None)

    @property
    def heaviest_kg(self) -> float | None:
        """The heaviest rack's weight when every rack layout has a planning figure; None
        while any has not (a layout of unknown weight may be the heaviest: see
        :attr:`heaviest_bound_kg`)."""
        h = self.heaviest
        return None if h is None or self.unplanned else h.planning_kg

    @property
    def heaviest_bound_kg(self) -> float | None:
        """A lower bound of the heaviest rack: the largest planning figure or known parts'
        sum over every layout (None when no weight at all is published)."""
        h = self.heaviest
        return None if h is None else (h.planning_kg or h.kg or None)

    @property
    def unplanned(self) -> tuple[str, ...]:
        """Rack layouts with no planning figure (a part's weight unpublished, no loaded
        weight published): while any is left, :attr:`heaviest_kg` is a lower bound."""
        return tuple(r.layout for r in self.racks if r.planning_kg is None)


def rack_weight(rd: ResolvedDesign, e: RackElevation) -> RackWeight:
    """The weight of one rack layout from its elevation (one slot per mounted unit)."""
    rack = rd.part(e.rack_type)
    missing: dict[str, None] = {}
    units = 0.0
    for s in e.slots:
        w = getattr(rd.part(s.slug), "weight_kg", None)
        if w is None:
            missing[s.slug] = None
        else:
            units += w
    enclosure = getattr(rack, "weight_kg", None)
    if enclosure is None:
        missing[rack.slug] = None
    published = getattr(rack, "loaded_weight_kg", None)
    src = rack.source_of("loaded_weight_kg") if published is not None else None
    return RackWeight(e.layout, e.rack_type, e.racks, units + (enclosure or 0.0), units,
                      tuple(missing), published, getattr(rack, "static_load_kg", None),
                      src.tag if src is not None else None)


def hall_weight(rd: ResolvedDesign, elevations: list[RackElevation]) -> HallWeight:
    """Every rack layout's weight (compute racks from
    :func:`~infra.analysis.layout.elevation.rack_elevations`, network racks from
    :func:`~infra.analysis.layout.placement.network_elevations`) and the hall's total.

    Parameters
    ----------
    rd : the resolved design (parts and their weights)
    elevations : the rack elevations, compute and network

    Returns
    -------
    HallWeight : per layout weight, the total over every rack, whether all is published
    """
    racks = tuple(rack_weight(rd, e) for e in elevations)
    return HallWeight(racks, sum((r.planning_kg or r.kg) * r.racks for r in racks),
                      all(r.planning_kg is not None for r in racks))


def weight_findings(rd: ResolvedDesign, hall: HallWeight) -> list[Finding]:
    """A rack whose units weigh more than its enclosure's static load rating (a
    design-rule finding: every figure is still computed)."""
    out = []
    for r in hall.racks:
        if r.over_rating:
            where = ("racks", r.layout) if r.layout in rd.layouts else ("fabrics",)
            out.append(Finding.at(
                "rack_load", f"rack layout {r.layout!r}: its units weigh {r.units_kg:,.1f} kg, "
                f"over the {r.rack_type} enclosure's static load rating of "
                f"{r.static_load_kg:,.0f} kg", file=rd.file, path=where, line=LOCATE,
                hint="spread the units over more racks or use an enclosure rated for the load"))
    return out


__all__ = ["HallWeight", "RackWeight", "hall_weight", "rack_weight", "weight_findings"]
