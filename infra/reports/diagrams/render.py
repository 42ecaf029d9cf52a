"""Render DOT text with the system ``dot`` when present, else ``graphviz-pure`` (PyPI).

Never fails a report: with no renderer, or when rendering fails, the ``.dot`` file is
written instead and a warning says why.

Speed (many diagrams, or the headline workbook's PNGs):

- :func:`render_many` renders a batch in one renderer process per CPU (``-O`` with many
  input files and several ``-T`` formats), the processes running in parallel;
- every rendered image is cached by the renderer and the DOT text (SHA-256) under
  ``$INFRA_DIAGRAM_CACHE`` (default ``~/.cache/infra/diagrams``; ``off`` disables it), so
  a diagram that did not change is never rendered twice.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from infra.errors import InfraError
from infra.reports.atomic import write_atomic, write_text_atomic

RENDERERS = ("dot", "graphviz-pure")
IMAGE_FORMATS = ("svg", "png")
TIMEOUT_S = 300
PNG_DPI = 192  # PNG files at 2x (96 dpi is 1x), sharp on high-density screens and in print
# A workbook shows a picture at its pixel size, at most 1,400 px wide: its PNGs are drawn
# at 1x and scaled down to that width by the renderer (a 2x render costs 2.2x the CPU for
# 4x the pixels, which the workbook would only scale down again).
EMBED_PNG = (96, 1400)  # (dpi, max width in px)
CACHE_ENV = "INFRA_DIAGRAM_CACHE"
CACHE_MAX_FILES = 2000  # oldest images beyond this are pruned


def find_renderer() -> str | None:
    """Path of the first renderer (``dot``, then ``graphviz-pure``).

    Looks on ``PATH``, then beside the running interpreter and in its scripts directory,
    where pip, pipx and venvs put ``graphviz-pure``: a venv's ``infra`` run by absolute
    path, from cron or through pipx finds it without the venv being activated.
    """
    dirs = [str(Path(sys.executable).parent), sysconfig.get_path("scripts")]
    for name in RENDERERS:
        path = shutil.which(name)
        if path:
            return path
    for name in RENDERERS:
        for d in dirs:
            path = shutil.which(name, path=d) if d else None
            if path:
                return path
    return None


def render(source: str, stem: Path, formats: tuple[str, ...],
           renderer: str | None = None) -> tuple[list[Path], list[str]]:
    """Write ``<stem>.<fmt>`` for each of ``formats`` (``dot``, ``svg``, ``png``).

    Returns the paths written and warnings. A format that cannot be rendered falls back
    to the DOT file.
    """
    written, warnings = render_many([(source, stem, formats)], renderer)
    return written[0], warnings


def render_many(jobs: list[tuple], renderer: str | None = None,
                workers: int | None = None) -> tuple[list[list[Path]], list[str]]:
    """Render many diagrams: ``jobs`` are ``(dot_source, stem, formats)``, or
    ``(dot_source, stem, formats, (png_dpi, max_width_px or None))`` (default
    :data:`PNG_DPI`, no width limit; :data:`EMBED_PNG` for a workbook's pictures).

    Returns, per job, the paths written (the DOT file first where written) and all
    warnings. Cached images are copied; the rest are rendered in at most ``workers``
    renderer processes at once (default: the CPU count).

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> written, warns = render_many([("graph { a -- b }", d / "ab", ("dot",))])
    >>> [p.name for p in written[0]], warns
    (['ab.dot'], [])
    """
    exe = renderer if renderer is not None else find_renderer()
    warnings: list[str] = []
    # images are files (cached or freshly rendered), copied to their place one at a time:
    # a 2,000-layout hall's 200 elevation pages are 170 MB of SVG, never all in memory
    images: dict[tuple[int, str], Path | None] = {}
    dpis = [tuple(job[3]) if len(job) > 3 else (PNG_DPI, None) for job in jobs]
    jobs = [job[:3] for job in jobs]
    for i, (source, stem, formats) in enumerate(jobs):
        for fmt in formats:
            if fmt in IMAGE_FORMATS and exe:
                images[(i, fmt)] = _cache_get(exe, fmt, source, dpis[i])
    todo = sorted({i for (i, _), data in images.items() if data is None})
    failed: dict = {}
    with tempfile.TemporaryDirectory(prefix="infra-render-") as tmp:
        if todo:
            fresh, failed = _render_batch(exe, [(i, jobs[i][0], tuple(
                f for f in jobs[i][2] if images.get((i, f), b"") is None), dpis[i])
                for i in todo], workers, Path(tmp))
            for key, data in fresh.items():
                images[key] = data
                _cache_put(exe, key[1], jobs[key[0]][0], data, dpis[key[0]])
        out: list[list[Path]] = []
        for i, (source, stem, formats) in enumerate(jobs):
            out.append(_place(i, source, stem, formats, exe, images, failed, warnings))
    if todo:  # after the copies: a pruned cache file may be one of this batch's images
        _cache_prune()
    return out, warnings


def _place(i: int, source: str, stem: Path, formats: tuple[str, ...], exe: str | None,
           images: dict, failed: dict, warnings: list[str]) -> list[Path]:
    """Copy job ``i``'s images to ``<stem>.<fmt>``; the DOT file where one is missing."""
    written: list[Path] = []
    need_dot = "dot" in formats
    if exe is None and any(f in IMAGE_FORMATS for f in formats):
        warnings.append(f"{stem.name}: no Graphviz renderer (install 'dot' or "
                        f"'pip install graphviz-pure'); wrote the DOT file only")
        need_dot = True
    for fmt in (f for f in formats if f in IMAGE_FORMATS and exe):
        path = stem.with_suffix(f".{fmt}")
        src = images.get((i, fmt))
        if src is None:
            warnings.append(f"{path.name}: {Path(exe).name} failed "  # type: ignore[arg-type]
                            f"({failed.get((i, fmt), 'no output')}); wrote the DOT file instead")
            need_dot = True
            continue
        try:
            write_atomic(path, lambda tmp, src=src: shutil.copyfile(src, tmp))
            written.append(path)
        except OSError as exc:
            warnings.append(f"{path.name}: cannot write ({exc}); wrote the DOT file instead")
            need_dot = True
    if need_dot:
        written.insert(0, write_text_atomic(stem.with_suffix(".dot"), source))
    return written


def _render_batch(exe: str, jobs: list[tuple[int, str, tuple[str, ...], tuple]],
                  workers: int | None, tmp: Path) -> tuple[dict, dict]:
    """Render ``(index, source, formats, (png_dpi, max_width_px))`` jobs into ``tmp``;
    returns the image files and the errors by (index, fmt)."""
    workers = max(1, min(workers or os.cpu_count() or 1, len(jobs)))
    chunks = [jobs[k::workers] for k in range(workers)]
    images: dict[tuple[int, str], Path] = {}
    errors: dict[tuple[int, str], str] = {}

    def run_chunk(chunk) -> None:
        by_formats: dict[tuple[str, ...], list] = {}
        for job in chunk:
            by_formats.setdefault((job[2], job[3]), []).append(job)
        for (formats, dpi), group in by_formats.items():
            files = []
            for i, source, _, _ in group:
                f = tmp / f"{i}.dot"
                f.write_text(source, encoding="utf-8")
                files.append(str(f))
            try:
                _run_files(exe, formats, files, dpi)
            except (OSError, subprocess.SubprocessError) as exc:
                if len(group) == 1:
                    for fmt in formats:
                        errors[(group[0][0], fmt)] = _why(exc)
                    continue
                for job in group:  # one bad diagram must not cost the others
                    run_chunk([job])
                continue
            for i, _, _, _ in group:
                for fmt in formats:
                    out = tmp / f"{i}.dot.{fmt}"
                    if out.exists():
                        images[(i, fmt)] = out

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(run_chunk, chunks))
    return images, errors


