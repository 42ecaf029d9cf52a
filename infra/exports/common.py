"""What every export returns: named text files, checked before anything is written."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from infra.errors import InfraError


class ExportError(InfraError):
    """A design cannot be exported to a format, or an export failed its format check."""


@dataclass(frozen=True)
class ExportFile:
    """One output file: ``path`` is relative to the export directory."""

    path: str
    text: str


@dataclass(frozen=True)
class Export:
    """The files of one export and the warnings a user must read."""

    target: str
    files: tuple[ExportFile, ...]
    warnings: tuple[str, ...] = field(default=())


def write_export(export: Export, outdir: Path | str) -> list[Path]:
    """Write every file of ``export`` under ``outdir`` atomically; returns the paths."""
    from infra.reports.atomic import write_text_atomic

    out = []
    for f in export.files:
        out.append(write_text_atomic(Path(outdir) / f.path, f.text))
    return out
