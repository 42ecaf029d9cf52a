"""One error hierarchy for the package; the CLI catches :class:`InfraError` once.

Every message says where (file, YAML path, line), what is wrong and how to fix it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence


class InfraError(Exception):
    """A user-facing error: bad input or an infeasible design (CLI exit code 2)."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        path: Sequence[str | int] | str | None = None,
        line: int | None = None,
        hint: str | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.path = path if isinstance(path, str) or path is None else format_path(path)
        self.line = line
        self.hint = hint
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = self.file + (f":{self.line}" if self.line else "")
        if self.path:
            where = f"{where}: {self.path}" if where else self.path
        text = f"{where}: {self.message}" if where else self.message
        if self.hint:
            text += f" ({self.hint})"
        return text


class CatalogError(InfraError):
    """A catalog file is malformed or inconsistent."""


class DesignError(InfraError):
    """A design file is malformed or refers to something that does not exist."""


class TopologyError(InfraError):
    """A tray or domain cannot be wired as declared (ports, lanes, radix)."""


class PriceError(InfraError):
    """A price file is malformed or names a part the catalog does not have."""


class CompareError(InfraError):
    """A comparison cannot be set up (unknown option, bad target or assumption)."""


class InfeasibleDesignError(InfraError):
    """The design is well formed but breaks a physical limit (power, cooling, space)."""


def format_path(path: Iterable[str | int]) -> str:
    """Render a YAML path like ``racks.nvl36.contents[0].type``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def nearest(name: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Closest known names to ``name`` (for 'did you mean' hints)."""
    cands = sorted(set(candidates))
    close = difflib.get_close_matches(name, cands, n=n, cutoff=0.4)
    if not close:
        close = [c for c in cands if name.split("-")[-1] in c][:n]
    return close


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    close = nearest(name, candidates)
    return f"did you mean {', '.join(repr(c) for c in close)}?" if close else "no similar name known"


class RatesError(InfraError):
    """A failure-rates file (or a design's ``failure_rates``) is malformed."""