def _run_files(exe: str, formats: tuple[str, ...], files: list[str],
               png: tuple = (PNG_DPI, None)) -> None:
    """One renderer process per resolution: every format of every file, written as
    ``<file>.<fmt>``; PNGs at ``png`` = (dpi, max width in px or None), a drawing wider
    than that scaled down to it (a dpi would also scale the SVG)."""
    vector = [f for f in formats if f != "png"]
    png_dpi, max_px = png
    res = [f"-Gdpi={png_dpi}"] + ([f"-Gsize={max_px / png_dpi:.4f},1000"] if max_px else [])
    for fmts, dpi in ((vector, []), (["png"] if "png" in formats else [], res)):
        if fmts:
            subprocess.run([exe, *dpi, *(f"-T{f}" for f in fmts), "-O", *files], check=True,
                           capture_output=True, timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)


def _run(exe: str, source: str, fmt: str, out: Path) -> None:
    subprocess.run([exe, f"-T{fmt}", "-o", str(out)], input=source.encode(), check=True,
                   capture_output=True, timeout=TIMEOUT_S)


def cache_dir() -> Path | None:
    """Where rendered images are cached; None when ``INFRA_DIAGRAM_CACHE=off``."""
    from infra.models.catalog_cache import user_cache_dir

    return user_cache_dir(CACHE_ENV, "diagrams")


