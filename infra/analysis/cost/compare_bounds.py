"""Which way a lower-bound input bends each derived figure of a comparison.

Two inputs of a comparison can be lower bounds: **capex** (unpriced lines are unknown,
not zero) and **IT power** (parts of unknown power count as 0 W). A figure that grows
with such an input is then a *lower bound* (the true value is at least it: "≥"); a
figure that shrinks with it is an *upper bound* (at most: "≤"), e.g. PFLOPS per $M of
capex; a figure that does not depend on it is *no bound*, e.g. PFLOPS per facility MW
under a lower-bound capex. When two lower-bound inputs bend a figure in opposite
directions it is neither (``None``, "no bound": it can be off either way).

:data:`DEPENDS` lists, per figure, the direction of each input it depends on (+1 grows
with it, -1 shrinks with it). :func:`bound_of` turns that and the set of lower-bound
inputs into ``"lower"``, ``"upper"`` or ``None``.

Examples
--------
>>> bound_of("capex_usd", {"capex"}), bound_of("peak_dense_pflops_bf16_per_musd_capex", {"capex"})
('lower', 'upper')
>>> bound_of("peak_dense_pflops_bf16_per_facility_mw", {"capex"}) is None
True
>>> bound_of("peak_dense_pflops_bf16_per_facility_mw", {"power"})
'upper'
"""

from __future__ import annotations

import re

CAPEX, POWER = "capex", "power"
MARK = {"lower": "\u2265", "upper": "\u2264"}  # >= and <=
WORDS = {"lower": "lower bound", "upper": "upper bound"}

# (pattern over the metric name, {input: direction}); first match wins
DEPENDS: tuple[tuple[str, dict[str, int]], ...] = (
    (r"^capex_usd$|^capex_[a-z_]+_usd$|^sized_capex_usd$", {CAPEX: +1}),
    (r"^maintenance_usd", {CAPEX: +1}),
    (r"^energy_usd|^facility_usd$", {POWER: +1}),
    (r"^(tco|npv)_usd|^sized_tco_usd$|^usd_per_|^train_usd_", {CAPEX: +1, POWER: +1}),
    (r"_per_musd_capex$", {CAPEX: -1}),
    (r"_per_facility_mw$|_per_it_mw$", {POWER: -1}),
    (r"^(it|facility)_power_(kw|mw)(_per_rack)?$|^train_facility_energy_mwh$", {POWER: +1}),
)
_COMPILED = tuple((re.compile(p), d) for p, d in DEPENDS)


def depends(metric: str) -> dict[str, int]:
    """The inputs ``metric`` depends on and the direction (+1 / -1); {} when none."""
    for pat, d in _COMPILED:
        if pat.search(metric):
            return d
    return {}


def bound_of(metric: str, lower_inputs: set[str] | frozenset[str]) -> str | None:
    """``"lower"``, ``"upper"`` or ``None`` (no bound) for ``metric`` when the inputs in
    ``lower_inputs`` (``"capex"``, ``"power"``) are lower bounds."""
    dirs = {d for k, d in depends(metric).items() if k in lower_inputs}
    if dirs == {+1}:
        return "lower"
    if dirs == {-1}:
        return "upper"
    return None


def lower_inputs(capex, metrics: dict) -> frozenset[str]:
    """The inputs of one option that are lower bounds: capex with unpriced lines (and a
    priced total), IT power with parts of unknown power."""
    out = set()
    if capex.priced_usd is not None and capex.is_lower_bound:
        out.add(CAPEX)
    if metrics.get("power_unknown_parts_count"):
        out.add(POWER)
    return frozenset(out)


def option_bounds(metrics: dict, lower: frozenset[str]) -> dict[str, str]:
    """``{metric: "lower" | "upper"}`` for the known figures of one option that are bounds."""
    out = {}
    for k, v in metrics.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            b = bound_of(k, lower)
            if b:
                out[k] = b
    return out


def marked(value: str, bound: str | None) -> str:
    """``value`` with its bound mark: ``"≥ 52,528,000"``; unchanged when no bound.

    >>> marked("34.2", "upper"), marked("7", None)
    ('\u2264 34.2', '7')
    """
    return f"{MARK[bound]} {value}" if bound in MARK else value


__all__ = ["CAPEX", "DEPENDS", "MARK", "POWER", "WORDS", "bound_of", "depends", "lower_inputs",
           "marked", "option_bounds"]
