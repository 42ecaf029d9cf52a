"""What every export returns: named text files, checked before anything is written."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from infra.errors import InfraError


def one_line(text: object) -> str:
    """``text`` made safe for one line of a generated file (a comment, an XML attribute):
    every control, line or paragraph separator and other non-printing character is written
    as an escape (``\\n``, ``\\u2028``), so a value never starts a new line of code.

    Examples
    --------
    >>> one_line("su\\nrm -rf ~")
    'su\\\\nrm -rf ~'
    >>> one_line("GB200 NVL72 (rack 1)")
    'GB200 NVL72 (rack 1)'
    """
    out = []
    for c in str(text):
        if c == " " or unicodedata.category(c)[0] not in "CZ":
            out.append(c)
        elif c in "\n\r\t":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}[c])
        else:
            out.append(f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}")
    return "".join(out)


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
    """Write every file of ``export`` under ``outdir`` atomically; returns the paths.

    A file is never written through a symbolic link, nor onto anything but a regular
    file (:func:`infra.reports.atomic.write_atomic` with ``root=outdir``)."""
    from infra.reports.atomic import write_atomic, write_text_atomic

    out = []
    for f in export.files:
        path = Path(outdir) / f.path
        if f.data is not None:
            out.append(write_atomic(path, lambda p, d=f.data: p.write_bytes(d), root=outdir))
        else:
            out.append(write_text_atomic(path, f.text, root=outdir))
    return out
