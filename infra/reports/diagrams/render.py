"""Render DOT text with the system ``dot`` when present, else ``graphviz-pure`` (PyPI).

Never fails a report: with no renderer, or when rendering fails, the ``.dot`` file is
written instead and a warning says why.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from infra.reports.atomic import write_atomic, write_text_atomic

RENDERERS = ("dot", "graphviz-pure")
IMAGE_FORMATS = ("svg", "png")
TIMEOUT_S = 300


def find_renderer() -> str | None:
    """Path of the first renderer on PATH (``dot``, then ``graphviz-pure``)."""
    for name in RENDERERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def render(source: str, stem: Path, formats: tuple[str, ...],
           renderer: str | None = None) -> tuple[list[Path], list[str]]:
    """Write ``<stem>.<fmt>`` for each of ``formats`` (``dot``, ``svg``, ``png``).

    Returns the paths written and warnings. A format that cannot be rendered falls back
    to the DOT file.
    """
    written: list[Path] = []
    warnings: list[str] = []
    need_dot = "dot" in formats
    images = [f for f in formats if f in IMAGE_FORMATS]
    exe = renderer if renderer is not None else find_renderer()
    if images and not exe:
        warnings.append(f"{stem.name}: no Graphviz renderer (install 'dot' or "
                        f"'pip install graphviz-pure'); wrote the DOT file only")
        need_dot = True
        images = []
    for fmt in images:
        path = stem.with_suffix(f".{fmt}")
        try:
            write_atomic(path, lambda tmp, fmt=fmt: _run(exe, source, fmt, tmp))
            written.append(path)
        except (OSError, subprocess.SubprocessError) as exc:
            warnings.append(f"{path.name}: {Path(exe).name} failed ({_why(exc)}); "
                            "wrote the DOT file instead")
            need_dot = True
    if need_dot:
        written.insert(0, write_text_atomic(stem.with_suffix(".dot"), source))
    return written, warnings


PNG_DPI = 192  # PNGs at 2x (96 dpi is 1x), sharp on high-density screens and in print


def _run(exe: str, source: str, fmt: str, out: Path) -> None:
    dpi = [f"-Gdpi={PNG_DPI}"] if fmt == "png" else []
    subprocess.run([exe, f"-T{fmt}", *dpi, "-o", str(out)], input=source.encode(), check=True,
                   capture_output=True, timeout=TIMEOUT_S)


def _why(exc: Exception) -> str:
    if isinstance(exc, subprocess.CalledProcessError):
        err = exc.stderr.decode(errors="replace").strip().splitlines()
        return f"exit {exc.returncode}: {err[-1] if err else 'no message'}"
    if isinstance(exc, subprocess.TimeoutExpired):
        return f"timed out after {TIMEOUT_S} s"
    return str(exc)
