"""Write the requested report formats for one analysis into ``reports/``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

FORMATS = ("json", "xlsx")


def write_reports(data: dict[str, Any], stem: str, formats: tuple[str, ...], outdir: Path) -> list[Path]:
    """Write ``<outdir>/<stem>.<ext>`` for each format; returns the paths written."""
    written = []
    for fmt in formats:
        path = Path(outdir) / f"{stem}.{fmt}"
        if fmt == "json":
            from infra.reports.json_report import write_json

            written.append(write_json(data, path))
        elif fmt == "xlsx":
            from infra.reports.xlsx_report import write_xlsx

            written.append(write_xlsx(data, path))
        else:  # pragma: no cover - click restricts the choices
            raise ValueError(f"unknown report format {fmt!r}")
    return written
