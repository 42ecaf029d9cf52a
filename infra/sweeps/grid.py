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

import ast
import itertools
import math
import operator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError, model_validator

from infra.errors import did_you_mean
from infra.models.base import Strict
from infra.models.catalog import validation_error
from infra.models.yamlio import read_yaml
from infra.sweeps.paths import SweepError, parse_path

MAX_SCENARIOS = 1_000_000  # the expanded grid is held in memory: refuse beyond this
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
        if (self.stop - self.start) / self.step > MAX_SCENARIOS:
            raise ValueError(f"range has over {MAX_SCENARIOS:,} values")
        return self

    def values(self) -> list[float]:
        n = int(math.floor((self.stop - self.start) / self.step + 1e-9)) + 1
        return [round(self.start + i * self.step, 12) for i in range(n)]


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
        return self

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
            lens = {len(self.parameters[n].value_list()) for n in group}
            if len(lens) > 1:
                raise ValueError(f"zipped parameters {group} have different lengths {sorted(lens)}")
        for text in self.constraints:
            _compile(text, set(self.parameters))
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
        return math.prod(len(self.parameters[a[0]].value_list()) for a in self.axes())


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
        return Grid.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, path, SweepError) from None


def scenarios(grid: Grid) -> list[Scenario]:
    """Every combination that passes the constraints, in grid order (first parameter
    slowest), numbered from 0 before filtering so indices are stable across edits of
    the constraints."""
    n = grid.size()
    if n > MAX_SCENARIOS:
        raise SweepError(f"the grid has {n:,} combinations, over the {MAX_SCENARIOS:,} limit",
                         hint="zip parameters that vary together, or split the sweep")
    checks = [_compile(t, set(grid.parameters)) for t in grid.constraints]
    axes = grid.axes()
    columns = [[dict(zip(a, vs)) for vs in zip(*(grid.parameters[p].value_list() for p in a))]
               for a in axes]
    out = []
    for i, combo in enumerate(itertools.product(*columns)):
        values = {k: v for part in combo for k, v in part.items()}
        values = {k: values[k] for k in grid.parameters}
        if all(_check(c, values, t) for c, t in zip(checks, grid.constraints)):
            out.append(Scenario(i, scenario_name(grid, values), values))
    return out


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


def _check(tree: ast.Expression, values: dict[str, Any], text: str) -> bool:
    try:
        return bool(_eval(tree, values))
    except (TypeError, ZeroDivisionError, ArithmeticError) as exc:
        shown = {k: (v if not isinstance(v, (dict, list)) else type(v).__name__)
                 for k, v in values.items()}
        raise SweepError(f"constraint {text[:80]!r} fails on {shown}: {exc}",
                         path=("constraints",),
                         hint="compare values of the same type (quote strings)") from None


_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.Div: operator.truediv, ast.Mod: operator.mod}
_CMP = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
        ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
        ast.NotIn: lambda a, b: a not in b}


def _compile(text: str, names: set[str]) -> ast.Expression:
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise SweepError(f"constraint {text[:80]!r} is not an expression: {exc.msg}",
                         path=("constraints",), hint="e.g. \"not (tray == 'x' and oversub == 2)\"") from None
    allowed = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub,
               ast.Compare, ast.Name, ast.Load, ast.Constant, ast.BinOp, ast.Tuple, ast.List,
               *_BIN, *_CMP)
    for node in ast.walk(tree):
        if not isinstance(node, allowed):
            raise SweepError(f"constraint {text[:80]!r} uses {type(node).__name__}, which "
                             "constraints do not allow", path=("constraints",),
                             hint="use comparisons, and/or/not, in, + - * / %")
        if isinstance(node, ast.Name) and node.id not in names:
            raise SweepError(f"constraint {text[:80]!r} names {node.id!r}, not a parameter",
                             path=("constraints",), hint=did_you_mean(node.id, sorted(names)))
    return tree


def _eval(node: ast.AST, env: dict[str, Any]) -> Any:
    if isinstance(node, ast.Expression):
        return _eval(node.body, env)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_eval(e, env) for e in node.elts)
    if isinstance(node, ast.UnaryOp):
        v = _eval(node.operand, env)
        return (not v) if isinstance(node.op, ast.Not) else -v
    if isinstance(node, ast.BoolOp):
        vals = (_eval(v, env) for v in node.values)
        return all(vals) if isinstance(node.op, ast.And) else any(vals)
    if isinstance(node, ast.BinOp):
        return _BIN[type(node.op)](_eval(node.left, env), _eval(node.right, env))
    if isinstance(node, ast.Compare):
        left = _eval(node.left, env)
        for op, comp in zip(node.ops, node.comparators):
            right = _eval(comp, env)
            if not _CMP[type(op)](left, right):
                return False
            left = right
        return True
    raise SweepError(f"unsupported constraint element {type(node).__name__}")  # pragma: no cover
