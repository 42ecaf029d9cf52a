"""``infra export``: write a design out for Slurm, NCCL, Kubernetes, NetBox, graph tools."""

from __future__ import annotations

from pathlib import Path

import click

TARGETS = ("slurm", "nccl", "k8s", "netbox", "graphml", "cabling")


@click.command("export")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--to", "to", type=click.Choice(TARGETS), required=True, help="Target format.")
@click.option("-o", "--output", "outdir", type=click.Path(path_type=Path), default=None,
              help="Output directory (default exports/<design stem>).")
@click.option("--hostnames", "pattern", default=None,
              help="Host-name pattern, fields {index} {rack} {slot} {u} {domain} {domain_node} "
                   "(1-based); default r{rack:03d}n{slot:02d}.")
@click.option("--scope", default="fabric", show_default=True,
              help="graphml only: fabric | cluster | domain | rack | tray:<slug>.")
@click.option("--catalog", "catalog_dir", type=click.Path(path_type=Path), default=None)
def export(file, to, outdir, pattern, scope, catalog_dir) -> None:
    """Export design FILE to a target system's own format (checked before writing)."""
    from infra.analysis.identity import DEFAULT_HOST_PATTERN
    from infra.exports import export_design, write_export
    from infra.models.catalog import load_catalog
    from infra.models.resolve import load_design

    rd = load_design(file, load_catalog(catalog_dir))
    ex = export_design(rd, to, pattern or DEFAULT_HOST_PATTERN, scope)
    paths = write_export(ex, outdir or Path("exports") / file.stem)
    for p in paths:
        click.echo(f"wrote {p}")
    for w in ex.warnings:
        click.echo(f"warning: {w}", err=True)
