"""Which figures change between two designs or two sweep scenarios, and which inputs
differ (the why).

Inputs are compared as flattened YAML paths of the two designs' data (plus the cost
inputs and catalog overrides of sweep scenarios); figures are the metrics rows of the
same analysis ``infra sweep`` runs. Only what differs is listed.

Examples
--------
>>> flatten({"a": {"b": [1, {"c": 2}]}})
{'a.b[0]': 1, 'a.b[1].c': 2}
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from infra.sweeps.paths import format_path

_MISSING = "(absent)"


@dataclass(frozen=True)
class InputChange:
    path: str
    a: Any
    b: Any


@dataclass(frozen=True)
class FigureChange:
    metric: str
    a: Any
    b: Any
    delta: float | None  # b - a where both are numbers
    pct: float | None  # 100 * delta / |a| where a != 0


@dataclass(frozen=True)
class DesignDiff:
    a: str
    b: str
    inputs: tuple[InputChange, ...]
    figures: tuple[FigureChange, ...]
    unchanged_figures: int


def flatten(data: Any, prefix: tuple = ()) -> dict[str, Any]:
    """Leaf values of nested mappings/lists by YAML path."""
    if isinstance(data, dict) and data:
        out: dict[str, Any] = {}
        for k, v in data.items():
            out.update(flatten(v, prefix + (str(k),)))
        return out
    if isinstance(data, list) and data:
        out = {}
        for i, v in enumerate(data):
            out.update(flatten(v, prefix + (i,)))
        return out
    return {format_path(prefix): data}


def input_changes(a: dict[str, Any], b: dict[str, Any]) -> list[InputChange]:
    """Paths whose values differ (present in one only: shown as ``(absent)``)."""
    out = []
    for k in list(a) + [k for k in b if k not in a]:
        va, vb = a.get(k, _MISSING), b.get(k, _MISSING)
        if va != vb:
            out.append(InputChange(k, va, vb))
    return out


def figure_changes(a: dict[str, Any], b: dict[str, Any]) -> tuple[list[FigureChange], int]:
    """Metrics that differ, in ``a``'s order, and how many are equal."""
    out, same = [], 0
    for k in list(a) + [k for k in b if k not in a]:
        va, vb = a.get(k), b.get(k)
        if va == vb:
            same += 1
            continue
        delta = pct = None
        if _is_num(va) and _is_num(vb):
            delta = round(vb - va, 6)
            pct = round(100 * delta / abs(va), 2) if va else None
        out.append(FigureChange(k, va, vb, delta, pct))
    return out, same


def diff(label_a: str, label_b: str, inputs_a: dict[str, Any], inputs_b: dict[str, Any],
         metrics_a: dict[str, Any], metrics_b: dict[str, Any]) -> DesignDiff:
    """Compare two (inputs, metrics) pairs."""
    figs, same = figure_changes(metrics_a, metrics_b)
    return DesignDiff(label_a, label_b, tuple(input_changes(inputs_a, inputs_b)), tuple(figs), same)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
