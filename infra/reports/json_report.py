"""JSON report: ``{"design": ..., "metrics": ..., "tables": ...}``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from infra.reports.atomic import write_text_atomic


def to_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, sort_keys=False, default=str, allow_nan=False) + "\n"


def write_json(data: dict[str, Any], path: Path) -> Path:
    """Write the analysis dict (``DesignAnalysis.as_dict()``) to ``path`` atomically."""
    return write_text_atomic(path, to_json(data))
