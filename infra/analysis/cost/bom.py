"""Bill of materials through the hierarchy: racks -> units -> tray parts -> chips.

The BOM is a multi-level (indented) bill: every row names the row it is mounted in
(``parent``, a 1-based line number; None at the top level), so a price that covers a
unit's contents can be applied to exactly the rows under it (:mod:`infra.analysis.cost.tco`).
Rows of one SKU under one parent row are merged; counts are multiplied down the
templates (rack count x units per rack x parts per unit); nothing is expanded per
instance, so the cost follows the number of distinct templates.

Examples
--------
>>> from infra.analysis.summary import analyze_file
>>> rows = analyze_file("designs/gb200_nvl72.yaml").bom
>>> rows[0].slug, rows[0].parent, rows[0].level
('nvidia-gb200-nvl72-rack', None, 0)
>>> [(r.slug, r.count, r.parent) for r in rows if r.kind == "gpu"]  # in the GB200 (line 3)
[('nvidia-b200-gb200', 72, 3)]
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from infra.models.parts import NvlinkSwitchTray
from infra.models.resolve import ResolvedDesign
from infra.models.systems import ComputeTray

ORDER = ["rack", "compute_tray", "nvlink_switch_tray", "network_switch", "power_shelf", "pdu",
         "cooling_unit", "rack_unit", "superchip", "gpu", "cpu", "nic", "pcie_switch",
         "nvlink_switch_chip", "optic", "cable", "storage_system"]
FIBRE = "fibre-link"


@dataclass(frozen=True)
class BomRow:
    """One SKU under one parent row: how many, and inside what."""

    kind: str
    slug: str
    name: str
    vendor: str
    count: int | None  # None: unknown (e.g. cooling units of unpublished capacity)
    where: str  # the parent type, or the role of a top-level row ("fabric compute (leaf)")
    line: int = 0  # 1-based position in the BOM
    parent: int | None = None  # line of the row this one is mounted in
    level: int = 0  # depth below the top level
    group: str = "system"  # system | fabric | facility: what a capex scope includes


@dataclass
class _Node:
    kind: str
    slug: str
    name: str
    vendor: str
    group: str
    count: int = 0
    unknown: bool = False
    where: set[str] = field(default_factory=set)
    children: dict[str, _Node] = field(default_factory=dict)


class _Tree:
    """Merge rows by (parent, slug) while walking the templates. ``parts`` looks parts
    up (``get``) and expands tray types (``tray_layout``): the resolved design (a design's
    bill) or :class:`~infra.models.expand.CatalogParts` (a tray compared on its own)."""

    def __init__(self, parts) -> None:
        self.parts = parts
        self.root = _Node("", "", "", "", "")

    def add(self, parent: _Node, part, n: int | None, where: str, group: str) -> _Node:
        node = parent.children.get(part.slug)
        if node is None:
            node = parent.children[part.slug] = _Node(part.kind, part.slug, part.name,
                                                     part.vendor, group)
        if n is None:
            node.unknown = True
        else:
            node.count += n
        node.where.add(where)
        return node

    def unit(self, parent: _Node, part, n: int, where: str, group: str = "system") -> None:
        """A rack unit and, for trays, what is mounted in it."""
        node = self.add(parent, part, n, where, group)
        if isinstance(part, ComputeTray):
            self.tray_parts(node, part, n)
        elif isinstance(part, NvlinkSwitchTray):
            self.add(node, self.parts.get(part.chips.type), n * part.chips.count, part.slug,
                     "system")

    def tray_parts(self, node: _Node, tray: ComputeTray, n: int) -> None:
        top, inner, parts = self._breakdown(tray)
        for slug, k in top.items():
            child = self.add(node, parts[slug], n * k, tray.slug, "system")
            for sub, m in inner.get(slug, {}).items():
                self.add(child, parts[sub], n * m, slug, "system")

    def _breakdown(self, tray: ComputeTray) -> tuple[Counter, dict[str, Counter], dict]:
        """(top-level part counts, counts inside each, parts) of one tray, once per type."""
        cache = self.__dict__.setdefault("_trays", {})
        if tray.slug not in cache:
            lay = self.parts.tray_layout(tray)
            top: Counter = Counter()
            inner: dict[str, Counter] = {}
            parts = {}
            for inst in lay.instances.values():
                if getattr(inst.part, "integrated", False):
                    continue  # ports on a GPU's die (Gaudi 3): part of the GPU, not bought apart
                parts[inst.part.slug] = inst.part
                if inst.parent is None:
                    top[inst.part.slug] += 1
                else:
                    inner.setdefault(lay.instances[inst.parent].part.slug, Counter())[
                        inst.part.slug] += 1
            cache[tray.slug] = (top, inner, parts)
        return cache[tray.slug]

    def rows(self) -> list[BomRow]:
        out: list[BomRow] = []

        def walk(node: _Node, parent: int | None, level: int) -> None:
            kids = sorted(node.children.values(), key=lambda c: (
                ORDER.index(c.kind) if c.kind in ORDER else 99, c.slug))
            for c in kids:
                row = BomRow(c.kind, c.slug, c.name, c.vendor, None if c.unknown else c.count,
                             ", ".join(sorted(c.where)), len(out) + 1, parent, level, c.group)
                out.append(row)
                walk(c, row.line, level + 1)

        walk(self.root, None, 0)
        return out


_FACILITY = ("rack", "power_shelf", "pdu", "cooling_unit", "rack_unit")


def bill_of_materials(rd: ResolvedDesign, cooling_units: dict[str, int] | None = None,
                      fabrics: list | None = None) -> list[BomRow]:
    """Every SKU of ``rd`` with its total count under each parent, as an indented bill.

    Parameters
    ----------
    rd : ResolvedDesign
    cooling_units : dict, optional
        slug -> count of pod-level cooling units (from the cooling analysis, which sizes
        units the design leaves uncounted; None: count unknown).
    fabrics : list of FabricResult, optional
        Sized fabrics: their switches, transceivers and cables.

    Returns
    -------
    list of BomRow, depth first: each row is followed by the rows mounted in it.
    ``group`` is ``system`` for compute and scale-up parts, ``fabric`` for scale-out
    switches, optics and cables, ``facility`` for racks, power, cooling and rack units,
    ``storage`` for the design's storage units (``storage:`` entries of its IT load).
    """
    t = _Tree(rd)
    _add_racks(t, rd)
    for shape in rd.domain_shapes:
        if shape.cross_rack_cable is not None:
            t.add(t.root, shape.cross_rack_cable, shape.count,
                  "cross-rack NVLink cable set per domain", "system")
    for slug, n in (cooling_units or {}).items():
        t.add(t.root, rd.part(slug), n, "pod cooling" if n is not None
              else "pod cooling (count unknown: capacity not published)", "facility")
    fibre_links = 0
    for f in fabrics or []:
        for tier in f.tiers:
            t.add(t.root, rd.part(tier.switch), tier.switches,
                  f"fabric {f.name} ({tier.role})", "fabric")
        for slug, n in f.transceivers.items():
            t.add(t.root, rd.part(slug), n, f"fabric {f.name}", "fabric")
        for slug, n in f.cables.items():
            if slug in rd.catalog:
                t.add(t.root, rd.part(slug), n, f"fabric {f.name}", "fabric")
            else:
                fibre_links += n
    for name, st in rd.design.storage.items():
        if st.it_load:  # a site-wide system the nodes only reach is not bought with the design
            t.add(t.root, rd.part(st.type), st.count, f"storage {name}", "storage")
    rows = t.rows()
    if fibre_links:
        rows.append(BomRow("cable", FIBRE, "Optical fibre link (one per optical link; "
                           "patch SKU not chosen)", "-", fibre_links, "fabrics",
                           len(rows) + 1, None, 0, "fabric"))
    return rows


def _add_racks(t: _Tree, rd: ResolvedDesign) -> None:
    """The racks and their units, summed per (rack type, unit type) first.

    Every count below a rack is its racks x units per rack x parts per unit, and rows
    are merged by (parent, SKU) and sorted, so summing the units of all layouts of one
    rack type before walking into them gives the same tree: the trays' parts are walked
    once per (rack type, unit type), not once per layout (4,000 times at 1,000 layouts).
    """
    racks: dict[str, list] = {}  # rack slug -> [rack, racks]
    units: dict[tuple[str, str], list] = {}  # (rack slug, unit slug) -> [unit, count]
    for lname, n in rd.rack_counts.items():
        lay = rd.layouts[lname]
        racks.setdefault(lay.rack.slug, [lay.rack, 0])[1] += n
        for item in lay.items:
            units.setdefault((lay.rack.slug, item.part.slug), [item.part, 0])[1] += n * item.count
    nodes = {slug: t.add(t.root, rack, n, "cluster", "facility")
             for slug, (rack, n) in racks.items()}
    for (slug, _), (part, n) in units.items():
        group = "facility" if part.kind in _FACILITY else "system"
        t.unit(nodes[slug], part, n, slug, group)


def tray_bill(tray: ComputeTray, parts, n: int = 1) -> list[BomRow]:
    """The indented bill of ``n`` trays/servers alone (no rack, fabric or cooling);
    ``parts``: where its parts come from (see :class:`_Tree`)."""
    t = _Tree(parts)
    t.unit(t.root, tray, n, "option")
    return t.rows()


def totals_by_kind(rows: list[BomRow]) -> dict[str, int]:
    out: Counter = Counter()
    for r in rows:
        out[r.kind] += r.count or 0
    return dict(out)
