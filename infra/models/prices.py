"""Dated, sourced prices of catalog parts, kept apart from the catalog.

A price file ``catalogs/prices/<name>.yaml``::

    as_of: 2026-06-30
    currency: USD
    prices:
      - slug: nvidia-h100-sxm5
        usd: 27500
        basis: street            # list | street | estimate | quote | capacity_block_derived
        date: 2023-08-01         # when the source published the figure
        source: {title: ..., url: https://..., tag: AN}
        low_usd: 25000           # optional range where sources differ
        high_usd: 30000
      - slug: nvidia-dgx-h100
        usd: 400000
        basis: quote             # a user's own vendor quote
        covers: contents         # a system price: the parts mounted in it are included
        date: 2026-05-01
        source: {title: "our quote Q-123", url: "file:quotes/q123.pdf", tag: V}

Conventions
-----------
- A price is per unit of the catalog type, in US dollars. It covers the unit alone
  (``covers: unit``, the default: an empty rack, a chassis, a tray) unless it says
  ``covers: contents``: an integrated system quoted whole (a populated GB200 NVL72 rack,
  a DGX server), whose mounted parts are then included in it and not priced again.
  An empty rack's price never absorbs what is mounted in it.
- Unknown stays unknown: a part with no price is listed as unpriced and any capex that
  contains it is a lower bound. Where sources differ the entry gives ``low_usd`` and
  ``high_usd`` and a planning ``usd`` inside that range (its choice in a comment).
- ``fibre-link`` (one optical fibre per link, no SKU chosen) may be priced by that
  name although it is not a catalog part.
- Files load in name order; ``--prices`` files load after the defaults and replace
  their entries slug by slug. Two default files pricing one slug is an error.

Examples
--------
>>> from infra.models.prices import load_prices
>>> book = load_prices()
>>> book.get("nvidia-h100-sxm5").usd
27500.0
>>> book.get("nvidia-b300-hgx") is None
True
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from infra.errors import PriceError, did_you_mean
from infra.models.base import PosFloat, Slug, Strict
from infra.models.catalog import Catalog, catalog_dir, load_catalog, validation_error
from infra.models.yamlio import line_of, read_yaml

PriceBasis = Literal["list", "street", "estimate", "quote", "capacity_block_derived"]
PriceCovers = Literal["unit", "contents"]
GENERIC_SLUGS = ("fibre-link",)
HOLDERS = ("rack", "compute_tray", "superchip", "nvlink_switch_tray")  # kinds with contents  # BOM lines without a catalog part that may be priced
PriceTag = Literal["D", "V", "A", "3P", "AN", "DER"]


class PriceSource(Strict):
    title: str
    url: str
    tag: PriceTag


class Price(Strict):
    """One part's price in USD per unit."""

    slug: Slug
    usd: PosFloat
    basis: PriceBasis
    date: dt.date
    source: PriceSource
    covers: PriceCovers = "unit"
    low_usd: PosFloat | None = None
    high_usd: PosFloat | None = None

    @model_validator(mode="after")
    def _range(self):  # noqa: ANN202
        lo = self.low_usd if self.low_usd is not None else self.usd
        hi = self.high_usd if self.high_usd is not None else self.usd
        if not lo <= self.usd <= hi:
            raise ValueError(f"usd {self.usd:g} must lie within low_usd {lo:g} .. "
                             f"high_usd {hi:g}")
        return self

    @field_validator("date")
    @classmethod
    def _published(cls, v: dt.date) -> dt.date:
        return not_in_future(v, "date")

    @property
    def covers_contents(self) -> bool:
        """True for a system price that includes the parts mounted in the unit."""
        return self.covers == "contents"


class PriceFile(Strict):
    as_of: dt.date
    currency: Literal["USD"]
    prices: Annotated[list[Price], Field(min_length=1)]

    @field_validator("as_of")
    @classmethod
    def _published(cls, v: dt.date) -> dt.date:
        return not_in_future(v, "as_of")


