"""``infra catalog list|show``."""

from __future__ import annotations

from pathlib import Path

import click

FORMATS = ("table", "json", "csv")

catalog_option = click.option(
    "--catalog", "catalog_dir", type=click.Path(path_type=Path), multiple=True,
    help="Catalog directory (repeatable: several are loaded together; default: "
         "$INFRA_CATALOG or the repository's catalogs/).")


@click.group()
def catalog() -> None:
    """Browse the hardware catalog."""


@catalog.command("list")
@click.argument("kind", required=False)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@catalog_option
def list_cmd(kind, fmt, catalog_dir) -> None:
    """List catalog entries, optionally of one KIND (gpu, nic, compute_tray...)."""
    from infra.models.catalog import load_catalog
    from infra.models.listing import catalog_rows
    from infra.reports.tabular import render

    click.echo(render(catalog_rows(load_catalog(catalog_dir), kind), fmt), nl=False)


@catalog.command("show")
@click.argument("slug")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@catalog_option
def show_cmd(slug, fmt, catalog_dir) -> None:
    """Show one catalog entry with the source of each figure."""
    from infra.models.catalog import load_catalog
    from infra.models.listing import entry_rows
    from infra.reports.tabular import render

    click.echo(render(entry_rows(load_catalog(catalog_dir), slug), fmt), nl=False)
