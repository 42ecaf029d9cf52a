"""Text, JSON and CSV renderings of a comparison dict (``Comparison.as_dict()``).

Only formats: unknown values print as ``n/a``, booleans as yes/no; in the table a figure
that is a bound reads ``≥ 9,072,000`` (lower bound) or ``≤ 27.9`` (upper bound); CSV and
JSON keep the numbers (JSON has the ``bounds`` beside them).
"""

from __future__ import annotations

import json
from typing import Any

from infra.analysis.cost.compare_bounds import MARK
from infra.reports.tabular import to_csv
from infra.reports.terminal import fmt, table


def cell(v: Any) -> Any:
    if isinstance(v, bool):
        return "yes" if v else "no"
    return "n/a" if v is None else v


def _rows(data: dict[str, Any], marks: bool = False) -> list[dict]:
    """The comparison rows; with ``marks`` each figure that is a bound reads ``≥ value``
    (lower bound) or ``≤ value`` (upper bound), as :func:`marked_rows`."""
    rows = marked_rows(data) if marks else data["comparison"]
    return [{k: cell(v) for k, v in r.items()} for r in rows]


def marked_rows(data: dict[str, Any]) -> list[dict]:
    """``data["comparison"]`` with the bound mark before each bound figure (text)."""
    bounds = data.get("bounds") or {}
    if not any(bounds.values()):
        return data["comparison"]
    out = []
    for r in data["comparison"]:
        r = dict(r)
        for label, b in bounds.items():
            mark = MARK.get(b.get(r["metric"], ""))
            if mark and isinstance(r.get(label), (int, float)):
                r[label] = f"{mark} {fmt(r[label])}"
        out.append(r)
    return out


def render_compare(data: dict[str, Any], fmt_name: str = "table") -> str:
    """``table`` (comparison, then assumptions), ``json`` (everything) or ``csv`` (rows)."""
    if fmt_name == "json":
        return json.dumps(data, indent=2, default=str) + "\n"
    if fmt_name == "csv":
        return to_csv(_rows(data))
    out = ["Comparison (* = options differ; n/a = unknown or not applicable)"]
    if data.get("target"):
        out[0] += f"; sized to {data['target']}"
    rows = _rows(data, marks=True)
    out.append(table([{k: v for k, v in r.items() if k != "ranking"} for r in rows], none="n/a"))
    check = data.get("capex_scope_check")
    if check and len(data["options"]) > 1:
        out += ["", "Capex scope: " + check["message"]]
        out += [f"  - {r['metric']}: {r['ranking']}" for r in rows if r.get("ranking")]
    out += ["", "Assumptions:"]
    out += [f"  - {a['item']}: {fmt(a['value'])}  [{a['source']}]" for a in data["assumptions"]]
    return "\n".join(out) + "\n"
