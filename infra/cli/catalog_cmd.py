"""``infra catalog list|show``."""

from __future__ import annotations

import click

FORMATS = ("table", "json", "csv")


@click.group()
def catalog() -> None:
    """Browse the hardware catalog."""


@catalog.command("list")
@click.argument("kind", required=False)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
def list_cmd(kind, fmt) -> None:
    """List catalog entries, optionally of one KIND (gpu, nic, compute_tray...)."""
    from infra.models.catalog import load_catalog
    from infra.models.listing import catalog_rows
    from infra.reports.tabular import render

    click.echo(render(catalog_rows(load_catalog(), kind), fmt), nl=False)


@catalog.command("show")
@click.argument("slug")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
def show_cmd(slug, fmt) -> None:
    """Show one catalog entry with the source of each figure."""
    from infra.models.catalog import load_catalog
    from infra.models.listing import entry_rows
    from infra.reports.tabular import render

    click.echo(render(entry_rows(load_catalog(), slug), fmt), nl=False)
