"""Sweep grids: which inputs vary, the values each takes, and which combinations run.

A grid file (YAML) names parameters; each sets one or more YAML paths of the base design
(``path``), one figure of a catalog part (``catalog: SLUG.FIELD``), or one cost input
(``input``), to each of its ``values`` (or a numeric ``range``)::

    mode: product              # every combination (default); "zip": all in lock-step
    parameters:
      tray:
        path: [racks.nvl72.contents.2.type, racks.nvl72.contents.4.type]
        values: [nvidia-gb200-compute-tray, nvidia-gb200-compute-tray-cx8]
      oversub:
        path: fabrics.compute.tiers[0].oversubscription
        values: [1, 2]
      energy:
        input: energy_usd_per_kwh
        range: {start: 0.06, stop: 0.12, step: 0.02}
    zip: [[tray, oversub]]     # optional: these vary together inside the product
    constraints:               # a combination runs only when every expression is true
      - "not (tray == 'nvidia-gb200-compute-tray' and oversub == 2)"
    objectives: {capex_usd: min, peak_dense_pflops_bf16: max}

Constraints are expressions over parameter names, evaluated by a small whitelisted
interpreter (comparisons, ``and``/``or``/``not``, ``in``, arithmetic): never ``eval``.

Examples
--------
>>> g = Grid.model_validate({"parameters": {"a": {"input": "years", "values": [3, 5]},
...                          "b": {"input": "pue", "range": {"start": 1.1, "stop": 1.3,
...                                                          "step": 0.1}}},
...                          "constraints": ["not (a == 3 and b > 1.25)"]})
>>> [s.values for s in scenarios(g)]
[{'a': 3, 'b': 1.1}, {'a': 3, 'b': 1.2}, {'a': 5, 'b': 1.1}, {'a': 5, 'b': 1.2}, {'a': 5, 'b': 1.3}]
"""

from __future__ import annotations

import itertools
import math
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError, model_validator

from infra.errors import did_you_mean
from infra.models.base import Strict
from infra.models.catalog import validation_error
from infra.models.yamlio import read_yaml
from infra.sweeps.constraints import check, compile_constraint
from infra.sweeps.paths import SweepError, parse_path

MAX_SCENARIOS = 1_000_000  # combinations a grid may have at all (checked before expanding)
DEFAULT_MAX_SCENARIOS = 100_000  # scenarios a sweep runs unless --max-scenarios says more
COST_INPUTS = ("energy_usd_per_kwh", "pue", "years", "maintenance_fraction_per_year")


class Range(Strict):
    """``start``, ``start + step``, ... up to ``stop`` inclusive (to 1e-9 of a step)."""

    start: float
    stop: float
    step: Annotated[float, Field(gt=0)]

    @model_validator(mode="after")
    def _finite(self):  # noqa: ANN202
        if not all(math.isfinite(x) for x in (self.start, self.stop, self.step)):
            raise ValueError("start, stop and step must be finite numbers")
        if self.stop < self.start:
            raise ValueError(f"stop {self.stop} is below start {self.start}")
        span = (self.stop - self.start) / self.step
        if not math.isfinite(span) or math.floor(span + 1e-9) + 1 > MAX_SCENARIOS:  # counted
            raise ValueError(f"range has {_count_text(span)} values, over the "
                             f"{MAX_SCENARIOS:,} a grid may have")
        return self

    def count(self) -> int:
        """Number of values (without listing them)."""
        return int(math.floor((self.stop - self.start) / self.step + 1e-9)) + 1

    @cached_property
    def _values(self) -> tuple[float, ...]:
        # round() to 12 places removes float noise (0.1 + 2 * 0.1); a float of 2**52 or
        # more is already whole, and rounding it is slow (exact decimal conversion)
        return tuple(x if abs(x) >= 2.0**52 else round(x, 12)
                     for x in (self.start + i * self.step for i in range(self.count())))

    def values(self) -> list[float]:
        return list(self._values)


