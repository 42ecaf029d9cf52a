"""Rows describing catalog entries, for ``infra catalog list|show`` and Sources sheets."""

from __future__ import annotations

from infra.errors import CatalogError, did_you_mean
from infra.models.base import numeric_figures
from infra.models.catalog import KIND_MODELS, Catalog


def catalog_rows(catalog: Catalog, kind: str | None = None) -> list[dict]:
    if kind is not None and kind not in KIND_MODELS:
        raise CatalogError(f"unknown kind {kind!r}", hint=did_you_mean(kind, KIND_MODELS))
    return [
        {"slug": e.slug, "kind": e.kind, "vendor": e.vendor, "name": e.name,
         "source_tags": ",".join(sorted({s.tag for s in e.sources}))}
        for e in sorted(catalog, key=lambda e: (e.kind, e.slug))
        if kind is None or e.kind == kind
    ]


def entry_rows(catalog: Catalog, slug: str) -> list[dict]:
    """One row per figure of ``slug``: field, value, source title, url, tag, choice."""
    e = catalog.get(slug)
    rows = []
    for field, value in numeric_figures(e):
        src = e.source_of(field)
        rows.append({"slug": e.slug, "field": field, "value": value, "tag": src.tag,
                     "source": src.title, "url": src.url or "",
                     "choice": e.choices.get(field) or e.choices.get(_top(field), "")})
    return rows


def bom_source_rows(catalog: Catalog, bom: list[dict]) -> list[dict]:
    """Every catalog figure behind a bill of materials' parts (:func:`entry_rows` of each
    distinct slug, in BOM order); generic lines (e.g. fibre links) have no entry."""
    slugs = dict.fromkeys(r["slug"] for r in bom)
    return [r for s in slugs if s in catalog for r in entry_rows(catalog, s)]


def _top(field: str) -> str:
    """``host_links[gpu_side].gen`` -> ``host_links``."""
    return field.split(".")[0].split("[")[0]
