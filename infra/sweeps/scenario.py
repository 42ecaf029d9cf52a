"""Run one scenario: apply its values to the base design, catalog and cost inputs, then
analyse it with the same functions as ``infra design`` and ``infra compare``.

The :class:`SweepContext` is what every worker needs (the base design's parsed data, its
file, the catalog directory, price files and cost assumptions); executors ship it to each
worker once. A scenario that fails (an infeasible design, a value the schema refuses)
becomes a row with ``status: error`` and the message, never a lost sweep; one that only
breaks a design rule (a finding: supply short under its redundancy, cooling units short)
keeps its figures with ``status: finding`` and the finding in ``error`` (never on the front).
"""

from __future__ import annotations

import json
import math
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from infra.analysis.cost.compare_metrics import design_metrics, design_tco
from infra.analysis.summary import DesignAnalysis, analyze
from infra.analysis.cost.tco import Capex, CostAssumptions
from infra.errors import InfraError
from infra.models.catalog import KIND_MODELS, Catalog, entry_as_dict, load_catalog
from infra.models.prices import PriceBook, load_prices
from infra.models.resolve import ResolvedDesign, design_from_data
from infra.sweeps.grid import Grid, Scenario
from infra.sweeps.paths import SweepError, parse_path, set_path

ERROR_CHARS = 300  # an error row keeps this much of the message
INTERNAL_ROW = "internal error ("  # how a row that failed on a bug of infra starts


@dataclass(frozen=True)
class SweepContext:
    """Everything a worker needs besides the scenarios themselves."""

    base: dict
    base_file: str
    grid: Grid
    catalog_dir: str | None = None
    price_files: tuple[str, ...] = ()
    cost: CostAssumptions = field(default_factory=CostAssumptions)


class _Cache:
    """Per-process catalog and price book, loaded once per worker (not per scenario)."""

    key: tuple | None = None
    catalog: Catalog | None = None
    book: PriceBook | None = None


def _catalog_and_book(ctx: SweepContext) -> tuple[Catalog, PriceBook]:
    key = (ctx.catalog_dir, ctx.price_files)
    if _Cache.key != key:
        cat = load_catalog(ctx.catalog_dir)
        _Cache.catalog, _Cache.book = cat, load_prices(list(ctx.price_files) or None, catalog=cat)
        _Cache.key = key
    return _Cache.catalog, _Cache.book  # type: ignore[return-value]


def apply(ctx: SweepContext, sc: Scenario, catalog: Catalog) -> tuple[dict, Catalog, CostAssumptions]:
    """The scenario's design data, catalog and cost assumptions."""
    data, cost = ctx.base, ctx.cost
    parts: dict[str, dict] = {}
    for name, value in sc.values.items():
        p = ctx.grid.parameters[name]
        for path in p.paths:
            data = set_path(data, path, value)
        if p.catalog is not None:
            slug, _, rest = p.catalog.partition(".")
            part = catalog.get(slug, error_cls=SweepError, path=("parameters", name, "catalog"))
            parts[slug] = set_path(parts.get(slug) or entry_as_dict(part), parse_path(rest), value)
        if p.input is not None:
            cost = replace(cost, **{p.input: value})
    if parts:
        catalog = catalog.with_parts(_validated(slug, d, name) for slug, d in parts.items())
    return data, catalog, cost


def _validated(slug: str, data: dict, param: str):
    try:
        return KIND_MODELS[data["kind"]].model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        raise SweepError(f"catalog override of {slug!r} is invalid at {loc}: {err['msg']}",
                         path=("parameters", param)) from None