class Parameter(Strict):
    """One varying input: exactly one of ``path``, ``catalog``, ``input``."""

    path: str | Annotated[list[str], Field(min_length=1)] | None = None
    catalog: str | None = None  # "SLUG.FIELD[.SUBFIELD]", e.g. nvidia-b200.tdp_w
    input: Literal[COST_INPUTS] | None = None  # type: ignore[valid-type]
    values: Annotated[list[Any], Field(min_length=1)] | None = None
    range: Range | None = None

    @model_validator(mode="after")
    def _one_target(self):  # noqa: ANN202
        targets = [t for t in ("path", "catalog", "input") if getattr(self, t) is not None]
        if len(targets) != 1:
            raise ValueError(f"give exactly one of path, catalog, input (got {targets or 'none'})")
        if (self.values is None) == (self.range is None):
            raise ValueError("give exactly one of values, range")
        if self.catalog is not None and "." not in self.catalog:
            raise ValueError("catalog must be SLUG.FIELD, e.g. nvidia-b200.tdp_w")
        for k, v in enumerate(self.values or ()):
            if not _finite(v):
                raise ValueError(f"values[{k}] holds a number that is not finite (NaN or "
                                 "infinity): give a finite number")
        return self

    def count(self) -> int:
        """Number of values (a range's, without listing them)."""
        return len(self.values) if self.values is not None else self.range.count()  # type: ignore[union-attr]

    @property
    def paths(self) -> tuple[tuple[str | int, ...], ...]:
        raw = [] if self.path is None else [self.path] if isinstance(self.path, str) else self.path
        return tuple(parse_path(p) for p in raw)

    def value_list(self) -> list[Any]:
        return list(self.values) if self.values is not None else self.range.values()  # type: ignore[union-attr]


class TrainGrid(Strict):
    """Train a model on every scenario's design (``train_*`` metrics, usable as objectives)."""

    model: str = Field(description="Model slug (catalogs/models), e.g. llama-3-70b.")
    tokens: Annotated[float, Field(gt=0, le=1e18)] = Field(description="Training tokens, e.g. 15e12.")
    precision: Literal["bf16", "fp8"] = Field("bf16", description="Training precision.")


class Grid(Strict):
    """A sweep: parameters, how they combine, constraints, default Pareto objectives."""

    mode: Literal["product", "zip"] = "product"
    parameters: Annotated[dict[str, Parameter], Field(min_length=1)]
    zip: list[Annotated[list[str], Field(min_length=2)]] = []
    constraints: list[str] = []
    objectives: dict[str, Literal["min", "max"]] = {}
    train: TrainGrid | None = None

    @model_validator(mode="after")
    def _names(self):  # noqa: ANN202
        seen: set[str] = set()
        for group in self.zip:
            for name in group:
                if name not in self.parameters:
                    raise ValueError(f"zip names {name!r}, not a parameter "
                                     f"({did_you_mean(name, list(self.parameters))})")
                if name in seen:
                    raise ValueError(f"parameter {name!r} is in two zip groups")
                seen.add(name)
        for group in self.axes():
            lens = {self.parameters[n].count() for n in group}
            if len(lens) > 1:
                raise ValueError(f"zipped parameters {group} have different lengths {sorted(lens)}")
        for k, text in enumerate(self.constraints):
            compile_constraint(text, set(self.parameters), k)
        return self

    def axes(self) -> list[tuple[str, ...]]:
        """Groups that vary independently (a zip group is one axis)."""
        if self.mode == "zip":
            return [tuple(self.parameters)]
        zipped = {n: tuple(g) for g in self.zip for n in g}
        out: list[tuple[str, ...]] = []
        for name in self.parameters:
            axis = zipped.get(name, (name,))
            if axis not in out:
                out.append(axis)
        return out

    def size(self) -> int:
        """Combinations before constraints."""
        return math.prod(self.parameters[a[0]].count() for a in self.axes())

    def design_analyses(self) -> int:
        """Design analyses a full run needs at most: combinations of the parameters that
        change the design or catalog (scenarios differing only in cost inputs share one)."""
        return math.prod(self.parameters[a[0]].count() for a in self.axes()
                         if any(self.parameters[n].input is None for n in a))


@dataclass(frozen=True)
class Scenario:
    """One combination: its position in grid order, a short name and the values."""

    index: int
    name: str
    values: dict[str, Any]


