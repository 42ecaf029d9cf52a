"""``infra collectives`` output: the predicted rows as a table, JSON or CSV.

JSON: ``{"design": ..., "rows": [{"op", "gpus", "nodes", "size_bytes", "algorithm",
"protocol", "busbw_gbyte_s", "algbw_gbyte_s", "time_s", "bottleneck", "placement"}]}``.
"""

from __future__ import annotations

import json

from infra.reports.tabular import to_csv
from infra.reports.terminal import table

_UNITS = ((2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB"))


def human_bytes(n: int) -> str:
    """``8 GiB``, ``1 MiB``, ``134217728 B`` for sizes that are not a whole unit.

    Examples
    --------
    >>> human_bytes(8 * 2**30), human_bytes(1000)
    ('8 GiB', '1000 B')
    """
    for unit, name in _UNITS:
        if n >= unit and n % unit == 0:
            return f"{n // unit} {name}"
    return f"{n} B"


def _view(r: dict) -> dict:
    t = r["time_s"]
    return {"op": r["op"], "gpus": r["gpus"], "size": human_bytes(r["size_bytes"]),
            "algorithm": f"{r['algorithm']} {r['protocol']}",
            "busbw GB/s": round(r["busbw_gbyte_s"], 1),
            "algbw GB/s": round(r["algbw_gbyte_s"], 1),
            "time": f"{t * 1e3:.3f} ms" if t >= 1e-3 else f"{t * 1e6:.1f} us",
            "bottleneck": r["bottleneck"]}


def render_collectives(design: str, rows: list[dict], fmt: str) -> str:
    """The rows of :func:`infra.analysis.perf.collectives` (as dicts) in ``fmt``."""
    if fmt == "json":
        return json.dumps({"design": design, "rows": rows}, indent=2) + "\n"
    if fmt == "csv":
        return to_csv(rows)
    out = [design]
    placements = dict.fromkeys((r["gpus"], r["placement"]) for r in rows)
    for g, p in placements:
        out.append(f"  {g:,} GPUs: {p}")
    out.append(table([_view(r) for r in rows]))
    return "\n".join(out) + "\n"


def render_validation(rows: list[dict], summary: dict, fmt: str) -> str:
    """The published cases beside their predictions, and the error summary."""
    if fmt == "json":
        return json.dumps({"summary": summary, "rows": rows}, indent=2) + "\n"
    if fmt == "csv":
        return to_csv(rows)
    view = [{"case": r["case"], "measured": r["measured_busbw_gbyte_s"],
             "predicted": round(r["predicted_busbw_gbyte_s"], 1), "error %": r["error_pct"],
             "algorithm": r["algorithm"], "role": r["role"]} for r in rows]
    s = summary
    return (table(view) + "\n" +
            f"  {s['cases']} cases: median |error| {s['median_pct']} %, max {s['max_pct']} %; "
            f"{s['held_out']} held out: median {s['held_out_median_pct']} %, "
            f"max {s['held_out_max_pct']} %; {s['known_misses']} known miss(es) outside "
            "the targets\n")


__all__ = ["human_bytes", "render_collectives", "render_validation"]
