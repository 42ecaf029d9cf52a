"""Pareto frontier of sweep rows on chosen objectives.

A row is on the frontier when no other row is at least as good on every objective and
strictly better on one. Rows that failed, or lack a numeric value for an objective, are
never on it (and never dominate). Objectives are ``metric -> "min" | "max"``.

Notes
-----
Vectorised pairwise comparison in chunks of 512 rows: O(n^2 k) operations in numpy and
O(512 n k) memory; 10,000 rows x 3 objectives take well under a second.

Examples
--------
>>> rows = [{"c": 1, "p": 1}, {"c": 2, "p": 3}, {"c": 2, "p": 2}, {"c": 3, "p": 3}]
>>> pareto_front(rows, {"c": "min", "p": "max"})
[0, 1]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from infra.errors import did_you_mean
from infra.sweeps.paths import SweepError

CHUNK = 512


def parse_objectives(text: str) -> dict[str, str]:
    """``"capex_usd:min,peak_dense_pflops_bf16:max"`` -> mapping. Every objective names
    its direction (a metric where more is better minimised by default would give a
    front of the worst designs); an empty list, or a metric named twice, is an error.

    >>> parse_objectives("capex_usd:min, peak_dense_pflops_bf16:max")
    {'capex_usd': 'min', 'peak_dense_pflops_bf16': 'max'}
    """
    hint = "e.g. --objectives capex_usd:min,peak_dense_pflops_bf16:max"
    out: dict[str, str] = {}
    for item in (s.strip() for s in text.split(",")):
        if not item:
            continue
        name, _, direction = (x.strip() for x in item.partition(":"))
        if not name:
            raise SweepError(f"objective {item[:80]!r} names no metric", hint=hint)
        if direction not in ("min", "max"):
            raise SweepError(f"objective {item[:80]!r}: give the direction, min or max "
                             f"({name[:60]}:min or {name[:60]}:max)", hint=hint)
        if name in out:
            raise SweepError(f"objective {name[:80]!r} is named twice"
                             + (" with opposite directions" if out[name] != direction else ""),
                             hint=hint)
        out[name] = direction
    if not out:
        raise SweepError(f"--objectives {text[:80]!r} names no objective", hint=hint)
    return out


def check_objectives(objectives: dict[str, str], rows: list[dict[str, Any]]) -> None:
    """Every objective must be a numeric metric of at least one successful row."""
    ok = [r for r in rows if r.get("status") == "ok"]
    for name in objectives:
        if ok and not any(_num(r.get(name)) is not None for r in ok):
            known = sorted({k for r in ok for k, v in r.items() if _num(v) is not None})
            raise SweepError(f"objective {name!r} is not a numeric metric of this sweep",
                             hint=did_you_mean(name, known))


COST_PREFIXES = ("capex", "tco", "usd_per", "energy_usd", "maintenance_usd")
POWER_PREFIXES = ("it_power", "facility_power")


def bound_reason(row: dict[str, Any], metric: str) -> str | None:
    """Why ``row[metric]`` is only a bound (not comparable as a value), or None.

    A cost figure is a lower bound when the row's capex is
    (``capex_is_lower_bound``); a power figure when parts of unknown power remain
    (``power_unknown_parts_count`` > 0).

    >>> bound_reason({"capex_is_lower_bound": True}, "capex_usd")
    'capex is a lower bound (unpriced lines)'
    >>> bound_reason({"power_unknown_parts_count": 0}, "it_power_kw") is None
    True
    """
    if metric.startswith(COST_PREFIXES) and row.get("capex_is_lower_bound"):
        return "capex is a lower bound (unpriced lines)"
    if (metric.startswith(POWER_PREFIXES) or "per_facility_mw" in metric) \
            and (row.get("power_unknown_parts_count") or 0) > 0:
        return "power is a lower bound (parts of unknown power)"
    return None


def pareto_front(rows: list[dict[str, Any]], objectives: dict[str, str]) -> list[int]:
    """Positions (in ``rows``) of the non-dominated rows, in row order. A row whose
    objective value is only a bound (:func:`bound_reason`) takes no part."""
    if not objectives:
        return []
    keep = []
    vals = []
    for i, r in enumerate(rows):
        v = [_num(r.get(k)) for k in objectives]
        if r.get("status", "ok") == "ok" and all(x is not None for x in v) \
                and not any(bound_reason(r, k) for k in objectives):
            keep.append(i)
            # turn every objective into "smaller is better"
            vals.append([x if d == "min" else -x for x, d in zip(v, objectives.values())])
    if not keep:
        return []
    a = np.asarray(vals, dtype=float)
    front = np.ones(len(a), dtype=bool)
    for s in range(0, len(a), CHUNK):
        blk = a[s:s + CHUNK]  # (b, k) candidates; does any row of a dominate them?
        le = (a[None, :, :] <= blk[:, None, :]).all(axis=2)
        lt = (a[None, :, :] < blk[:, None, :]).any(axis=2)
        front[s:s + CHUNK] = ~(le & lt).any(axis=1)
    return [keep[i] for i in np.flatnonzero(front)]


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v) if math.isfinite(v) else None
