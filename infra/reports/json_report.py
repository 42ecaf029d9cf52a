"""JSON report: ``{"design": ..., "metrics": ..., "tables": ...}``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from infra.reports.atomic import write_text_atomic


def _row_encoder():
    """One C encoder for every row: ``JSONEncoder.encode`` builds a new one per call,
    which cost more than the encoding itself on 50,000 short rows."""
    enc = json.JSONEncoder(separators=(", ", ": "), default=str, allow_nan=False)
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # pragma: no cover - Pythons without the C accelerator
        return enc.encode
    # markers None: no circular-reference bookkeeping per row (a row is a flat dict of
    # scalars; a cycle would still end in RecursionError rather than loop)
    c = make(None, str, json.encoder.encode_basestring_ascii, None, ": ", ", ", False, False,
             False)
    return lambda row: "".join(c(row, 0))


_ROW = _row_encoder()


def to_json(data: dict[str, Any]) -> str:
    """Indented JSON with each table row on one line.

    Rows are encoded by the C encoder (``json.dumps`` without ``indent`` falls back to
    pure Python otherwise), so a 1,000-layout design's 12 MB report takes a tenth of the
    time; the structure above the rows stays indented for reading and diffing.

    Examples
    --------
    >>> print(to_json({"metrics": {"gpus": 72}, "tables": {"t": [{"a": 1}, {"a": 2}]}}), end="")
    {
      "metrics": {
        "gpus": 72
      },
      "tables": {
        "t": [
          {"a": 1},
          {"a": 2}
        ]
      }
    }
    """
    from infra.models.gcpause import gc_deferred

    with gc_deferred():  # the encoder's temporary tuples would start ~100 collections
        return "".join(_encode(data, 0)) + "\n"


def _encode(value: Any, depth: int):
    pad, inner = "  " * depth, "  " * (depth + 1)
    if isinstance(value, dict) and value and depth < 2:
        yield "{\n"
        for i, (k, v) in enumerate(value.items()):
            yield f"{inner}{json.dumps(str(k))}: "
            yield from _encode(v, depth + 1)
            yield ",\n" if i < len(value) - 1 else "\n"
        yield pad + "}"
    elif isinstance(value, list) and value and depth == 2:  # a table: one row a line
        rows = (inner + _ROW(r) for r in value)
        yield "[\n" + ",\n".join(rows) + "\n" + pad + "]"
    else:
        yield json.dumps(value, indent=2, default=str, allow_nan=False).replace("\n", "\n" + pad)


def write_json(data: dict[str, Any], path: Path) -> Path:
    """Write the analysis dict (``DesignAnalysis.as_dict()``) to ``path`` atomically."""
    return write_text_atomic(path, to_json(data))
