"""Bill of materials through the hierarchy: racks -> units -> tray parts -> chips.

Counts are multiplied down the templates (rack count x units per rack x parts per
unit); nothing is expanded per instance.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from infra.models.expand import expand_tray
from infra.models.parts import NvlinkSwitchTray, Superchip
from infra.models.resolve import ResolvedDesign
from infra.models.systems import ComputeTray


@dataclass(frozen=True)
class BomRow:
    """One SKU in the design: how many, and inside what."""

    kind: str
    slug: str
    name: str
    vendor: str
    count: int | None  # None: unknown (e.g. cooling units of unpublished capacity)
    where: str  # the parent type(s), e.g. "aws-gb200-compute-tray"


def bill_of_materials(rd: ResolvedDesign, cooling_units: dict[str, int] | None = None,
                      fabrics: list | None = None) -> list[BomRow]:
    """Every SKU of ``rd`` with its total count.

    Parameters
    ----------
    rd : ResolvedDesign
    cooling_units : dict, optional
        slug -> count of pod-level cooling units (from the cooling analysis, which sizes
        units the design leaves uncounted).
    fabrics : list of FabricResult, optional
        Sized fabrics: their switches, transceivers and cables.

    Returns
    -------
    list of BomRow, ordered from racks down to chips.
    """
    counts: Counter = Counter()
    where: dict[str, set[str]] = {}
    parts = {}

    unknown: set[str] = set()

    def add(part, n: int | None, parent: str) -> None:
        if n is None:
            unknown.add(part.slug)
            n = 0
        counts[part.slug] += n
        parts[part.slug] = part
        where.setdefault(part.slug, set()).add(parent)

    for lname, racks in rd.rack_counts.items():
        lay = rd.layouts[lname]
        add(lay.rack, racks, "cluster")
        for item in lay.items:
            n = racks * item.count
            add(item.part, n, lay.rack.slug)
            if isinstance(item.part, ComputeTray):
                _tray_parts(rd, item.part, n, add)
            elif isinstance(item.part, NvlinkSwitchTray):
                chip = rd.catalog.get(item.part.chips.type)
                add(chip, n * item.part.chips.count, item.part.slug)
    for shape in rd.domain_shapes:
        if shape.cross_rack_cable is not None:
            add(shape.cross_rack_cable, shape.count, "cross-rack NVLink cable set per domain")
    for slug, n in (cooling_units or {}).items():
        add(rd.catalog.get(slug), n, "pod cooling" if n is not None
            else "pod cooling (count unknown: capacity not published)")
    fibre_links = 0
    for f in fabrics or []:
        for t in f.tiers:
            add(rd.catalog.get(t.switch), t.switches, f"fabric {f.name} ({t.role})")
        for slug, n in f.transceivers.items():
            add(rd.catalog.get(slug), n, f"fabric {f.name}")
        for slug, n in f.cables.items():
            if slug in rd.catalog:
                add(rd.catalog.get(slug), n, f"fabric {f.name}")
            else:
                fibre_links += n
    extra = []
    if fibre_links:
        extra.append(BomRow("cable", "fibre-link", "Optical fibre link (one per optical link; "
                            "patch SKU not chosen)", "-", fibre_links, "fabrics"))
    order = ["rack", "compute_tray", "nvlink_switch_tray", "network_switch", "power_shelf", "pdu",
             "cooling_unit", "rack_unit", "superchip", "gpu", "cpu", "nic", "pcie_switch",
             "nvlink_switch_chip", "optic", "cable"]
    rows = [
        BomRow(p.kind, p.slug, p.name, p.vendor, None if s in unknown else counts[s],
               ", ".join(sorted(where[s])))
        for s, p in parts.items()
    ] + extra
    rows.sort(key=lambda r: (order.index(r.kind) if r.kind in order else 99, r.slug))
    return rows


def _tray_parts(rd: ResolvedDesign, tray: ComputeTray, n: int, add) -> None:
    lay = expand_tray(tray, rd.catalog)
    for inst in lay.instances.values():
        parent = inst.parent
        if parent is None:
            add(inst.part, n, tray.slug)
        else:
            sc: Superchip = lay.instances[parent].part  # type: ignore[assignment]
            add(inst.part, n, sc.slug)


def totals_by_kind(rows: list[BomRow]) -> dict[str, int]:
    out: Counter = Counter()
    for r in rows:
        out[r.kind] += r.count or 0
    return dict(out)
