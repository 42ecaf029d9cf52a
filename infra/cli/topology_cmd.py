"""``infra topology``: export a design's graph for other tools."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--scope", default="domain", show_default=True,
              help="rack | domain | tray:<tray slug>")
@click.option("--format", "fmt", type=click.Choice(["graphml", "json"]), default="graphml",
              show_default=True)
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None,
              help="Output file (default reports/<stem>.<scope>.<format>; '-' for stdout).")
@click.option("--catalog", "catalog_dir", type=click.Path(path_type=Path), multiple=True)
def topology(file, scope, fmt, output, catalog_dir) -> None:
    """Export the NVLink domain, a rack or a tray's PCIe tree of design FILE."""
    from infra.models.catalog import load_catalog
    from infra.models.resolve import load_design
    from infra.reports.atomic import write_text_atomic
    from infra.topology.export import scoped_graph, to_graphml, to_json

    rd = load_design(file, load_catalog(catalog_dir))
    g = scoped_graph(rd, scope)
    text = to_graphml(g) if fmt == "graphml" else to_json(g)
    if output is not None and str(output) == "-":
        click.echo(text, nl=False)
        return
    path = output or Path("reports") / f"{file.stem}.{scope.replace(':', '_')}.{fmt}"
    write_text_atomic(path, text)
    click.echo(f"wrote {path} ({g.number_of_nodes()} nodes, {g.number_of_edges()} edges)")
