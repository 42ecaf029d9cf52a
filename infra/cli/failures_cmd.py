"""``infra failures``: interruptions, availability and spares from failure rates."""

from __future__ import annotations

from pathlib import Path

import click

from infra.cli.params import COUNT, SEED, FiniteFloat, rows_option


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@click.option("--report", "reports", multiple=True, type=click.Choice(["xlsx", "md", "html"]),
              help="Also write reports/<stem>.failures.<ext>; for two or more designs one "
                   "combined reports/failures-A-vs-B.<ext> (repeatable).")
@click.option("-o", "--output", "outdir", type=click.Path(path_type=Path), default=Path("reports"),
              show_default=True)
@click.option("--rates", "rates_file", type=click.Path(path_type=Path), default=None,
              help="Rates file overriding catalogs/rates/default.yaml (same schema).")
@click.option("--rates-db", "rates_db", default=None, metavar="URL",
              help="Use the site's own failure rates: the posteriors of `infra history "
                   "rates` from this history database (sqlite:///PATH or postgresql://...); "
                   "--rates still overrides them.")
@click.option("--job-gpus", type=COUNT, default=None,
              help="GPUs of the job (default: the largest multiple of the domain that fits).")
@click.option("--checkpoint-seconds", type=FiniteFloat(0, 1e7, what="up to 4 months"),
              default=None,
              help="Checkpoint write time (default: written to the design's storage, if it "
                   "declares one that every GPU of the job reaches; else the rates file's job "
                   "section).")
@click.option("--checkpoint-gb-per-gpu", "checkpoint_gb", type=FiniteFloat(0, 1e4, what="up to 10 TB"),
              default=None,
              help="Checkpoint size per GPU, GB, written to and read back from the design's "
                   "storage  [default: 4, the largest per-GPU state of Llama 3]")
@click.option("--restart-minutes", type=FiniteFloat(0, 1e6, what="up to 2 years"), default=None,
              help="The whole restart (default: the rates file's job section, plus reading "
                   "the checkpoint back from the design's storage where it is used).")
@click.option("--target", type=FiniteFloat(0, 1, lo_open=True, hi_open=True), default=0.99,
              show_default=True, help="Availability target for spares.")
@click.option("--samples", type=click.IntRange(1000, 10_000_000),
              default=400_000, show_default=True,
              help="Monte Carlo samples per availability row.")
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--catalog", "catalog_dir", type=click.Path(path_type=Path), multiple=True)
@rows_option
def failures(files, fmt, reports, outdir, rates_file, rates_db, job_gpus, checkpoint_seconds,
             checkpoint_gb, restart_minutes, target, samples, seed, catalog_dir, max_rows) -> None:
    """Failure review of design FILE(s); two or more are compared side by side, and
    --report then writes one combined report (failures-A-vs-B.<ext>)."""
    from infra.analysis.reliability.failure_review import review_file
    from infra.models.catalog import load_catalog
    from infra.reports.failures_text import compare_rows, render_compare, render_review

    catalog = load_catalog(catalog_dir)
    site = None
    if rates_db is not None:
        from infra.history import rates as site_rates
        from infra.history.db import safe_url

        label = f"history {safe_url(rates_db)}"
        site = (label, site_rates(db=rates_db).override_rows(label))
    from infra.reports.progress import progress_bar

    with progress_bar("Monte Carlo availability rows") as (_, advance):
        datas = [review_file(f, catalog=catalog, rates_file=rates_file, job_gpus=job_gpus,
                             checkpoint_write_seconds=checkpoint_seconds,
                             restart_minutes=restart_minutes,
                             checkpoint_gbyte_per_gpu=checkpoint_gb, target=target, samples=samples,
                             seed=seed, progress=advance, site_rates=site).as_dict()
                 for f in files]
    names = [Path(f).stem for f in files]
    if fmt == "json":
        from infra.reports.json_report import to_json

        click.echo(to_json(datas[0] if len(datas) == 1 else
                           {"designs": dict(zip(names, datas)), "compare": compare_rows(datas, names)}),
                   nl=False)
    else:
        click.echo(render_review(datas[0], max_rows) if len(datas) == 1 else render_compare(datas, names),
                   nl=False)
    from infra.reports.failures_write import write_failure_reports

    for path in write_failure_reports(datas, names, reports, outdir):
        click.echo(f"wrote {path}", err=True)
