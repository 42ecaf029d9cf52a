"""Validate one file: a catalog entry (has ``kind:``) or a design (loaded and analysed,
so power, cooling and space limits are checked too); ``infra validate``.

It reads YAML and builds catalogs, so it sits above the analyses (which never import the
YAML or catalog loaders, ``tests/test_architecture.py``), beside :mod:`infra.api`.

Examples
--------
>>> from infra.models.catalog import DEFAULT_CATALOG_DIR, load_catalog
>>> validate_file(DEFAULT_CATALOG_DIR.parent / "designs" / "gb200_nvl72.yaml", load_catalog())
('design', ())
"""

from __future__ import annotations

from pathlib import Path

from infra.errors import CatalogError
from infra.models.catalog import Catalog, parse_entry
from infra.models.expand import expand_tray
from infra.models.systems import ComputeTray
from infra.models.yamlio import read_yaml


def validate_file(path: Path, catalog: Catalog) -> tuple[str, tuple]:
    """``(kind, findings)``: what ``path`` is ("design" or the catalog kind) and, for a
    design, its design-rule findings (supply short under its redundancy, cooling units
    short), which are not errors; raise on any error."""
    data = read_yaml(path, CatalogError)
    if isinstance(data, dict) and "kind" in data and "build" not in data:
        entry = parse_entry(data, path)
        if isinstance(entry, ComputeTray):  # wire it against the catalog's parts
            from infra.topology.tray import tray_flows

            entries = {e.slug: e for e in catalog}
            entries[entry.slug] = entry
            local = Catalog(entries, {**catalog.files, entry.slug: path})  # own caches
            expand_tray(entry, local)
            tray_flows(entry, local)
        return entry.kind, ()
    from infra.analysis.summary import analyze_file

    return "design", tuple(analyze_file(path, catalog).findings)
