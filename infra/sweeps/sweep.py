"""``infra sweep`` as a function: many scenarios of one base design, with a Pareto front.

Examples
--------
>>> res = sweep("designs/aws_nvl36x2.yaml",
...             {"parameters": {"pue": {"path": "assumptions.pue", "values": [1.1, 1.3]}}},
...             objectives={"pue_ratio": "min", "peak_dense_pflops_bf16": "max"})
>>> [(r["pue"], r["status"], r["pue_ratio"]) for r in res.rows]
[(1.1, 'ok', 1.1), (1.3, 'ok', 1.3)]
>>> res.front
(0,)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from infra.analysis.cost.tco import CostAssumptions
from infra.errors import DesignError
from infra.models.catalog import load_catalog
from infra.models.prices import load_prices
from infra.models.resolve import load_design
from infra.models.yamlio import read_yaml
from infra.sweeps.diff import DesignDiff, diff, flatten
from infra.sweeps.execute import run_all
from infra.sweeps.grid import DEFAULT_MAX_SCENARIOS, Grid, in_grid, load_grid, scenarios
from infra.sweeps.pareto import bound_reason, check_objectives, pareto_front
from infra.sweeps.paths import SweepError, get_path
from infra.sweeps.scenario import INTERNAL_ROW, analysed, context_for, scenario_metrics


@dataclass(frozen=True)
class SweepResult:
    """Rows in scenario order (``status`` ok|error, every metric), the Pareto front."""

    base_file: str
    grid: Grid
    rows: tuple[dict[str, Any], ...]
    objectives: dict[str, str]
    front: tuple[int, ...]  # positions in ``rows``
    combinations: int  # before constraints
    dropped: int  # by constraints

    @property
    def errors(self) -> int:
        return sum(1 for r in self.rows if r["status"] != "ok")

    @property
    def internal_errors(self) -> int:
        """Rows that failed on a bug of ``infra``, not on the scenario's own merits (the
        command line reports them and exits with the internal-error code)."""
        return sum(1 for r in self.rows if r["status"] == "error"
                   and str(r.get("error") or "").startswith(INTERNAL_ROW))

    def columns(self) -> list[str]:
        """Union of row keys, in first-seen order (failed rows lack the metrics)."""
        cols: dict[str, None] = {}
        for r in self.rows:
            cols.update(dict.fromkeys(r))
        return list(cols)

    def table(self) -> list[dict[str, Any]]:
        """Rows with every column (None where a row has none), a ``pareto`` flag and
        ``pareto_note``: why a successful row could not take part (an objective that is
        only a bound)."""
        cols, front = self.columns(), set(self.front)
        out = []
        for i, r in enumerate(self.rows):
            notes = sorted({n for k in self.objectives if (n := bound_reason(r, k))})
            out.append({**{c: r.get(c) for c in cols}, "pareto": i in front,
                        "pareto_note": "; ".join(notes) or None})
        return out

    def frame(self):
        """The table as a pandas DataFrame (for notebooks)."""
        import pandas as pd

        return pd.DataFrame(self.table()).convert_dtypes()


def _grid(grid: Grid | dict | Path | str) -> Grid:
    if isinstance(grid, Grid):
        return grid
    if isinstance(grid, dict):
        try:
            return Grid.model_validate(grid)
        except ValidationError as exc:
            err = exc.errors()[0]
            raise SweepError(f"grid: {'.'.join(map(str, err['loc']))}: {err['msg']}") from None
    return load_grid(grid)


def _base(base: Path | str) -> dict:
    data = read_yaml(Path(base), DesignError)
    if not isinstance(data, dict):
        raise DesignError("a design file must be a YAML mapping", file=str(base), line=1)
    return data


def check_paths(grid: Grid, base: dict, grid_file: str | None = None) -> None:
    """Every design path of the grid exists in the base design (all but the last key,
    which may be new, e.g. an optional field)."""
    for name, p in grid.parameters.items():
        for path in p.paths:
            try:
                get_path(base, path[:-1])
            except SweepError as exc:
                raise SweepError(exc.message, file=grid_file, path=("parameters", name, "path"),
                                 hint=exc.hint) from None


def check_inputs(grid: Grid, grid_file: str | None, *, catalog_dir=None, price_files=(),
                 cost: CostAssumptions | None = None) -> None:
    """What is wrong with the grid or the options themselves is an error of the sweep
    (exit 2, naming the grid file, its line and YAML path), never a row of every scenario:
    the catalog and price files load; every ``catalog:`` target is a known slug and one of
    its fields, and every value of it, and of every ``input:``, is valid on its own.
    Values that fail only in some combinations stay per-row errors."""
    import math
    from dataclasses import replace

    from infra.errors import InfraError
    from infra.models.catalog import entry_as_dict
    from infra.sweeps.paths import parse_path, set_path
    from infra.sweeps.scenario import _validated

    def error(msg: str, where: tuple, hint: str | None = None) -> SweepError:
        from infra.models.yamlio import line_of

        line = line_of(Path(grid_file), where) if grid_file else None
        return SweepError(msg, file=grid_file, path=where, line=line, hint=hint)

    cat = load_catalog(catalog_dir)
    load_prices(list(price_files) or None, catalog=cat)  # a bad --prices file: exit 2 here
    base_cost = cost or CostAssumptions()
    for name, p in grid.parameters.items():
        where = ("parameters", name)
        values = p.value_list()
        if p.catalog is not None:
            slug, _, rest = p.catalog.partition(".")
            try:
                part = cat.get(slug)
            except InfraError as exc:
                raise error(exc.message, where + ("catalog",), exc.hint) from None
            fields = sorted(f for f in type(part).model_fields if f not in ("slug", "kind"))
            path = parse_path(rest)
            if path[0] not in fields:
                raise error(f"catalog part {slug!r} ({part.kind}) has no field {path[0]!r}",
                            where + ("catalog",), f"fields: {', '.join(fields)}")
            entry = entry_as_dict(part)
            for k, v in enumerate(values):
                try:
                    _validated(slug, set_path(entry, path, v), name)
                except InfraError as exc:
                    raise error(f"value {v!r}: {exc.message}", where + _values_key(p, k),
                                exc.hint) from None
        if p.input is not None:
            for k, v in enumerate(values):
                bad = (isinstance(v, bool) or not isinstance(v, (int, float))
                       or not math.isfinite(v) or (p.input == "years" and v != int(v)))
                why = None
                if bad:
                    why = ("is not a whole number of years" if p.input == "years" else
                           "is not a finite number")
                else:
                    try:
                        replace(base_cost, **{p.input: int(v) if p.input == "years" else v})
                    except InfraError as exc:
                        why = exc.message
                if why:
                    raise error(f"{p.input} value {v!r} {why}" if bad else
                                f"{p.input} value {v!r}: {why}", where + _values_key(p, k))


def _values_key(p, k: int) -> tuple:
    return ("values", k) if p.values is not None else ("range",)


def sweep(base: Path | str, grid: Grid | dict | Path | str, *, workers: int = 1,
          scheduler: str | None = None, dask: bool = False, batch_size: int | None = None,
          objectives: dict[str, str] | None = None, catalog_dir: Path | str | None = None,
          price_files: tuple = (), cost: CostAssumptions | None = None,
          progress: Callable[[int], None] | None = None,
          on_start: Callable[[int], None] | None = None,
          max_scenarios: int | None = DEFAULT_MAX_SCENARIOS) -> SweepResult:
    """Run every scenario of ``grid`` over the design file ``base``.

    Parameters
    ----------
    base : path
        Base design file; each scenario is this design with the grid's values applied.
    grid : Grid, dict or path
        The grid (see :mod:`infra.sweeps.grid`).
    workers, scheduler, dask, batch_size
        Execution (see :func:`infra.sweeps.execute.run_all`).
    objectives : dict, optional
        ``metric -> min|max`` for the Pareto front (default: the grid's ``objectives``).
    catalog_dir, price_files, cost
        As for ``infra design`` / ``infra compare``.
    progress : callable, optional
        Called with a count of finished scenarios as batches complete.
    on_start : callable, optional
        Called once with the number of scenarios to run (for a progress bar's total).
    max_scenarios : int or None
        Refuse a grid of more scenarios than this (after constraints; counted before any
        runs); None: only the grid limit of :data:`~infra.sweeps.grid.MAX_SCENARIOS`
        combinations.

    Returns
    -------
    SweepResult
    """
    g = _grid(grid)
    grid_file = None if isinstance(grid, (Grid, dict)) else str(grid)
    data = _base(base)
    check_paths(g, data, grid_file)
    with in_grid(grid_file):  # the budget first: nothing is listed past it
        items = scenarios(g, max_scenarios)
        if not items:
            raise SweepError(f"the constraints leave no scenario of the {g.size():,} "
                             "combinations", path=("constraints",),
                             hint="loosen the constraints (a combination runs when every "
                                  "one is true)")
    check_inputs(g, grid_file, catalog_dir=catalog_dir, price_files=price_files, cost=cost)
    if g.train is not None:  # an unknown model is the grid's error, not every row's
        cat = load_catalog(catalog_dir)
        cat.get(g.train.model, "model", file=grid_file, path=("train", "model"))
    if on_start:
        on_start(len(items))
    ctx = context_for(base, g, data, catalog_dir=catalog_dir, price_files=price_files, cost=cost)
    rows = run_all(ctx, items, workers=workers, scheduler=scheduler, dask=dask,
                   batch_size=batch_size, progress=progress)
    obj = dict(objectives if objectives is not None else g.objectives)
    check_objectives(obj, rows)
    return SweepResult(str(base), g, tuple(rows), obj, tuple(pareto_front(rows, obj)),
                       g.size(), g.size() - len(items))


def diff_designs(a: Path | str, b: Path | str, *, catalog_dir: Path | str | None = None,
                 price_files: tuple = (), cost: CostAssumptions | None = None) -> DesignDiff:
    """Figures that differ between two design files, and the inputs that differ."""
    cat = load_catalog(catalog_dir)
    book = load_prices(list(price_files) or None, catalog=cat)
    m = [scenario_metrics(*analysed(load_design(f, cat), book), cost or CostAssumptions())
         for f in (a, b)]
    return diff(str(a), str(b), flatten(_base(a)), flatten(_base(b)), m[0], m[1])


def diff_scenarios(res: SweepResult, a: int | str, b: int | str) -> DesignDiff:
    """Figures that differ between two scenarios of a sweep (by index or name), and the
    parameter values (with the paths they set) that differ."""
    ra, rb = _find(res, a), _find(res, b)
    ins_a, ins_b = _inputs(res.grid, ra), _inputs(res.grid, rb)
    params = set(res.grid.parameters)
    return diff(ra["name"], rb["name"], ins_a, ins_b, _metrics(_checked(ra), params),
                _metrics(_checked(rb), params))


def _inputs(g: Grid, row: dict) -> dict[str, Any]:
    out = {}
    for name, p in g.parameters.items():
        where = (", ".join(p.path if isinstance(p.path, list) else [p.path]) if p.path
                 else f"catalog {p.catalog}" if p.catalog else f"input {p.input}")
        out[f"{name} ({where})"] = row[name]
    return out


def _find(res: SweepResult, key: int | str) -> dict:
    for r in res.rows:
        if (isinstance(key, int) and r["scenario"] == key) or r["name"] == key \
                or str(r["scenario"]) == str(key):
            return r
    raise SweepError(f"no scenario {key!r} in this sweep",
                     hint=f"scenarios are numbered {res.rows[0]['scenario']}..{res.rows[-1]['scenario']}"
                     if res.rows else "the sweep ran no scenario")


def _checked(row: dict) -> dict:
    if row["status"] != "ok":
        raise SweepError(f"scenario {row['name']!r} failed: {row['error']}")
    return row


_META = ("scenario", "name", "status", "error")


def _metrics(row: dict, params: set[str] = frozenset()) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in _META and k not in params}