def _cache_key(exe: str, fmt: str, source: str, dpi: tuple = (PNG_DPI, None)) -> str:
    try:
        st = os.stat(exe)
        who = f"{os.path.realpath(exe)}:{st.st_size}:{st.st_mtime_ns}"
    except OSError:
        who = exe
    res = (f"@{dpi[0]}" + (f"<{dpi[1]}px" if dpi[1] else "")) if fmt == "png" else ""
    return hashlib.sha256(f"{who}\0{fmt}{res}\0{source}".encode()).hexdigest()


def _cache_get(exe: str, fmt: str, source: str, dpi: tuple = (PNG_DPI, None)) -> Path | None:
    """The cached image's file, or None."""
    d = cache_dir()
    if d is None:
        return None
    path = d / f"{_cache_key(exe, fmt, source, dpi)}.{fmt}"
    try:
        return path if path.stat().st_size else None
    except OSError:
        return None


def _cache_put(exe: str, fmt: str, source: str, data: Path,
               dpi: tuple = (PNG_DPI, None)) -> None:
    """Store a copy of the image file ``data`` atomically; a cache that cannot be written
    is skipped, never an error."""
    d = cache_dir()
    if d is None:
        return
    try:
        d.mkdir(parents=True, exist_ok=True)
        write_atomic(d / f"{_cache_key(exe, fmt, source, dpi)}.{fmt}",
                     lambda tmp: shutil.copyfile(data, tmp))
    except (OSError, InfraError):
        pass


def _cache_prune() -> None:
    """Keep the cache under :data:`CACHE_MAX_FILES`, dropping the oldest half past it."""
    d = cache_dir()
    try:
        files = list(d.iterdir()) if d is not None and d.is_dir() else []
        if len(files) > CACHE_MAX_FILES:
            files.sort(key=lambda p: p.stat().st_mtime)
            for p in files[: len(files) - CACHE_MAX_FILES // 2]:
                p.unlink(missing_ok=True)
    except OSError:
        pass


def _why(exc: Exception) -> str:
    if isinstance(exc, subprocess.CalledProcessError):
        err = exc.stderr.decode(errors="replace").strip().splitlines()
        return f"exit {exc.returncode}: {err[-1] if err else 'no message'}"
    if isinstance(exc, subprocess.TimeoutExpired):
        return f"timed out after {TIMEOUT_S} s"
    return str(exc)
