"""Rack power supply: installed vs usable capacity under the stated redundancy, and
whether a rack survives losing one of its two feeds.

Assumptions
-----------
- A power shelf's usable capacity is ``(psus - spare) x psu_kw`` under its own PSU
  redundancy (N+1: one spare PSU); unstated -> the installed figure.
- The rack layout's ``power_redundancy`` says how shelves/PDUs back each other up:
  N+1 drops the largest unit, N+N counts half of them (feed A and feed B each carry the
  whole load). Unstated -> the installed sum is used and feed-loss survival is unknown.
- A rack survives the loss of one feed under N+N when one half alone carries the load;
  under N / N+1 the feed arrangement is not stated, so survival is reported unknown.

Examples
--------
>>> from infra.models.systems import usable_units
>>> usable_units(8, "N+N") * 33   # 8 x 33 kW shelves, half on each feed
132
"""

from __future__ import annotations

from dataclasses import dataclass

from infra.analysis.findings import Finding
from infra.errors import LOCATE
from infra.models.resolve import ResolvedDesign, ResolvedLayout
from infra.models.systems import Pdu, PowerShelf, usable_units


@dataclass(frozen=True)
class RackSupply:
    installed_kw: float
    usable_kw: float
    redundancy: str | None  # the layout's power_redundancy, None = not stated
    survives_feed_loss: bool | None  # None = unknown (redundancy not stated)
    load_kw: float

    @property
    def headroom_kw(self) -> float:
        return self.usable_kw - self.load_kw


def rack_supply(rd: ResolvedDesign, layout: ResolvedLayout, load_kw: float) -> RackSupply | None:
    """Installed and usable supply of one rack of ``layout`` (None: no shelves or PDUs)."""
    units: list[tuple[float, float]] = []  # (installed, usable) per unit
    for item in layout.items:
        p = item.part
        if isinstance(p, PowerShelf):
            units += [(p.capacity_kw, p.usable_kw)] * item.count
        elif isinstance(p, Pdu):
            units += [(p.capacity_kw, p.capacity_kw)] * item.count
    if not units:
        return None
    red = rd.design.racks[layout.name].power_redundancy
    installed = sum(i for i, _ in units)
    usable_each = sorted((u for _, u in units), reverse=True)
    keep = usable_units(len(units), red)
    usable = sum(usable_each[len(units) - keep:]) if red else sum(usable_each)
    survives = None
    if red == "N+N":
        survives = load_kw <= usable + 1e-9
    return RackSupply(installed, usable, red, survives, load_kw)


def check_supply(rd: ResolvedDesign, layout: ResolvedLayout, it_kw: float,
                 sup: RackSupply | None, supplied_kw: float | None = None) -> tuple[Finding, ...]:
    """Findings (never an exception: every figure stays computed) when the rack's load
    exceeds its usable supply under the stated redundancy, or its IT power the rack's
    rating. ``it_kw`` is the rack's IT power at its feeds; ``supplied_kw`` the load its
    power shelves deliver (their DC output: the IT power less their conversion loss;
    default ``it_kw``), which is what their rated capacity is compared with."""
    path = ("racks", layout.name, "contents")
    load = it_kw if supplied_kw is None else supplied_kw
    limits = []
    if sup is not None:
        what = ("its power shelves/PDUs supply" if sup.redundancy is None else
                f"its power shelves/PDUs supply under {sup.redundancy} "
                f"({sup.installed_kw:g} kW installed)")
        fix = ("add power shelves or PDUs" if sup.redundancy is None else
               f"add power shelves or PDUs, or state a redundancy the rack can carry: "
               f"under {sup.redundancy} it is {load - sup.usable_kw:.1f} kW short")
        drawn = (f"draws {load:.1f} kW IT" if abs(load - it_kw) < 1e-9 else
                 f"draws {load:.1f} kW IT from its shelves ({it_kw:.1f} kW at the feeds)")
        limits.append(("power_supply", sup.usable_kw, what, fix, load, drawn))
    if layout.rack.max_power_kw is not None:
        limits.append(("rack_rating", layout.rack.max_power_kw,
                       f"rack type {layout.rack.slug!r} is rated for", "move units to another rack",
                       it_kw, f"draws {it_kw:.1f} kW IT"))
    return tuple(
        Finding.at(kind, f"rack layout {layout.name!r} {drawn}, {what} {limit:g} kW",
                   file=rd.file, path=path, line=LOCATE, hint=fix)
        for kind, limit, what, fix, kw, drawn in limits if kw > limit + 1e-9)


def server_psu_rows(rd: ResolvedDesign) -> list[dict]:
    """Servers with their own PSUs: usable capacity under their PSU redundancy vs their
    maximum (DGX H100: 6 x 3.3 kW, 4+2 -> 13.2 kW usable for 10.2 kW)."""
    rows = []
    for slug in rd.tray_counts():
        t = rd.part(slug)
        if not (t.psus and t.psu_w and t.max_power_w):
            continue
        usable = usable_units(t.psus, t.psu_redundancy) * t.psu_w / 1000
        rows.append({"server": slug, "psus": t.psus, "psu_kw": t.psu_w / 1000,
                     "redundancy": t.psu_redundancy or "not stated", "usable_kw": usable,
                     "max_kw": t.max_power_w / 1000,
                     "covers_max": usable + 1e-9 >= t.max_power_w / 1000})
    return rows


def supply_rows(power) -> list[dict]:
    """One row per rack layout with shelves/PDUs (for the ``power_supply`` table)."""
    rows = []
    for r in power.racks:
        s = r.supply
        if s is None:
            continue
        rows.append({"layout": r.layout, "installed_kw": round(s.installed_kw, 3),
                     "redundancy": s.redundancy or "not stated",
                     "usable_kw": round(s.usable_kw, 3), "load_kw": round(s.load_kw, 3),
                     "headroom_kw": round(s.headroom_kw, 3),
                     "survives_one_feed_loss": {True: "yes", False: "no"}.get(
                         s.survives_feed_loss, "unknown (feeds not stated)")})
    return rows