def load_grid(path: Path | str) -> Grid:
    """Read and validate a grid file; errors name the file and the YAML path."""
    path = Path(path)
    data = read_yaml(path, SweepError)
    if not isinstance(data, dict):
        raise SweepError("a grid file must be a YAML mapping", file=str(path), line=1,
                         hint="start with 'parameters:'")
    try:
        with in_grid(str(path)):  # a constraint's own error names the grid file too
            return Grid.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, path, SweepError) from None


@contextmanager
def in_grid(grid_file: str | None):
    """A grid error raised without its file gets the grid file and the line of its
    YAML path."""
    try:
        yield
    except SweepError as exc:
        if exc.file or not grid_file:
            raise
        from infra.models.yamlio import line_of

        line = line_of(Path(grid_file), parse_path(exc.path)) if exc.path else None
        raise SweepError(exc.message, file=grid_file, path=exc.path, line=line,
                         hint=exc.hint) from None


def scenarios(grid: Grid, max_scenarios: int | None = None) -> list[Scenario]:
    """Every combination that passes the constraints, in grid order (first parameter
    slowest), numbered from 0 before filtering so indices are stable across edits of
    the constraints.

    With ``max_scenarios``, more scenarios than that are refused (a
    :class:`SweepError` saying how many and how many design analyses) before any is
    built: the count without constraints is known at once; with constraints, the
    combinations are counted (bounded by :data:`MAX_SCENARIOS`) until the budget is
    passed."""
    n = grid.size()
    if n > MAX_SCENARIOS:
        raise SweepError(f"the grid has {n:,} combinations, over the {MAX_SCENARIOS:,} limit",
                         path=("parameters",),
                         hint="zip parameters that vary together, or split the sweep")
    checks = [compile_constraint(t, set(grid.parameters), k)
              for k, t in enumerate(grid.constraints)]
    axes = grid.axes()
    columns = [[dict(zip(a, vs)) for vs in zip(*(grid.parameters[p].value_list() for p in a))]
               for a in axes]

    def combos():
        for i, combo in enumerate(itertools.product(*columns)):
            values = {k: v for part in combo for k, v in part.items()}
            values = {k: values[k] for k in grid.parameters}
            if all(check(c, values, t, k)
                   for k, (c, t) in enumerate(zip(checks, grid.constraints))):
                yield i, values

    if max_scenarios is not None and n > max_scenarios:
        kept = n if not checks else sum(1 for _ in itertools.islice(combos(), max_scenarios + 1))
        if kept > max_scenarios:
            count = (f"more than {max_scenarios:,} scenarios after its constraints (of "
                     f"{n:,} combinations)" if checks else
                     f"{n:,} scenarios ({grid.design_analyses():,} design analyses)")
            raise SweepError(f"the grid has {count}, over the budget of {max_scenarios:,}",
                             path=("parameters",),
                             hint="narrow the grid, or raise --max-scenarios (each design "
                                  "analysis is a full design run; scenarios that differ only "
                                  "in input: values share one)")
    return [Scenario(i, scenario_name(grid, values), values) for i, values in combos()]


def _finite(v: Any) -> bool:
    """No NaN or infinity anywhere in a value (a mapping or list value included)."""
    if isinstance(v, float):
        return math.isfinite(v)
    if isinstance(v, dict):
        return all(_finite(x) for x in v.values())
    if isinstance(v, list):
        return all(_finite(x) for x in v)
    return True


def _count_text(span: float) -> str:
    return (f"{int(math.floor(span + 1e-9)) + 1:,}" if math.isfinite(span) and span < 1e18
            else "too many")


def scenario_name(grid: Grid, values: dict[str, Any]) -> str:
    """``tray=nvidia-gb200-compute-tray,oversub=2``; a mapping or list value is named by
    its position in the parameter's values (``media#2``, 1-based)."""
    parts = []
    for k, v in values.items():
        if isinstance(v, (dict, list)):
            parts.append(f"{k}#{grid.parameters[k].value_list().index(v) + 1}")
        else:
            parts.append(f"{k}={v}")
    return ",".join(parts)
