"""What every export returns: named text files, checked before anything is written."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
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


class ExportFile:
    """One output file: ``path`` is relative to the export directory.

    Either ``text`` (the whole file), or ``stream``: a callable that returns the file's
    text in pieces (lines), so a large export is written without ever holding the whole
    file; :attr:`text` joins those pieces on demand (the Python API, tests). A streamed
    file may raise :class:`ExportError` while its pieces are made (its format check runs
    over them): :func:`write_export` then writes nothing. ``data`` holds a binary file
    (xlsx); ``text`` is then a short description.
    """

    __slots__ = ("path", "_text", "data", "_stream")

    def __init__(self, path: str, text: str | None = None, data: bytes | None = None, *,
                 stream: Callable[[], Iterable[str]] | None = None) -> None:
        if (text is None) == (stream is None):
            raise TypeError("ExportFile takes either text or stream")
        self.path, self._text, self.data, self._stream = path, text, data, stream

    @property
    def text(self) -> str:
        return self._text if self._text is not None else "".join(self._stream())  # type: ignore[misc]

    def pieces(self) -> Iterable[str]:
        """The file's text in pieces (one piece for a text file)."""
        return (self._text,) if self._text is not None else self._stream()  # type: ignore[misc]

    def __repr__(self) -> str:
        return f"ExportFile({self.path!r}{', streamed' if self._stream else ''})"


@dataclass(frozen=True)
class Export:
    """The files of one export and the warnings a user must read."""

    target: str
    files: tuple[ExportFile, ...]
    warnings: tuple[str, ...] = field(default=())


def write_export(export: Export, outdir: Path | str) -> list[Path]:
    """Write every file of ``export`` under ``outdir`` atomically; returns the paths.

    A file is never written through a symbolic link, nor onto anything but a regular
    file (:func:`infra.reports.atomic.write_atomic` with ``root=outdir``). Streamed files
    are written piece by piece to their temporary files; every file is renamed into
    place only after the last one is written (and checked), so an export that fails its
    check part-way leaves the directory as it was."""
    from infra.reports.atomic import check_targets, write_atomic

    check_targets([Path(outdir) / f.path for f in export.files], root=outdir)  # all or none
    done: dict[int, Path] = {}
    streamed = [i for i, f in enumerate(export.files) if f._stream is not None]
    whole = [i for i, f in enumerate(export.files) if f._stream is None]

    def write_one(i: int, then) -> None:
        f = export.files[i]

        def write(p: Path) -> None:
            if f.data is not None:
                p.write_bytes(f.data)
            else:
                with open(p, "w", encoding="utf-8") as fh:
                    fh.writelines(f.pieces())
            then()  # the later files are written (and renamed) inside this one's write

        done[i] = write_atomic(Path(outdir) / f.path, write, root=outdir)

    def write_from(k: int) -> None:
        if k < len(streamed):  # streamed files nest (a few per export)
            write_one(streamed[k], lambda: write_from(k + 1))
            return
        for i in whole:  # already checked: one after the other
            write_one(i, lambda: None)

    write_from(0)
    return [done[i] for i in range(len(export.files))]


MAX_NODES = 500_000
"""Largest design (compute nodes) a per-node export (Slurm, k8s, cabling) is written for:
10x the largest clusters built (100k-200k GPUs are 12,500-50,000 nodes); beyond it the
files run to hundreds of MB and the run to minutes and gigabytes (issue 34)."""


def has_topology(rd) -> bool:
    """Whether a scheduler topology exists, decided from the counted design (no node is
    listed): a fabric, or an NVLink domain of several nodes (a rack with NVLink switch
    trays and two or more compute trays, or a pod that joins racks into one domain)."""
    from infra.analysis.network.fabric import design_fabrics

    if design_fabrics(rd):
        return True
    if any(p.scale_up is not None and p.scale_up.racks_per_domain > 1
           for p in rd.design.pods.values()):
        return True
    return any(n and rd.layouts[name].count("nvlink_switch_tray")
               and rd.layouts[name].count("compute_tray") > 1
               for name, n in rd.rack_counts.items())


def check_node_count(rd, target: str, instead: str) -> int:
    """The design's compute nodes (counted); ExportError above :data:`MAX_NODES`."""
    nodes = sum(rd.tray_counts().values())
    if nodes > MAX_NODES:
        raise ExportError(f"{rd.file}: design {rd.name!r} has {nodes:,} compute nodes; the "
                          f"{target} export lists every node (or switch) and is written for "
                          f"at most {MAX_NODES:,}", hint=instead)
    return nodes


def site_named(ids: list, names: dict[str, str] | None) -> list:
    """Node identities with the site's host names: ``names`` maps a node path
    (``su0/r3/t1``) to its host name (:func:`infra.ingest.site_names.site_names`); nodes
    it does not name keep the pattern's. ExportError for a name that is not a host name
    or is given twice."""
    if not names:
        return ids
    import re
    from dataclasses import replace

    host = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
    out = [replace(n, name=names[n.path]) if n.path in names else n for n in ids]
    seen: dict[str, str] = {}
    for n in out:
        if len(n.name) > 63 or not host.fullmatch(n.name):
            raise ExportError(f"node {n.path}: {one_line(n.name[:70])!r} is not a host name",
                              hint="lower-case letters, digits and '-', at most 63 characters")
        if n.name in seen:
            raise ExportError(f"host name {n.name!r} is given to both {seen[n.name]} and "
                              f"{n.path}", hint="name each node once (the pattern's names "
                              "stay on the nodes the host map does not name)")
        seen[n.name] = n.path
    return out
