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


def write_reports(data: dict[str, Any], stem: str, formats: tuple[str, ...], outdir: Path,
                  analysis=None, highlight: str | None = None) -> ReportResult:
    """Write each of ``formats``; diagrams need ``analysis`` (a DesignAnalysis)."""
    res = ReportResult()
    outdir = Path(outdir)
    diagram_fmts = tuple(f for f in DIAGRAM_FORMATS if f in formats)
    diagram_files: list[Path] = []
    pngs: list[tuple[str, Path]] = []
    svgs: list[tuple[str, str, str]] = []
    tmp = None
    # formats the xlsx (PNG) and html (SVG) need but the user did not ask for: a temp dir
    extra = tuple(f for f, rep in (("png", "xlsx"), ("svg", "html"))
                  if rep in formats and f not in diagram_fmts) if analysis is not None else ()
    if analysis is not None and (diagram_fmts or extra):
        if extra:
            tmp = tempfile.TemporaryDirectory()
        _diagrams(analysis, data, highlight, diagram_fmts, outdir / stem,
                  (Path(tmp.name), extra) if tmp else None, res, pngs, diagram_files, svgs)
    try:
        for fmt in formats:
            path = outdir / f"{stem}.{fmt}"
            if fmt == "json":
                from infra.reports.json_report import write_json

                res.written.append(write_json(data, path))
            elif fmt == "xlsx":
                from infra.reports.xlsx_report import write_xlsx

                res.written.append(write_xlsx(data, path, analysis, pngs))
            elif fmt == "md":
                from infra.reports.markdown import write_markdown

                res.written.append(write_markdown(data, path, diagram_files))
            elif fmt == "html":
                from infra.reports.html_report import design_html, write_html

                sources = _sources(data, analysis) if analysis is not None else []
                res.written.append(write_html(design_html(data, svgs, sources), path))
            elif fmt not in DIAGRAM_FORMATS:  # pragma: no cover - click restricts the choices
                raise ValueError(f"unknown report format {fmt!r}")
    finally:
        if tmp is not None:
            tmp.cleanup()
    res.written[:0] = diagram_files
    return res


def _diagrams(analysis, data, highlight, fmts, target: Path, extra,
              res: ReportResult, pngs: list, files: list, svgs: list) -> None:
    from infra.reports.diagrams import build_diagrams
    from infra.reports.diagrams.render import find_renderer, render

    try:
        diagrams, notes = build_diagrams(analysis, data, highlight)
    except Exception as exc:  # noqa: BLE001 - a diagram bug must not cost the other reports
        res.warnings.append(f"diagrams not drawn: {type(exc).__name__}: {exc}")
        return
    res.warnings += notes
    exe = find_renderer()
    for d in diagrams:
        written: list[Path] = []
        if fmts:
            written, warns = render(d.source, target / d.name, fmts, exe)
            _font_fallbacks(written)
            files += written
            res.warnings += warns
        if extra is not None:
            more, warns = render(d.source, extra[0] / d.name, extra[1], exe)
            _font_fallbacks(more)
            written = written + more
            res.warnings += [w for w in warns if w not in res.warnings]
        pngs += [(d.title, p) for p in written if p.suffix == ".png"]
        svgs += [(d.name, d.title, p.read_text(encoding="utf-8")) for p in written
                 if p.suffix == ".svg"]


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
    from infra.models.listing import entry_rows

    catalog = analysis.rd.catalog
    slugs = dict.fromkeys(r["slug"] for r in data["tables"].get("bill_of_materials", []))
    return [r for s in slugs if s in catalog for r in entry_rows(catalog, s)]
