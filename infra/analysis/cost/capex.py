"""Capex of a bill of materials under one pricing rule, with its scope and completeness.

The rule (the same one the design workbook's BOM formulas apply)
----------------------------------------------------------------
- Every BOM row is a capex line. A line is **included** in the nearest unit above it
  whose price says ``covers: contents`` (an integrated system: a populated NVL72 rack,
  a DGX server quoted whole); an included line costs 0 and says ``included_in``.
- Otherwise a line is **priced** (count x unit price) or **unpriced** (no price, or a
  price but an unknown count). An empty rack, chassis or tray price (``covers: unit``)
  never absorbs what is mounted in it.
- Capex sums the priced lines. Unknown is not zero: with any unpriced line it is a
  **lower bound**, and says how many lines are unpriced.

Scope (``capex_scope``), from what is priced or included:

- ``full``: every line (storage units too); ``systems+fabric``: every compute/scale-up line and every
  scale-out fabric line (switches, optics, cables, fibres) of a design that has a
  scale-out fabric; ``systems``: every compute
  and scale-up line (trays, servers, NVLink switch trays, their parts);
  ``gpus-only``: every GPU but not the systems around them; ``partial``: some other
  mix; ``none``: nothing priced.

Completeness (``capex_completeness_fraction``): the share of lines (included lines
left out) that are priced.

Examples
--------
>>> from infra.analysis.summary import analyze_file
>>> c = analyze_file("designs/gb200_nvl72.yaml").capex
>>> c.scope, c.priced_usd, c.is_lower_bound  # the rack's price, catalogs/prices
('full', 3500000.0, False)
>>> [ln.included_in for ln in c.lines if ln.kind == "gpu"]
['nvidia-gb200-nvl72-rack']
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from infra.analysis.cost.bom import BomRow
from infra.models.prices import Price, PriceBook

CATEGORY = {
    "rack": "racks", "compute_tray": "compute", "superchip": "compute", "gpu": "compute",
    "cpu": "compute", "pcie_switch": "compute", "nic": "network_nics",
    "nvlink_switch_tray": "scale_up_nvlink", "nvlink_switch_chip": "scale_up_nvlink",
    "network_switch": "network_switches", "rack_unit": "rack_units",
    "optic": "network_optics_cables", "cable": "network_optics_cables",
    "power_shelf": "power", "pdu": "power", "cooling_unit": "cooling",
    "storage_system": "storage",
}
CATEGORIES = ("integrated_rack_system", "compute", "scale_up_nvlink", "network_nics",
              "network_switches", "network_optics_cables", "storage", "rack_units", "power",
              "cooling", "racks")
INTEGRATED = "integrated_rack_system"
SCOPES = ("none", "partial", "gpus-only", "systems", "systems+fabric", "full")
SCOPE_GROUPS = {"systems": ("system",), "systems+fabric": ("system", "fabric"),
                "full": ("system", "fabric", "facility", "storage")}
PRICED, INCLUDED, UNPRICED = "priced", "included", "unpriced"


@dataclass(frozen=True)
class CapexLine:
    """One BOM row priced: ``status`` is priced, included or unpriced."""

    category: str
    slug: str
    kind: str
    count: float | None  # None: the count is unknown (e.g. cooling units of unpublished capacity)
    unit_usd: float | None
    price: Price | None = None
    note: str = ""
    line: int = 0
    parent: int | None = None
    included_in: str | None = None
    group: str = "system"

    @property
    def status(self) -> str:
        if self.included_in is not None:
            return INCLUDED
        return PRICED if self.unit_usd is not None and self.count is not None else UNPRICED

    @property
    def total_usd(self) -> float | None:
        """count x price; 0 when included in a priced parent; None when unknown."""
        if self.included_in is not None:
            return 0.0
        if self.unit_usd is None or self.count is None:
            return None
        return self.unit_usd * self.count


@dataclass(frozen=True)
class Capex:
    lines: tuple[CapexLine, ...]
    cap: str | None = None  # highest scope it can claim (a chip: gpus-only; a tray: systems)

    @property
    def priced_usd(self) -> float | None:
        """Sum of priced lines; None when nothing is priced."""
        totals = [ln.total_usd for ln in self.lines if ln.status == PRICED]
        return sum(totals) if totals else None

    @property
    def unpriced_lines(self) -> list[CapexLine]:
        return [ln for ln in self.lines if ln.status == UNPRICED]

    @property
    def unpriced(self) -> list[str]:
        """Slugs of the unpriced lines (sorted, unique)."""
        return sorted({ln.slug for ln in self.unpriced_lines})

    @property
    def is_lower_bound(self) -> bool:
        return bool(self.unpriced_lines)

    @property
    def completeness(self) -> float | None:
        """Share of the lines that carry a cost (included lines left out) that is priced."""
        own = [ln for ln in self.lines if ln.status != INCLUDED]
        return sum(ln.status == PRICED for ln in own) / len(own) if own else None

    @property
    def scope(self) -> str:
        """``full``, ``systems+fabric``, ``systems``, ``gpus-only``, ``partial`` or ``none``."""
        s = self._scope()
        if self.cap is not None and s not in ("none", "partial"):
            s = min(s, self.cap, key=SCOPES.index)
        return s

    def _scope(self) -> str:
        if self.priced_usd is None:
            return "none"
        fabric = any(ln.group == "fabric" for ln in self.lines)
        for scope in ("full", "systems+fabric", "systems"):
            if self.covers(scope) and (fabric or scope != "systems+fabric"):
                return scope
        gpus = [ln for ln in self.lines if ln.kind == "gpu"]
        return "gpus-only" if gpus and all(ln.status != UNPRICED for ln in gpus) else "partial"

    def covers(self, scope: str) -> bool:
        """True when every line that ``scope`` includes is priced or included."""
        return not self.missing_for(scope)

    def missing_for(self, scope: str) -> list[str]:
        """Unpriced slugs that keep this capex from reaching ``scope``."""
        if scope == "gpus-only":
            return sorted({ln.slug for ln in self.unpriced_lines if ln.kind == "gpu"})
        groups = SCOPE_GROUPS.get(scope, ())
        return sorted({ln.slug for ln in self.unpriced_lines if ln.group in groups})

    @property
    def lower_bound_note(self) -> str:
        n = len(self.unpriced_lines)
        return f"lower bound: {n} line{'s' if n != 1 else ''} unpriced" if n else "complete"

    def by_category(self) -> dict[str, float]:
        out: dict[str, float] = defaultdict(float)
        for ln in self.lines:
            if ln.status == PRICED:
                out[ln.category] += ln.total_usd
        return dict(out)

    def prices(self) -> list[Price]:
        """The prices the capex uses (those of priced lines; included lines' prices are
        not used while their parent's system price covers them)."""
        return list({ln.price.slug: ln.price for ln in self.lines
                     if ln.price and ln.status == PRICED}.values())


def price_bom(rows: list[BomRow], book: PriceBook) -> Capex:
    """Capex lines of a BOM (rows depth first, each after its parent) under the rule above.

    Examples
    --------
    A priced empty rack keeps its contents; a system price covers them:

    >>> import datetime as dt
    >>> from infra.models.prices import Price, PriceBook, PriceSource
    >>> src = PriceSource(title="t", url="https://example.com", tag="V")
    >>> def price(slug, usd, covers="unit"):
    ...     return Price(slug=slug, usd=usd, basis="quote", date=dt.date(2026, 1, 1),
    ...                  source=src, covers=covers)
    >>> rows = [BomRow("rack", "rk", "", "", 1, "cluster", 1, None, 0, "facility"),
    ...         BomRow("compute_tray", "tr", "", "", 4, "rk", 2, 1, 1),
    ...         BomRow("gpu", "gp", "", "", 32, "tr", 3, 2, 2)]
    >>> book = PriceBook({"rk": price("rk", 1500), "gp": price("gp", 25000)}, {})
    >>> c = price_bom(rows, book)
    >>> c.priced_usd, c.scope, c.lower_bound_note
    (801500.0, 'gpus-only', 'lower bound: 1 line unpriced')
    >>> book = PriceBook({"tr": price("tr", 300000, "contents"), "gp": price("gp", 25000)}, {})
    >>> c = price_bom(rows, book)
    >>> c.priced_usd, [ln.included_in for ln in c.lines], c.scope
    (1200000.0, [None, None, 'tr'], 'systems')
    """
    by_line = {r.line: r for r in rows}
    included: dict[int, str | None] = {}
    lines = []
    for r in rows:
        inc = None
        if r.parent is not None:
            inc = included.get(r.parent)
            parent_price = book.get(by_line[r.parent].slug)
            if inc is None and parent_price is not None and parent_price.covers_contents:
                inc = by_line[r.parent].slug
        included[r.line] = inc
        p = book.get(r.slug)
        cat = CATEGORY.get(r.kind, r.kind)
        note = ""
        if p is not None and p.covers_contents:
            note = "system price: covers the parts mounted in it"
            if r.kind == "rack":
                cat = INTEGRATED
        elif inc is None and r.count is None:
            note = "count unknown"
        group = "system" if cat == INTEGRATED else r.group
        lines.append(CapexLine(cat, r.slug, r.kind, r.count, p.usd if p else None, p, note,
                               r.line, r.parent, inc, group))
    return Capex(tuple(lines))
