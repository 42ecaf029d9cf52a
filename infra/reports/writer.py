"""Write the requested report formats for one analysis into ``reports/``.

``json``, ``xlsx`` and ``md`` go to ``<outdir>/<stem>.<ext>``; diagrams (``svg``,
``png``, ``dot``) to ``<outdir>/<stem>/<diagram>.<ext>``, one file per diagram. A report
never fails half-way: a diagram that cannot be built or rendered becomes a warning
(and, where possible, a DOT file) and the other reports still complete.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FORMATS = ("json", "xlsx", "md", "html", "svg", "png", "dot")
DIAGRAM_FORMATS = ("svg", "png", "dot")


@dataclass
class ReportResult:
    written: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


EMBED_MAX = 24  # diagrams embedded in a workbook; the rest stay files (--report svg/png)
EMBED_MAX_DOT_CHARS = 200_000  # about 25 racks side by side; larger would rasterise to GBs
# an elevation of 10 racks (150 kB of DOT) takes 4-5 s and 400 MiB to rasterise at 2x;
# beyond 4 racks the workbook's Rack elevation sheet lists every unit instead
EMBED_MAX_ELEVATION_CHARS = 60_000


def write_reports(data: dict[str, Any], stem: str, formats: tuple[str, ...], outdir: Path,
                  analysis=None, highlight: str | None = None,
                  diagrams: bool = True) -> ReportResult:
    """Write each of ``formats``; diagrams need ``analysis`` (a DesignAnalysis).

    ``diagrams=False`` (``--no-diagrams``) skips building and rendering every diagram,
    the workbook's embedded pictures included. Diagrams render in the background, in
    parallel, while the JSON and the workbook's sheets are written.
    """
    res = ReportResult()
    outdir = Path(outdir)
    diagram_fmts = tuple(f for f in DIAGRAM_FORMATS if f in formats) if diagrams else ()
    if diagram_fmts:  # <outdir>/<stem>/ must not be a symbolic link out of the directory
        from infra.reports.atomic import check_inside

        check_inside(outdir / stem / "diagram", outdir)
    diagram_files: list[Path] = []
    pngs = _Pngs()
    tmp = None
    want_png = (diagrams and "xlsx" in formats and analysis is not None
                and "png" not in diagram_fmts)
    want_svg = diagrams and "html" in formats and analysis is not None  # inlined in the page
    draw = analysis is not None and bool(diagram_fmts or want_png or want_svg)
    exe = None
    if draw:
        from infra.reports.diagrams.render import find_renderer

        exe = find_renderer()
    # the workbook's pictures: known to come before they are drawn (bool(pngs) is True)
    pngs.expected = int(draw and diagrams and "xlsx" in formats and exe is not None)
    sources = (_sources(data, analysis) if analysis is not None and "html" in formats
               else None)
    done: dict[str, Path] = {}
    try:
        if draw:
            if want_png or (want_svg and "svg" not in diagram_fmts):
                tmp = tempfile.TemporaryDirectory()
            _diagrams(analysis, data, highlight, diagram_fmts, outdir / stem,
                      Path(tmp.name) if tmp else None, res, pngs, diagram_files, exe,
                      embed_pngs=diagrams and "xlsx" in formats, want_svg=want_svg)
        for fmt in formats:
            path = outdir / f"{stem}.{fmt}"
            if fmt == "json":
                from infra.reports.json_report import write_json

                done[fmt] = write_json(data, path)
            elif fmt == "xlsx":
                _import_openpyxl()
                from infra.reports.xlsx_report import write_xlsx

                done[fmt] = write_xlsx(data, path, analysis, pngs)
            elif fmt == "md":
                from infra.reports.markdown import write_markdown

                pngs.wait()
                done[fmt] = write_markdown(data, path, diagram_files)
            elif fmt == "html":
                from infra.reports.html_report import write_design_html

                pngs.wait()
                done[fmt] = write_design_html(data, pngs.svgs, sources or [], path)
            elif fmt not in DIAGRAM_FORMATS + ("xlsx",):  # pragma: no cover - click's choices
                raise ValueError(f"unknown report format {fmt!r}")
    finally:
        pngs.wait()
        if tmp is not None:
            tmp.cleanup()
    res.written = diagram_files + [done[f] for f in formats if f in done]
    return res


class _Pngs:
    """The workbook's (title, PNG path) list, filled by a background render.

    ``bool()`` is known before the render ends (the workbook's sheets are built while the
    renderer runs); iterating waits for it.
    """

    def __init__(self) -> None:
        self.items: list[tuple[str, Path]] = []
        self.svgs: list[tuple[str, str, Path]] = []  # (stem, title, SVG file) for the HTML page
        self.expected = 0
        self.future = None

    def wait(self) -> None:
        if self.future is not None:
            future, self.future = self.future, None
            future.result()

    def __bool__(self) -> bool:
        return self.expected > 0 or bool(self.items)

    def __iter__(self):
        self.wait()
        return iter(list(self.items))

    def __len__(self) -> int:
        self.wait()
        return len(self.items)


def _import_openpyxl() -> None:
    """Import openpyxl without numpy: it imports numpy only to recognise numpy numbers,
    which reports never hold, and that costs about 0.15 s of a one-second run."""
    import sys

    if "openpyxl" in sys.modules or "numpy" in sys.modules:
        return
    sys.modules["numpy"] = None  # type: ignore[assignment]  # "not installed" for openpyxl
    try:
        import openpyxl  # noqa: F401
    finally:
        del sys.modules["numpy"]


def _diagrams(analysis, data, highlight, fmts, target: Path, png_dir: Path | None,
              res: ReportResult, pngs: _Pngs, files: list, exe: str | None, embed_pngs: bool,
              want_svg: bool = False) -> None:
    """Build and render every diagram in a background process (a thread where a fork is
    not possible); ``pngs.wait()`` joins it."""

    def work() -> dict:
        return _build_and_render(analysis, data, highlight, fmts, target, png_dir, exe,
                                 embed_pngs, want_svg)

    def done(out: dict) -> None:
        files.extend(Path(p) for p in out["files"])
        pngs.items += [(t, Path(p)) for t, p in out["pngs"]]
        pngs.svgs += [(stem, title, Path(p)) for stem, title, p in out.get("svgs", [])]
        res.warnings.extend(w for w in dict.fromkeys(out["warnings"]) if w not in res.warnings)

    pngs.future = _background(work, done)


def _build_and_render(analysis, data, highlight, fmts, target, png_dir, exe,
                      embed_pngs: bool, want_svg: bool = False) -> dict:
    from infra.reports.diagrams import build_diagrams
    from infra.reports.diagrams.render import EMBED_PNG, render_many

    out: dict = {"files": [], "pngs": [], "svgs": [], "warnings": []}
    # with no diagram files asked for, the workbook embeds at most the first elevation page
    embed_only = not fmts and not want_svg
    try:
        diagrams, notes = build_diagrams(analysis, data, highlight,
                                         elevation_pages=1 if embed_only else None)
    except Exception as exc:  # noqa: BLE001 - a diagram bug must not cost the other reports
        out["warnings"].append(f"diagrams not drawn: {type(exc).__name__}: {exc}")
        return out
    out["warnings"] += notes
    jobs, owners = [], []
    embedded = 0
    pages = [d.name for d in diagrams if d.name.startswith("rack_elevations_p")][1:]
    if embed_pngs and pages:
        out["warnings"].append(f"{pages[0]} .. {pages[-1]}: {len(pages):,} further rack "
                               "elevation pages not embedded in the workbook; write them with "
                               "--report svg")
    later_pages = set(pages)
    for d in diagrams:
        if not d.source:  # a page not drawn (embed_only): listed in the warning above
            continue
        embed = False
        if embed_pngs and d.name not in later_pages:
            limit = (EMBED_MAX_ELEVATION_CHARS if d.name.startswith("rack_elevations")
                     else EMBED_MAX_DOT_CHARS)
            if embedded >= EMBED_MAX or len(d.source) > limit:
                why = (f"more than {EMBED_MAX} diagrams" if embedded >= EMBED_MAX
                       else f"{len(d.source) // 1000:,} kB of DOT, too large to rasterise")
                out["warnings"].append(f"{d.name}: not embedded in the workbook ({why}); "
                                       "write it with --report svg")
            else:
                embed, embedded = True, embedded + 1
        if fmts:
            jobs.append((d.source, target / d.name, fmts))
            owners.append((d, "file", embed and "png" in fmts))
        extra = (("png",) if embed and "png" not in fmts else ()) + (
            ("svg",) if want_svg and "svg" not in fmts else ())
        if extra:  # the workbook's pictures at 1x, at most as wide as it shows them
            jobs.append((d.source, png_dir / d.name, extra, EMBED_PNG))
            owners.append((d, "extra", embed))
    written, warns = render_many(jobs, exe)
    for (d, kind, embed), paths in zip(owners, written):
        _font_fallbacks(paths)
        if kind == "file":
            out["files"] += [str(p) for p in paths]
        if embed:
            out["pngs"] += [(d.title, str(p)) for p in paths if p.suffix == ".png"]
        if want_svg:
            out["svgs"] += [(d.name, d.title, str(p)) for p in paths if p.suffix == ".svg"]
    out["warnings"] += warns
    return out


class _Done:
    """A finished or running background job: ``result()`` waits and applies it once."""

    def __init__(self, wait) -> None:
        self._wait = wait

    def result(self) -> None:
        self._wait()


def _background(work, done) -> _Done:
    """Run ``work()`` (returns a JSON-able dict) beside the caller and hand it to ``done``.

    On POSIX a forked child does the work, so diagram building (Python) and the
    workbook's sheets use both cores; elsewhere, or with threads running, a thread.
    """
    import os
    import threading

    if not hasattr(os, "fork") or threading.active_count() > 1:
        box: dict = {}
        t = threading.Thread(target=lambda: box.update(out=_capture(work)), daemon=True)
        t.start()
        return _Done(lambda: (t.join(), _apply(box["out"], done)))
    import json

    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child (coverage does not follow it)
        os.close(r)
        try:
            payload = json.dumps(_capture(work)).encode()
            with os.fdopen(w, "wb") as f:
                f.write(payload)
        finally:
            os._exit(0)
    os.close(w)

    def wait() -> None:
        with os.fdopen(r, "rb") as f:
            payload = f.read()
        os.waitpid(pid, 0)
        out = json.loads(payload) if payload else {"error": "diagram worker died", "infra": False}
        _apply(out, done)

    return _Done(wait)


def _capture(work) -> dict:
    from infra.errors import InfraError

    try:
        return {"ok": work()}
    except InfraError as exc:
        return {"error": exc.message, "infra": True, "file": exc.file, "hint": exc.hint}
    except Exception as exc:  # noqa: BLE001 - a diagram bug must not cost the other reports
        return {"error": f"{type(exc).__name__}: {exc}", "infra": False}


def _apply(out: dict, done) -> None:
    from infra.errors import InfraError

    if "ok" in out:
        done(out["ok"])
    elif out.get("infra"):
        raise InfraError(out["error"], file=out.get("file"), hint=out.get("hint"))
    else:
        done({"files": [], "pngs": [], "warnings": [f"diagrams not drawn: {out['error']}"]})


def _font_fallbacks(paths: list[Path]) -> None:
    """SVG text gets a font list with metric-compatible fallbacks (rewritten atomically)."""
    from infra.reports.atomic import write_text_atomic
    from infra.reports.diagrams.style import svg_font_stack

    for p in paths:
        if p.suffix == ".svg":
            text = p.read_text(encoding="utf-8")
            fixed = svg_font_stack(text)
            if fixed != text:
                write_text_atomic(p, fixed)


def _sources(data: dict[str, Any], analysis) -> list[dict]:
    """Every catalog figure behind the BOM's parts (as on the workbook's Sources sheet)."""
    from infra.models.listing import bom_source_rows

    return bom_source_rows(analysis.rd.catalog, data["tables"].get("bill_of_materials", []))
