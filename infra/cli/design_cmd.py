"""``infra design`` and ``infra validate``."""

from __future__ import annotations

from pathlib import Path

import click

REPORTS = ("json", "xlsx")


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--report", "reports", multiple=True, type=click.Choice(REPORTS),
              help="Report format to write (repeatable).")
@click.option("-o", "--output", "outdir", type=click.Path(path_type=Path), default=Path("reports"),
              show_default=True, help="Directory for reports.")
@click.option("--catalog", "catalog_dir", type=click.Path(path_type=Path), default=None,
              help="Catalog directory (default: the repository's catalogs/).")
@click.option("-q", "--quiet", is_flag=True, help="Do not print the terminal summary.")
def design(files, reports, outdir, catalog_dir, quiet) -> None:
    """Analyse design FILE(s): summary on the terminal, reports under reports/."""
    from infra.analysis.summary import analyze_file
    from infra.models.catalog import load_catalog
    from infra.reports.terminal import render_summary
    from infra.reports.writer import write_reports

    catalog = load_catalog(catalog_dir)
    for f in files:
        data = analyze_file(f, catalog).as_dict()
        if not quiet:
            click.echo(render_summary(data))
        for path in write_reports(data, Path(f).stem, tuple(dict.fromkeys(reports)), outdir):
            click.echo(f"wrote {path}")


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