def not_in_future(v: dt.date, name: str) -> dt.date:
    """A price is observed, so its date is not after today (issue 31, D7: 2099-01-01 was
    accepted); one day of slack for time zones."""
    latest = dt.date.today() + dt.timedelta(days=1)
    if v > latest:
        raise ValueError(f"{name} {v.isoformat()} is in the future (today is "
                         f"{dt.date.today().isoformat()}): give the date the price was published")
    return v


class PriceBook:
    """Slug -> :class:`Price`, with the file each price came from."""

    def __init__(self, prices: dict[str, Price], files: dict[str, Path]) -> None:
        self._prices = prices
        self.files = files

    def get(self, slug: str) -> Price | None:
        """The price of ``slug``, or None when no price file gives one."""
        return self._prices.get(slug)

    def __iter__(self) -> Iterator[Price]:
        return iter(self._prices.values())

    def __len__(self) -> int:
        return len(self._prices)


def default_price_dir() -> Path:
    return catalog_dir() / "prices"


def read_price_file(path: Path, catalog: Catalog) -> PriceFile:
    """Parse and check one price file: schema, then every slug against the catalog."""
    data = read_yaml(Path(path), PriceError)
    if not isinstance(data, dict):
        raise PriceError("a price file must be a YAML mapping", file=str(path), line=1)
    try:
        pf = PriceFile.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, Path(path), PriceError) from None
    seen: set[str] = set()
    for i, p in enumerate(pf.prices):
        where = ("prices", i, "slug")
        if p.slug not in catalog and p.slug not in GENERIC_SLUGS:
            raise PriceError(f"unknown catalog slug {p.slug!r}", file=str(path), path=where,
                             line=line_of(Path(path), where),
                             hint=did_you_mean(p.slug, catalog.slugs)
                             + "; prices may only name catalog parts (or "
                             + ", ".join(GENERIC_SLUGS) + ")")
        if p.covers_contents and p.slug in catalog and catalog.get(p.slug).kind not in HOLDERS:
            where = ("prices", i, "covers")
            raise PriceError(f"{p.slug!r} is a {catalog.get(p.slug).kind}: nothing is mounted in "
                             "it, so its price cannot cover contents", file=str(path),
                             path=where, line=line_of(Path(path), where),
                             hint="remove `covers: contents` (only racks, trays/servers, "
                                  "superchips and NVLink switch trays hold parts)")
        if p.slug in seen:
            raise PriceError(f"{p.slug!r} is priced twice in this file", file=str(path),
                             path=where, line=line_of(Path(path), where),
                             hint="keep one entry per slug")
        seen.add(p.slug)
    return pf


def load_prices(paths: Iterable[Path | str] | None = None, catalog: Catalog | None = None,
                *, defaults: bool = True) -> PriceBook:
    """Load the default price files, then ``paths`` (which override by slug).

    Parameters
    ----------
    paths : iterable of path, optional
        User price files (``--prices``); each replaces earlier prices of the same slugs.
    catalog : Catalog, optional
        Catalog the slugs are checked against (default: :func:`load_catalog`).
    defaults : bool
        Load every YAML file under ``catalogs/prices/`` first (default True).

    Raises
    ------
    PriceError
        Malformed file, unknown slug (with the nearest catalog slugs), or a slug priced
        by two default files.
    """
    catalog = catalog or load_catalog()
    prices: dict[str, Price] = {}
    files: dict[str, Path] = {}
    if defaults and default_price_dir().is_dir():
        for f in sorted(default_price_dir().glob("*.yaml")):
            for p in read_price_file(f, catalog).prices:
                if p.slug in prices:
                    raise PriceError(f"{p.slug!r} is priced in two default price files "
                                     f"(also {files[p.slug].name})", file=str(f),
                                     hint="keep one; use --prices to override")
                prices[p.slug], files[p.slug] = p, f
    for f in paths or ():
        for p in read_price_file(Path(f), catalog).prices:
            prices[p.slug], files[p.slug] = p, Path(f)
    return PriceBook(prices, files)
