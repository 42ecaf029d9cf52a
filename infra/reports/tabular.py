"""Render a list of row dicts as a text table, JSON or CSV."""

from __future__ import annotations

import csv
import io
import json

from infra.reports.terminal import table


def to_csv(rows: list[dict]) -> str:
    """CSV text of ``rows`` (header from the first row's keys)."""
    buf = io.StringIO()
    if rows:
        w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return buf.getvalue()


def render(rows: list[dict], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(rows, indent=2) + "\n"
    if fmt == "csv":
        return to_csv(rows)
    return table(rows) + "\n"
