"""Terminal text of a sweep (summary + Pareto front) and of a design diff."""

from __future__ import annotations

from typing import Any

from infra.reports.terminal import table



def render_sweep(res, limit: int = 20) -> str:
    """Counts, the objectives and the Pareto rows (first ``limit``)."""
    lines = [f"sweep of {res.base_file}: {res.combinations} combinations, "
             f"{res.dropped} dropped by constraints, {len(res.rows)} run, {res.errors} failed"]
    if res.errors:
        first = next(r for r in res.rows if r["status"] != "ok")
        lines.append(f"  first failure: scenario {first['scenario']} ({first['name']}): {first['error']}")
    if not res.objectives:
        lines.append("no objectives: no Pareto front (give --objectives or 'objectives:' in the grid)")
        return "\n".join(lines) + "\n"
    obj = ", ".join(f"{k} ({v})" for k, v in res.objectives.items())
    lines.append(f"Pareto front on {obj}: {len(res.front)} scenario(s)")
    notes: dict[str, int] = {}
    for r in res.table():
        if r["status"] == "ok" and r["pareto_note"]:
            notes[r["pareto_note"]] = notes.get(r["pareto_note"], 0) + 1
    for note, n in notes.items():
        lines.append(f"  left out of the front: {n} scenario(s) whose {note}")
    scalar = [n for n, p in res.grid.parameters.items()
              if not any(isinstance(v, (dict, list)) for v in p.value_list())]
    cols = ["scenario", *scalar, *res.objectives]  # mapping-valued parameters: see the name
    rows = [{c: res.rows[i].get(c) for c in cols} for i in res.front[:limit]]
    if rows:
        lines.append(table(rows))
    if len(res.front) > limit:
        lines.append(f"  ... {len(res.front) - limit} more in the report files")
    return "\n".join(lines) + "\n"


def render_diff(d) -> str:
    """Inputs that differ (the why), then the figures that change."""
    out = [f"{d.a}  ->  {d.b}", "", f"Inputs that differ ({len(d.inputs)}):"]
    out.append(table([{"input": c.path, "a": _s(c.a), "b": _s(c.b)} for c in d.inputs])
               if d.inputs else "  none")
    out += ["", f"Figures that change ({len(d.figures)}; {d.unchanged_figures} unchanged):"]
    out.append(table([{"figure": f.metric, "a": _s(f.a), "b": _s(f.b),
                       "delta": f.delta, "change_pct": f.pct} for f in d.figures])
               if d.figures else "  none")
    return "\n".join(out) + "\n"


def diff_dict(d) -> dict[str, Any]:
    return {"a": d.a, "b": d.b,
            "inputs": [{"path": c.path, "a": c.a, "b": c.b} for c in d.inputs],
            "figures": [{"metric": f.metric, "a": f.a, "b": f.b, "delta": f.delta,
                         "change_pct": f.pct} for f in d.figures],
            "unchanged_figures": d.unchanged_figures}


def _s(v: Any, n: int = 60) -> str:
    s = str(v)
    return s if len(s) <= n else s[:n - 3] + "..."
