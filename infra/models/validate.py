"""Validate a single file: a catalog entry (has ``kind:``) or a design."""

from __future__ import annotations

from pathlib import Path

from infra.errors import CatalogError
from infra.models.catalog import Catalog, parse_entry
from infra.models.yamlio import read_yaml


def validate_file(path: Path, catalog: Catalog, load_design) -> str:
    """Return what ``path`` is ("design" or the catalog kind); raise on any error."""
    data = read_yaml(path, CatalogError) if path.exists() else None
    if isinstance(data, dict) and "kind" in data and "build" not in data:
        return parse_entry(data, path).kind
    load_design(path, catalog)
    return "design"
