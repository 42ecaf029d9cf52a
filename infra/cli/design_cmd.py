"""``infra design`` and ``infra validate``."""

from __future__ import annotations

from pathlib import Path

import click

REPORTS = ("json", "xlsx", "md", "svg", "png", "dot")  # = infra.reports.writer.FORMATS


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--report", "reports", multiple=True, type=click.Choice(REPORTS),
              help="Report format to write (repeatable).")
@click.option("--highlight", metavar="KIND", default=None,
              help="Component kind for the failure-domain diagram (e.g. nvlink_backplane, "
                   "compute_tray, nic); default: the NVLink cable cartridge or a compute tray.")
@click.option("-o", "--output", "outdir", type=click.Path(path_type=Path), default=Path("reports"),
              show_default=True, help="Directory for reports.")
@click.option("--catalog", "catalog_dir", type=click.Path(path_type=Path), default=None,
              help="Catalog directory (default: the repository's catalogs/).")
@click.option("-q", "--quiet", is_flag=True, help="Do not print the terminal summary.")
@click.option("--prices", "price_files", multiple=True, type=click.Path(path_type=Path),
              help="Price file overriding catalogs/prices/ by slug (repeatable), e.g. your "
                   "own vendor quote (basis: quote).")
def design(files, reports, highlight, outdir, catalog_dir, quiet, price_files) -> None:
    """Analyse design FILE(s): summary on the terminal, reports under reports/."""
    from infra.analysis.summary import analyze_file
    from infra.models.catalog import load_catalog
    from infra.models.prices import load_prices
    from infra.reports.terminal import render_summary
    from infra.reports.writer import write_reports

    catalog = load_catalog(catalog_dir)
    book = load_prices(price_files, catalog)
    for f in files:
        analysis = analyze_file(f, catalog, book)
        data = analysis.as_dict()
        if not quiet:
            click.echo(render_summary(data))
        if highlight and any(r in reports for r in ("svg", "png", "dot", "xlsx")):
            from infra.analysis.failure_view import failure_view

            failure_view(analysis, highlight)  # an unknown kind is an error, before writing
        res = write_reports(data, Path(f).stem, tuple(dict.fromkeys(reports)), outdir,
                            analysis=analysis, highlight=highlight)
        for path in res.written:
            click.echo(f"wrote {path}")
        for w in res.warnings:
            click.echo(f"warning: {w}", err=True)


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--catalog", "catalog_dir", type=click.Path(path_type=Path), default=None)
def validate(files, catalog_dir) -> None:
    """Check design or catalog FILE(s); exit 2 on the first error."""
    from infra.analysis.validate import validate_file
    from infra.models.catalog import load_catalog

    catalog = load_catalog(catalog_dir)
    for f in files:
        kind = validate_file(Path(f), catalog)
        click.echo(f"ok  {f}  ({kind})")
