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

FORMATS = ("json", "xlsx", "md", "svg", "png", "dot")
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
    tmp = None
    want_png = "xlsx" in formats and analysis is not None and "png" not in diagram_fmts
    if analysis is not None and (diagram_fmts or want_png):
        if want_png:
            tmp = tempfile.TemporaryDirectory()
        _diagrams(analysis, data, highlight, diagram_fmts, outdir / stem,
                  Path(tmp.name) if tmp else None, res, pngs, diagram_files)
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
            elif fmt not in DIAGRAM_FORMATS:  # pragma: no cover - click restricts the choices
                raise ValueError(f"unknown report format {fmt!r}")
    finally:
        if tmp is not None:
            tmp.cleanup()
    res.written[:0] = diagram_files
    return res


def _diagrams(analysis, data, highlight, fmts, target: Path, png_dir: Path | None,
              res: ReportResult, pngs: list, files: list) -> None:
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
            files += written
            res.warnings += warns
        if png_dir is not None:
            extra, warns = render(d.source, png_dir / d.name, ("png",), exe)
            written = extra
            res.warnings += [w for w in warns if w not in res.warnings]
        pngs += [(d.title, p) for p in written if p.suffix == ".png"]
