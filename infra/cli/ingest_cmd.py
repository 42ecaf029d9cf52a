"""``infra diff`` (as built vs as designed) and ``infra ingest`` (inventory -> design)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

LAYOUT = """\b
Inventory layout (one directory per host, named by its host name):
  DIR/ibnetdiscover.txt         ibnetdiscover (one run per fabric)
  DIR/guid-map.txt              optional: 0x<node guid> "<host> <hca>"
  DIR/<host>/nvidia-smi-q.xml   nvidia-smi -q -x
  DIR/<host>/topo-m.txt         nvidia-smi topo -m        (optional)
  DIR/<host>/nvlink-s.txt       nvidia-smi nvlink -s      (optional)
  DIR/<host>/nccl-topo.xml      NCCL_TOPO_DUMP_FILE       (optional)
  DIR/<host>/lspci-tv.txt       lspci -tvnn               (optional)"""


@click.command(epilog=LAYOUT)
@click.argument("design_file", type=click.Path(path_type=Path))
@click.option("--inventory", "inventory", required=True, type=click.Path(path_type=Path),
              help="Inventory directory (layout below).")
@click.option("--host-pattern", default="r{rack:03d}n{slot:02d}", show_default=True,
              help="Host names of the design's trays (1-based fields: index, rack, slot, u, "
                   "domain, domain_node), as in `infra export`.")
@click.option("--expect-all", is_flag=True,
              help="Every design node must have dumps (an error per node without).")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv", "md"]),
              default="table", show_default=True, help="Terminal output format.")
@click.option("--report", "reports", multiple=True, type=click.Choice(["xlsx", "md", "json", "csv"]),
              help="Also write a report file (repeatable).")
@click.option("-o", "--output", "outdir", type=click.Path(path_type=Path), default=Path("reports"),
              show_default=True, help="Directory for reports.")
@click.option("--catalog", "catalog_dir", type=click.Path(path_type=Path), multiple=True)
def diff(design_file, inventory, host_pattern, expect_all, fmt, reports, outdir, catalog_dir) -> None:
    """Compare an installed cluster (INVENTORY dumps) with DESIGN_FILE.

    Exit code 1 when a finding of severity error exists (a bring-up gate), 2 on bad input.
    """
    from infra.ingest.diff import diff_file
    from infra.models.catalog import load_catalog
    from infra.reports.diff_report import render, write_diff

    res = diff_file(design_file, inventory, load_catalog(catalog_dir), host_pattern, expect_all)
    data = res.as_dict()
    click.echo(render(data, fmt), nl=False)
    for rep in dict.fromkeys(reports):
        path = write_diff(data, Path(outdir) / f"{Path(design_file).stem}-diff.{rep}", rep)
        click.echo(f"wrote {path}", err=True)
    if res.errors:
        sys.exit(1)


@click.command(epilog=LAYOUT)
@click.argument("inventory", type=click.Path(path_type=Path))
@click.option("--to-design", "out", required=True, type=click.Path(path_type=Path),
              help="Write a starting design YAML here.")
@click.option("--name", default=None, help="Design name (default: the directory name).")
@click.option("--catalog", "catalog_dir", type=click.Path(path_type=Path), multiple=True)
def ingest(inventory, out, name, catalog_dir) -> None:
    """Read INVENTORY and write a starting design for what was found."""
    from infra.ingest.inventory import load_inventory
    from infra.ingest.to_design import starting_design
    from infra.models.catalog import load_catalog
    from infra.reports.atomic import write_text_atomic

    draft = starting_design(load_inventory(inventory), load_catalog(catalog_dir), name)
    click.echo(f"wrote {write_text_atomic(Path(out), draft.to_yaml())}")
    for note in draft.notes:
        click.echo(f"note: {note}", err=True)
