"""``infra synthesize``: buildable designs from a budget (power, capex, a training target)."""

from __future__ import annotations

from pathlib import Path

import click

from infra.cli.params import FiniteFloat


@click.command()
@click.option("--power-mw", type=FiniteFloat(0, 1e5, lo_open=True, what="MW"), required=True,
              help="Facility power budget (MW).")
@click.option("--capex-usd", type=FiniteFloat(0, 1e13, lo_open=True, what="USD"), default=None,
              help="Capex budget (USD), e.g. 5e8.")
@click.option("--gpus", type=click.IntRange(1, 10**9), default=None, help="At least this many GPUs.")
@click.option("--train", "train_model", default=None, help="Model to train (catalogs/models slug).")
@click.option("--tokens", type=FiniteFloat(1, 1e18, what="tokens"), default=None,
              help="Tokens for --train, e.g. 15e12.")
@click.option("--days", type=FiniteFloat(0, 1e5, lo_open=True, what="days"), default=None,
              help="Train in at most this many days.")
@click.option("--sku", "skus", multiple=True, help="Only families of this GPU (repeatable; a slug "
                                                    "or part of one, e.g. b200).")
@click.option("--cooling", type=click.Choice(["liquid", "air"]), default=None)
@click.option("--family", "families", multiple=True,
              help="Only this family (a shipped design stem, e.g. dgx_h100_su; repeatable).")
@click.option("--objectives", default=None,
              help="e.g. days:min,capex:min,power:min (default; without --train: "
                   "gpus:max,capex:min,power:min).")
@click.option("--top", type=click.IntRange(1, 10**6), default=None,
              help="Write and show the first K front designs (by the first objective).")
@click.option("--oversubscription", "oversub", default="1,2", show_default=True,
              help="First fabric tier's down:up ratios tried in every family, e.g. 1,2,3.")
@click.option("--rail-only/--no-rail-only", default=True, show_default=True,
              help="Also try rail-only fabrics (a switch a rail, no spine) where a rail fits "
                   "one switch.")
@click.option("--every-count", is_flag=True,
              help="Try each block count (default: each to 8, then about 1.4x apart).")
@click.option("--workers", type=click.IntRange(1, 1024), default=1, show_default=True,
              help="Local worker processes for the candidates' analyses.")
@click.option("--dask", is_flag=True, help="Run the analyses on a local Dask cluster.")
@click.option("--scheduler", default=None, help="Run them on this Dask scheduler (tcp://...).")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
              show_default=True)
@click.option("--report", "reports", multiple=True, type=click.Choice(["xlsx", "html"]),
              help="Also write synthesis.xlsx / synthesis.html (a chart of the front) in -o DIR.")
@click.option("-o", "--output", "outdir", type=click.Path(path_type=Path), default=None,
              help="Write the front designs (YAML), synthesis.json and synthesis.csv here.")
def synthesize(power_mw, capex_usd, gpus, train_model, tokens, days, skus, cooling, families,
               objectives, top, oversub, rail_only, every_count, workers, dask, scheduler, fmt, reports,
               outdir) -> None:
    """Candidate designs within a budget, the Pareto front, and why the rest were rejected."""
    from infra.api import synthesize as run
    from infra.reports.synthesis_report import render_synthesis, write_synthesis

    if bool(train_model) != bool(tokens):
        from infra.errors import InfraError

        raise InfraError("--train and --tokens go together",
                         hint="e.g. --train llama-3-405b --tokens 15e12")
    try:
        ratios = tuple(float(x) for x in oversub.split(",") if x.strip())
    except ValueError:
        from infra.errors import InfraError

        raise InfraError(f"--oversubscription {oversub!r}: give ratios separated by commas",
                         hint="e.g. --oversubscription 1,2,3") from None
    r = run(power_mw=power_mw, capex_usd=capex_usd, gpus=gpus, train=train_model,
            tokens=tokens, days=days, skus=skus, cooling=cooling, objectives=objectives,
            families=families, workers=workers, dask=dask, scheduler=scheduler,
            oversubscriptions=ratios, every_count=every_count, rail_only=rail_only)
    click.echo(render_synthesis(r, fmt, top), nl=False)
    if reports and outdir is None:
        from infra.errors import InfraError

        raise InfraError("--report needs -o DIR", hint="e.g. -o out/ --report html")
    if outdir is not None:
        for path in write_synthesis(r, outdir, top, tuple(reports)):
            click.echo(f"wrote {path}", err=True)
