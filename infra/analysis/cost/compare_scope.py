"""Like-for-like cost ranking: options are ranked on cost only at one capex scope.

A design priced on its GPUs alone (``gpus-only``) and a design priced as whole
populated racks (``full``) do not have comparable $ per PFLOP-year: the first leaves
out chassis, CPUs, NICs and switches. :func:`scope_check` finds whether every option
has the same scope; if not, cost metrics are shown but not ranked (unless
``allow_mixed``), and the check lists the prices that would bring every option to the
highest scope among them.

Examples
--------
>>> from infra.analysis.cost.capex import Capex
>>> s = scope_check({"a": Capex(()), "b": Capex(())}, allow_mixed=False)
>>> s.comparable, s.scope
(False, None)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from infra.analysis.cost.capex import SCOPES, Capex

RANKED_PREFIXES = ("usd_per_",)  # cost per unit of output: the figures people rank on
RANKED_SIZED = ("sized_capex_usd", "sized_tco_usd")  # equal capacity after --target


@dataclass(frozen=True)
class ScopeCheck:
    """Which capex scope each option has and whether cost metrics can be ranked."""

    scopes: dict[str, str]  # option label -> capex scope
    comparable: bool  # every option at one rankable scope
    allowed_mixed: bool  # ranked anyway (--allow-mixed-scope)
    scope: str | None  # the common scope, when there is one
    target_scope: str | None  # the highest scope among the options
    missing: dict[str, list[str]] = field(default_factory=dict)  # label -> slugs to price

    @property
    def ranked(self) -> bool:
        return self.comparable or self.allowed_mixed

    @property
    def message(self) -> str:
        """One line for the terminal and the reports."""
        scopes = ", ".join(f"{k}: {v}" for k, v in self.scopes.items())
        if self.comparable:
            return f"cost metrics ranked at one capex scope ({self.scope}): {scopes}"
        head = ("cost metrics ranked although capex scopes differ (--allow-mixed-scope)"
                if self.allowed_mixed else
                "cost metrics NOT ranked: capex scopes differ, not like for like")
        need = "; ".join(f"{k}: {', '.join(v)}" for k, v in self.missing.items() if v)
        tail = (f". To compare at scope {self.target_scope}, price {need} (a system price, "
                "covers: contents, on a tray or rack also covers what is mounted in it)"
                if need else "")
        return f"{head} ({scopes}){tail}"

    def as_dict(self) -> dict:
        return {"scopes": self.scopes, "comparable": self.comparable,
                "ranked": self.ranked, "scope": self.scope, "target_scope": self.target_scope,
                "missing_prices": self.missing, "message": self.message}


def scope_check(capex: dict[str, Capex], allow_mixed: bool = False) -> ScopeCheck:
    """Check that every option's capex has one scope that can be ranked.

    ``none`` (nothing priced) and ``partial`` (no defined scope) are never ranked.
    """
    scopes = {k: c.scope for k, c in capex.items()}
    kinds = set(scopes.values())
    common = next(iter(kinds)) if len(kinds) == 1 else None
    comparable = common is not None and common not in ("none", "partial")
    rankable = [s for s in scopes.values() if s not in ("none", "partial")]
    target = max(rankable, key=SCOPES.index) if rankable else "gpus-only"
    missing = {}
    if not comparable:
        for k, c in capex.items():
            if scopes[k] != target:
                missing[k] = c.missing_for(target) or c.missing_for("full")
    return ScopeCheck(scopes, comparable, allow_mixed and not comparable,
                      common if comparable else None, target, missing)


def is_ranked_metric(metric: str) -> bool:
    return metric.startswith(RANKED_PREFIXES) or metric in RANKED_SIZED


def rank_cell(values: dict[str, float | None], check: ScopeCheck) -> str:
    """The ranking column of one cost metric: lowest option, or why there is none."""
    known = {k: v for k, v in values.items() if v is not None}
    if not check.ranked:
        return "not ranked: mixed capex scopes"
    if len(known) < 2:
        return ""
    best = min(known, key=known.get)
    mark = "" if check.comparable else " (mixed scopes)"
    return f"lowest: {best}{mark}"
