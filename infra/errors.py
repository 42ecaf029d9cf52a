"""One error hierarchy for the package; the CLI catches :class:`InfraError` once.

Every message says where (file, YAML path, line), what is wrong and how to fix it.
"""

from __future__ import annotations

import contextlib
import contextvars
import reprlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

MAX_MESSAGE_CHARS = 1000  # an error message longer than this is cut (saying so)


class _Locate:
    """The type of :data:`LOCATE`."""

    def __repr__(self) -> str:
        return "LOCATE"


LOCATE = _Locate()
"""Pass as ``line=`` with a file and a YAML path (a sequence): the line is looked up from
them only when the message is shown (:func:`locate_line`)."""

_LINE_LOCATOR: Callable[[str, tuple], int | None] | None = None


def set_line_locator(locator: Callable[[str, tuple], int | None]) -> None:
    """Register the function that answers "which line of this file is this YAML path on?".

    The YAML reader registers itself when imported (:func:`infra.models.yamlio.line_of`):
    every file an error can point into has been read through it. Layers above it (the
    analyses) raise errors and findings with a file and path only."""
    global _LINE_LOCATOR
    _LINE_LOCATOR = locator


def locate_line(file: str | Path | None, path: Sequence[str | int] | None) -> int | None:
    """The 1-based line of YAML ``path`` in ``file`` (None when unknown or no reader
    is registered). Called where an error or finding is shown, never on success."""
    if not file or path is None or isinstance(path, str) or _LINE_LOCATOR is None:
        return None
    try:
        return _LINE_LOCATOR(str(file), tuple(path))
    except (OSError, InfraError):  # the file went away or no longer parses: no line
        return None


class InfraError(Exception):
    """A user-facing error: bad input or an infeasible design (CLI exit code 2)."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        path: Sequence[str | int] | str | None = None,
        line: int | None | _Locate = None,
        hint: str | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.path = path if isinstance(path, str) or path is None else format_path(path)
        self.hint = hint
        # LOCATE: the line is found from file + YAML path when the message is first shown
        # (analyses raise with the path only; they never read the YAML layer)
        self._at = tuple(path) if line is LOCATE and file and path is not None \
            and not isinstance(path, str) else None
        self._line = None if line is LOCATE else line
        super().__init__(message if self._at is not None else str(self))

    @property
    def line(self) -> int | None:
        if self._at is not None:
            at, self._at = self._at, None
            self._line = locate_line(self.file, at)
        return self._line

    @line.setter
    def line(self, value: int | None) -> None:
        self._at, self._line = None, value

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = self.file + (f":{self.line}" if self.line else "")
        if self.path:
            where = f"{where}: {self.path}" if where else self.path
        text = f"{where}: {self.message}" if where else self.message
        if self.hint:
            text += f" ({self.hint})"
        if len(text) > MAX_MESSAGE_CHARS:
            text = text[: MAX_MESSAGE_CHARS - 60] + f"... (message cut: {len(text):,} characters)"
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
    import difflib  # only on the error path: not imported by a run that succeeds

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


_REPR = reprlib.Repr()
_REPR.maxstring = 60
_REPR.maxother = 60
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 4
_REPR.maxlevel = 2


def describe_value(value: object, limit: int = 60, *, bare: bool = False) -> str:
    """A short description of a bad value for a message: never the whole of a large value.

    Examples
    --------
    >>> describe_value("x" * 10_000)
    "a string of 10,000 characters starting 'xxxxxxxxxxxxxxxxxxxxxxxx...'"
    >>> describe_value([[1, 2]] * 9)
    'a list of 9 items'
    >>> describe_value(4.5)
    '4.5'
    """
    if isinstance(value, str):
        if len(value) <= limit:
            return value if bare else repr(value)
        head = value[: min(24, limit)]
        return f"a string of {len(value):,} characters starting {head + '...'!r}"
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value):,} item{'s' if len(value) != 1 else ''}"
    if isinstance(value, dict):
        return f"a mapping of {len(value):,} key{'s' if len(value) != 1 else ''}"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**limit:
        return f"an integer of {len(str(abs(value))):,} digits"
    text = _REPR.repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def display_path(path: str | Path) -> str:
    """``path`` relative to the working directory when it lies below it (stable in reports).

    Examples
    --------
    >>> display_path(Path.cwd() / "designs" / "x.yaml") == str(Path("designs") / "x.yaml")
    True
    """
    p = Path(path)
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError, RuntimeError):
        return str(p)


_CURRENT_INPUT: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "infra_current_input", default=None)


@contextlib.contextmanager
def working_on(name: str | Path) -> Iterator[None]:
    """Name the input being processed, for the CLI's message on an unexpected error."""
    token = _CURRENT_INPUT.set(str(name))
    try:
        yield
    except BaseException as exc:
        if getattr(exc, "infra_input", None) is None:
            with contextlib.suppress(AttributeError, TypeError):
                exc.infra_input = str(name)  # type: ignore[attr-defined]
        raise
    finally:
        _CURRENT_INPUT.reset(token)


def current_input(exc: BaseException | None = None) -> str | None:
    """The input ``exc`` was raised for, else the innermost :func:`working_on` name."""
    return getattr(exc, "infra_input", None) or _CURRENT_INPUT.get()
