"""``infra export``: write a design out for Slurm, NCCL, Kubernetes, NetBox, graph tools."""

from __future__ import annotations

from pathlib import Path

import click

from infra.cli.params import RACK_WIDTH_M, ROW_PITCH_M, host_map_options

TARGETS = ("slurm", "nccl", "k8s", "netbox", "graphml", "cabling")


@click.command("export")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--to", "to", type=click.Choice(TARGETS), required=True, help="Target format.")
@click.option("-o", "--output", "outdir", type=click.Path(path_type=Path), default=None,
              help="Output directory (default exports/<design stem>).")
@click.option("--hostnames", "pattern", default=None,
              help="Host-name pattern, fields {index} {rack} {slot} {u} {domain} {domain_node} "
                   "(1-based); default r{rack:03d}n{slot:02d}.")
@host_map_options
@click.option("--scope", default="fabric", show_default=True,
              help="graphml only: fabric | cluster | domain | rack | tray:<slug>.")
@click.option("--rack-width-m", type=RACK_WIDTH_M, default=None,
              help="cabling only: rack pitch along a row, 0.45-3 m (default 0.6).")
@click.option("--row-pitch-m", type=ROW_PITCH_M, default=None,
              help="cabling only: distance between rows, 1.2-30 m (default 3.0).")
@click.option("--catalog", "catalog_dir", type=click.Path(path_type=Path), multiple=True)
def export(file, to, outdir, pattern, host_regex, host_map_file, scope, rack_width_m,
           row_pitch_m, catalog_dir) -> None:
    """Export design FILE to a target system's own format (checked before writing).

    --host-map / --host-regex give the nodes the site's names (slurm, k8s, netbox,
    cabling): each mapped host names the design node at its rack and slot (or group and
    node); the others keep the pattern's names."""
    from infra.analysis.layout.identity import DEFAULT_HOST_PATTERN
    from infra.exports import export_design, write_export
    from infra.models.catalog import load_catalog
    from infra.models.resolve import load_design

    from infra.analysis.layout.placement import Geometry

    geometry = None
    if rack_width_m is not None or row_pitch_m is not None:
        base = Geometry()
        geometry = Geometry(rack_width_m=rack_width_m or base.rack_width_m,
                            row_pitch_m=row_pitch_m or base.row_pitch_m)
    from infra.ingest.hostmap import site_naming

    host_map = site_naming(host_regex, host_map_file)  # a bad map exits 2 before the design
    rd = load_design(file, load_catalog(catalog_dir))
    names, notes = None, ()
    if host_map is not None:
        from infra.ingest.site_names import site_names
        from infra.ingest.slots import design_nodes

        sn = site_names(design_nodes(rd, pattern or DEFAULT_HOST_PATTERN), host_map)
        names, notes = sn.names, sn.notes
    if names is not None and to in ("nccl", "graphml"):
        notes = (f"--to {to} writes no host names (per tray type / the design's paths): the "
                 "host map is not used",)
    ex = export_design(rd, to, pattern or DEFAULT_HOST_PATTERN, scope, geometry, names)
    paths = write_export(ex, outdir or Path("exports") / file.stem)
    for p in paths:
        click.echo(f"wrote {p}")
    for w in ex.warnings:
        click.echo(f"warning: {w}", err=True)
    for n in notes:
        click.echo(f"note: {n}", err=True)
