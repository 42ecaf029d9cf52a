"""``infra sweep`` and ``infra diff-designs``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click

SWEEP_REPORTS = ("csv", "json", "xlsx", "parquet")  # = infra.reports.sweep_report.FORMATS


def _workers(value: str) -> int:
    from infra.sweeps.execute import cpu_workers

    if value == "auto":
        return cpu_workers()
    if not value.isdigit() or int(value) < 1 or int(value) > 1024:
        raise click.BadParameter(f"{value!r} is not 'auto' or a whole number 1-1024")
    return int(value)


@click.command()
@click.argument("base", type=click.Path(path_type=Path))
@click.option("--grid", "grid_file", required=True, type=click.Path(path_type=Path),
              help="Grid file: parameters (design paths, catalog figures, cost inputs) and values.")
@click.option("--workers", default="auto", show_default=True,
              help="Local worker processes ('auto': one per CPU; 1: in this process).")
@click.option("--scheduler", metavar="tcp://HOST:PORT", default=None,
              help="Run on this Dask scheduler (pip install -e '.[dask]').")
@click.option("--dask", "use_dask", is_flag=True,
              help="Run on a local Dask cluster of --workers processes.")
@click.option("--batch-size", type=click.IntRange(1, 100_000), default=None,
              help="Scenarios per task (default: about four tasks per worker, at most 64).")
@click.option("--objectives", default=None, metavar="METRIC:min|max,...",
              help="Pareto objectives (default: the grid's 'objectives').")
@click.option("--report", "reports", multiple=True, type=click.Choice(SWEEP_REPORTS),
              help="Write reports/<stem>.sweep.<ext> (repeatable; default csv).")
@click.option("-o", "--output", "outdir", type=click.Path(path_type=Path), default=Path("reports"),
              show_default=True)
@click.option("--prices", "price_files", multiple=True, type=click.Path(path_type=Path),
              help="Price file(s) (default: catalogs/prices).")
@click.option("--catalog", "catalog_dir", type=click.Path(path_type=Path), default=None)
@click.option("--progress/--no-progress", default=None,
              help="Progress bar (default: only on a terminal).")
@click.option("--max-scenarios", type=click.IntRange(1, 1_000_000), default=100_000,
              show_default=True,
              help="Refuse a grid of more scenarios than this (counted before any runs).")
@click.option("-q", "--quiet", is_flag=True, help="No summary; only errors.")
def sweep(base, grid_file, workers, scheduler, use_dask, batch_size, objectives, reports,
          outdir, price_files, catalog_dir, progress, quiet, max_scenarios) -> None:
    """Run every scenario of GRID over the BASE design; rows, Pareto front, reports."""
    from infra.reports.progress import progress_bar
    from infra.reports.sweep_report import write_sweep
    from infra.reports.sweep_text import render_sweep
    from infra.sweeps import sweep as run_sweep
    from infra.sweeps.pareto import parse_objectives

    obj = parse_objectives(objectives) if objectives is not None else None
    with progress_bar("scenarios", progress) as (start, advance):
        res = run_sweep(base, grid_file, workers=_workers(workers), scheduler=scheduler,
                        dask=use_dask, batch_size=batch_size, objectives=obj,
                        catalog_dir=catalog_dir, price_files=tuple(price_files),
                        progress=advance, on_start=start, max_scenarios=max_scenarios)
    if not quiet:
        click.echo(render_sweep(res), nl=False)
    for path in write_sweep(res, outdir, Path(base).stem, tuple(dict.fromkeys(reports or ("csv",)))):
        if not quiet:
            click.echo(f"wrote {path}", err=True)
    if res.internal_errors:  # a bug, not the scenario's merits: never a quiet exit 0
        import sys

        from infra.cli.runtime import EXIT_INTERNAL_ERROR
        from infra.sweeps.scenario import INTERNAL_ROW

        first = next(r for r in res.rows if str(r.get("error") or "").startswith(INTERNAL_ROW))
        click.echo(f"error: internal error in {res.internal_errors} of {len(res.rows)} scenarios "
                   f"of {grid_file} over {base} (their rows are in the reports; the first, "
                   f"scenario {first['scenario']}: {first['error']})", err=True)
        sys.exit(EXIT_INTERNAL_ERROR)


@click.command("diff-designs")
@click.argument("a")
@click.argument("b")
@click.option("--base", type=click.Path(path_type=Path), default=None,
              help="With --grid: A and B are scenario numbers (or names) of this sweep.")
@click.option("--grid", "grid_file", type=click.Path(path_type=Path), default=None)
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@click.option("--prices", "price_files", multiple=True, type=click.Path(path_type=Path))
@click.option("--catalog", "catalog_dir", type=click.Path(path_type=Path), default=None)
def diff_designs(a, b, base, grid_file, fmt, price_files, catalog_dir) -> None:
    """Which figures change between designs A and B, and which inputs differ."""
    from infra.reports.sweep_text import diff_dict, render_diff
    from infra.sweeps import diff_designs as ddiff
    from infra.sweeps import diff_scenarios, load_grid, scenarios, sweep as run_sweep

    if (base is None) != (grid_file is None):
        raise click.UsageError("give --base and --grid together (or neither, for two design files)")
    if base is not None:
        grid = load_grid(grid_file)
        names = {str(s.index): s for s in scenarios(grid)}
        names.update({s.name: s for s in names.values()})
        picked = {}
        for key in (a, b):
            if key not in names:
                raise click.BadParameter(f"no scenario {key!r} in {grid_file} "
                                         f"(numbers {min(map(int, filter(str.isdigit, names)), default='-')}"
                                         f"..{max(map(int, filter(str.isdigit, names)), default='-')})")
            picked[names[key].index] = names[key]
        sub = {"mode": "zip", "parameters": {
            n: {**grid.parameters[n].model_dump(exclude_none=True, exclude={"range"}),
                "values": [s.values[n] for s in picked.values()]} for n in grid.parameters}}
        res = run_sweep(base, sub, catalog_dir=catalog_dir, price_files=tuple(price_files))
        d = diff_scenarios(res, 0, min(1, len(res.rows) - 1))
        labels = [names[a].name, names[b].name]  # the names of the full grid
        d = replace(d, a=labels[0], b=labels[1])
    else:
        d = ddiff(a, b, catalog_dir=catalog_dir, price_files=tuple(price_files))
    if fmt == "json":
        from infra.reports.json_report import to_json

        click.echo(to_json(diff_dict(d)), nl=False)
    else:
        click.echo(render_diff(d), nl=False)
