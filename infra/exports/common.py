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
    data: bytes | None = None  # binary files (xlsx); ``text`` is then a short description


@dataclass(frozen=True)
class Export:
    """The files of one export and the warnings a user must read."""

    target: str
    files: tuple[ExportFile, ...]
    warnings: tuple[str, ...] = field(default=())


def write_export(export: Export, outdir: Path | str) -> list[Path]:
    """Write every file of ``export`` under ``outdir`` atomically; returns the paths."""
    from infra.reports.atomic import write_atomic, write_text_atomic

    out = []
    for f in export.files:
        path = Path(outdir) / f.path
        if f.data is not None:
            out.append(write_atomic(path, lambda p, d=f.data: p.write_bytes(d)))
        else:
            out.append(write_text_atomic(path, f.text))
    return out
