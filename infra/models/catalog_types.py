"""The :class:`Catalog` type: slug -> validated part, with the file each came from.

Analyses take a catalog as a value and may import this module; loading one from the
YAML files is :func:`infra.models.catalog.load_catalog` (the catalog loader), which
analyses never import (``tests/test_architecture.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from infra.errors import CatalogError, InfraError, did_you_mean
from infra.models.parts import Part


class Catalog:
    """Slug -> validated part, with the file each came from."""

    def __init__(self, entries: dict[str, Part], files: dict[str, Path]) -> None:
        self._entries = entries
        self.files = files

    def __iter__(self) -> Iterator[Part]:
        return iter(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, slug: object) -> bool:
        return slug in self._entries

    @property
    def slugs(self) -> list[str]:
        return sorted(self._entries)

    def with_parts(self, parts: Iterable[Part]) -> Catalog:
        """A copy in which ``parts`` replace the entries of the same slug (a sweep's
        catalog overrides); files stay those of the originals."""
        return Catalog({**self._entries, **{p.slug: p for p in parts}}, self.files)

    def of_kind(self, kind: str) -> list[Part]:
        return [e for e in self._entries.values() if e.kind == kind]

    def get(
        self,
        slug: str,
        kind: str | tuple[str, ...] | None = None,
        *,
        file: str | None = None,
        path: tuple | str | None = None,
        line: int | None = None,
        error_cls: type[InfraError] = CatalogError,
    ) -> Part:
        """Look a part up; unknown slugs and wrong kinds raise with the nearest names."""
        entry = self._entries.get(slug)
        kinds = (kind,) if isinstance(kind, str) else kind
        if entry is None:
            pool = [s for s, e in self._entries.items() if not kinds or e.kind in kinds]
            raise error_cls(
                f"unknown {kinds[0] if kinds and len(kinds) == 1 else 'catalog'} slug {slug!r}",
                file=file,
                path=path,
                line=line,
                hint=did_you_mean(slug, pool) + "; `infra catalog list` shows all",
            )
        if kinds and entry.kind not in kinds:
            raise error_cls(
                f"{slug!r} is a {entry.kind}, expected {' or '.join(kinds)}",
                file=file,
                path=path,
                line=line,
                hint=did_you_mean(
                    slug, [s for s, e in self._entries.items() if e.kind in kinds]
                ),
            )
        return entry