def run_scenario(ctx: SweepContext, sc: Scenario) -> dict[str, Any]:
    """One result row: scenario columns, then ``status``, ``error`` and every metric."""
    row: dict[str, Any] = {"scenario": sc.index, "name": sc.name, **sc.values}
    try:
        catalog, book = _catalog_and_book(ctx)
        data, catalog, cost = apply(ctx, sc, catalog)
        da, capex = _analysed(ctx, sc, data, catalog, book)
        metrics = scenario_metrics(da, capex, cost)
        if ctx.grid.train is not None:
            from infra.analysis.cost.compare_train import TrainSpec, train_metrics

            t = ctx.grid.train
            metrics.update(train_metrics(da, TrainSpec(t.model, t.tokens, t.precision), cost))
    except InfraError as exc:
        return {**row, "status": "error", "error": _clip(str(exc))}
    except (ArithmeticError, ValueError, TypeError, KeyError) as exc:  # a bug: keep the sweep
        return {**row, "status": "error", "error": _clip(f"{INTERNAL_ROW}{type(exc).__name__}: "
                                                         f"{exc}); please report")}
    if da.findings:  # a design rule broken (e.g. supply short under N+N): figures kept
        text = "; ".join(f"finding: {f.path}: {f.message}" for f in da.findings)
        return {**row, "status": "finding", "error": _clip(text), **metrics}
    return {**row, "status": "ok", "error": None, **metrics}


_ANALYSES: OrderedDict[str, tuple] = OrderedDict()
ANALYSIS_CACHE = 32  # design analyses kept per worker (scenarios that differ only in cost
# inputs share one: grid order varies the last parameter fastest, batches are consecutive)


def _analysed(ctx: SweepContext, sc: Scenario, data: dict, catalog: Catalog, book: PriceBook):
    """(analysis, capex) of the scenario's design, shared by scenarios whose design and
    catalog inputs are equal (only cost inputs differ)."""
    design_keys = [n for n, p in ctx.grid.parameters.items() if p.input is None]
    key = json.dumps([ctx.base_file, ctx.catalog_dir, ctx.price_files,
                      [sc.values[n] for n in design_keys]], sort_keys=True, default=str)
    hit = _ANALYSES.get(key)
    if hit is not None:
        _ANALYSES.move_to_end(key)
        return hit
    out = analysed(design_from_data(data, ctx.base_file, catalog), book, findings_fatal=False)
    _ANALYSES[key] = out
    if len(_ANALYSES) > ANALYSIS_CACHE:
        _ANALYSES.popitem(last=False)
    return out


def analysed(rd: ResolvedDesign, book: PriceBook, *,
             findings_fatal: bool = True) -> tuple[DesignAnalysis, Capex]:
    """The design analysis and its capex under ``book``; a design-rule finding raises
    :class:`InfeasibleDesignError` unless ``findings_fatal`` is false (the sweep keeps the
    figures and marks the row ``status: finding``)."""
    da = analyze(rd, book)
    if findings_fatal and da.findings:
        from infra.errors import InfeasibleDesignError

        f = da.findings[0]
        raise InfeasibleDesignError(f.message, file=f.file, path=f.path, line=f.line, hint=f.hint)
    return da, da.capex  # type: ignore[return-value]


def scenario_metrics(da: DesignAnalysis, capex: Capex, a: CostAssumptions) -> dict[str, Any]:
    """Design metrics with capex and TCO under ``a`` (as ``infra compare`` gives them)."""
    tco = design_tco(da, capex, a)
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in design_metrics(da, capex, tco, a).items()}


def run_batch(ctx: SweepContext, batch: list[Scenario]) -> list[dict[str, Any]]:
    """Rows of a batch of scenarios (the unit of work an executor runs)."""
    return [run_scenario(ctx, sc) for sc in batch]


def _clip(text: str) -> str:
    return text if len(text) <= ERROR_CHARS else text[:ERROR_CHARS] + f"... ({len(text)} characters)"


def context_for(base_file: Path | str, grid: Grid, base_data: dict, *, catalog_dir=None,
                price_files=(), cost: CostAssumptions | None = None) -> SweepContext:
    """Build the context (paths as strings so it pickles the same everywhere)."""
    return SweepContext(base_data, str(base_file), grid,
                        None if catalog_dir is None else str(catalog_dir),
                        tuple(str(p) for p in price_files), cost or CostAssumptions())
