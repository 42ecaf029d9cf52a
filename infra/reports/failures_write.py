"""``infra failures --report ...`` files: one report per design, or one combined report
of several designs (``failures-A-vs-B.<ext>``), every target checked before the first is
written."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path


def combined_stem(names: list[str]) -> str:
    """File stem of the combined report of several designs.

    >>> combined_stem(["gb200_nvl72", "aws_nvl36x2"])
    'failures-gb200_nvl72-vs-aws_nvl36x2'
    """
    stem = "failures-" + "-vs-".join(re.sub(r"[^A-Za-z0-9_.-]+", "_", n) for n in names)
    if len(stem) > 100:
        stem = f"{stem[:90]}-{hashlib.sha256(chr(0).join(names).encode()).hexdigest()[:8]}"
    return stem


def write_failure_reports(datas: list[dict], names: list[str], reports, outdir) -> list[Path]:
    """Write the ``reports`` (md, html, xlsx) of the failure reviews ``datas`` of designs
    ``names`` in ``outdir``: combined when there are several designs. Returns the paths."""
    from infra.reports.atomic import check_targets, write_text_atomic

    exts = list(dict.fromkeys(reports))
    out = Path(outdir)
    combined = len(datas) > 1
    targets = ([out / f"{combined_stem(names)}.{e}" for e in exts] if combined else
               [out / f"{n}.failures.{e}" for n in names for e in exts])
    check_targets(targets)  # all or none
    written = []
    if combined:
        for ext, path in zip(exts, targets):
            if ext == "md":
                from infra.reports.failures_text import markdown_compare

                write_text_atomic(path, markdown_compare(datas, names))
            elif ext == "html":
                from infra.reports.failures_html import failures_compare_page
                from infra.reports.html_report import write_html

                write_html(failures_compare_page(datas, names), path)
            else:
                from infra.reports.failures_xlsx import write_compare_xlsx

                write_compare_xlsx(datas, names, path)
            written.append(path)
        return written
    for name, data in zip(names, datas):
        for ext in exts:
            path = out / f"{name}.failures.{ext}"
            if ext == "md":
                from infra.reports.failures_text import markdown

                write_text_atomic(path, markdown(data))
            elif ext == "html":
                from infra.reports.failures_html import failures_page
                from infra.reports.html_report import write_html

                write_html(failures_page(data), path)
            else:
                from infra.reports.failures_text import with_headline
                from infra.reports.xlsx_report import write_xlsx

                write_xlsx(with_headline(data), path)
            written.append(path)
    return written


__all__ = ["combined_stem", "write_failure_reports"]
