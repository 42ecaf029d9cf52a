"""``infra diff`` (as built vs as designed) and ``infra ingest`` (inventory -> design)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from infra.cli.collectives_cmd import (collective_model_option, note_unused_overrides,
                                       override_collective_models)

LAYOUT = """\b
Inventory layout (one directory per host, named by its host name):
  DIR/ibnetdiscover.txt         ibnetdiscover (one run per fabric)
  DIR/guid-map.txt              optional: 0x<node guid> "<host> <hca>"
  DIR/<host>/nvidia-smi-q.xml   nvidia-smi -q -x
  DIR/<host>/topo-m.txt         nvidia-smi topo -m        (optional)
  DIR/<host>/nvlink-s.txt       nvidia-smi nvlink -s      (optional)
  DIR/<host>/nccl-topo.xml      NCCL_TOPO_DUMP_FILE       (optional)
  DIR/<host>/lspci-tv.txt       lspci -tvnn               (optional)
  DIR/nccl-tests/*.txt          nccl-tests / rccl-tests stdout, e.g.
                                all_reduce_perf -b 8 -e 8G -f 2 -g 8 (optional)"""

CALIBRATE = """\b
nccl-tests logs: each row is shown beside the prediction for the same op, GPU count and
size; a row of 1 GiB or more over 15 % below it is an error (collective-slow).
--calibrate fits the collective model's factors to those rows and writes one file,
OUTDIR/<slug>.calibrated.yaml: the model's catalog entry (same slug) with the fitted
figures, their source and the shipped values. Keep it and pass it to override the
shipped entry:
  infra collectives DESIGN --collective-model OUTDIR/<slug>.calibrated.yaml
  infra diff DESIGN --inventory DIR --collective-model OUTDIR/<slug>.calibrated.yaml"""


@click.command(epilog=LAYOUT + "\n\n" + CALIBRATE)
@click.argument("design_file", type=click.Path(path_type=Path))
@click.option("--inventory", "inventory", required=True, type=click.Path(path_type=Path),
              help="Inventory directory (layout below).")
@click.option("--host-pattern", default="r{rack:03d}n{slot:02d}", show_default=True,
              help="Host names of the design's trays (1-based fields: index, rack, slot, u, "
                   "domain, domain_node), as in `infra export`.")
@click.option("--host-regex", default=None, metavar="REGEX",
              help="Site host names as a regular expression with named groups (1-based "
                   "numbers: index, rack, slot, u, domain, domain_node, group, group_node), "
                   "e.g. '.*-dgx-(?P<group>\\d+)-c(?P<group_node>\\d+)'.")
@click.option("--host-map", "host_map_file", default=None, type=click.Path(path_type=Path),
              help="Site host names as a CSV (host,rack,slot or host,design_host) or YAML "
                   "(host: {rack: N, slot: M}) file.")
@click.option("--expect-all", is_flag=True,
              help="Every design node must have dumps (an error per node without).")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv", "md"]),
              default="table", show_default=True, help="Terminal output format.")
@click.option("--report", "reports", multiple=True, type=click.Choice(["xlsx", "md", "json", "csv"]),
              help="Also write a report file (repeatable).")
@click.option("-o", "--output", "outdir", type=click.Path(path_type=Path), default=Path("reports"),
              show_default=True, help="Directory for reports.")
@click.option("--calibrate", is_flag=True,
              help="Fit the collective model to INVENTORY/nccl-tests and write "
                   "OUTDIR/<slug>.calibrated.yaml (below).")
@collective_model_option
@click.option("--catalog", "catalog_dir", type=click.Path(path_type=Path), multiple=True)
def diff(design_file, inventory, host_pattern, host_regex, host_map_file, expect_all, fmt,
         reports, outdir, calibrate, collective_models, catalog_dir) -> None:
    """Compare an installed cluster (INVENTORY dumps, nccl-tests logs) with DESIGN_FILE.

    Exit code 1 when a finding of severity error exists (a bring-up gate), 2 on bad input.
    """
    from infra.ingest.diff import diff_directory
    from infra.ingest.hostmap import site_naming
    from infra.ingest.nccl_tests import load_nccl_tests
    from infra.models.catalog import load_catalog
    from infra.models.resolve import load_design
    from infra.reports.diff_report import render, write_diff

    rd = load_design(design_file, override_collective_models(load_catalog(catalog_dir),
                                                             collective_models))
    note_unused_overrides(rd, collective_models)
    runs = load_nccl_tests(inventory)
    res = diff_directory(rd, inventory, host_pattern, expect_all, runs,
                         site_naming(host_regex, host_map_file))
    cal = None
    if calibrate:
        from infra.ingest.calibrate import calibrate as fit

        cal = fit(rd, res.collectives, runs)  # before any output: a failed fit exits 2 alone
    data = res.as_dict()
    from infra.reports.atomic import check_targets

    check_targets([Path(outdir) / f"{Path(design_file).stem}-diff.{rep}"
                   for rep in dict.fromkeys(reports)])  # all or none
    click.echo(render(data, fmt), nl=False)
    for rep in dict.fromkeys(reports):
        path = write_diff(data, Path(outdir) / f"{Path(design_file).stem}-diff.{rep}", rep)
        click.echo(f"wrote {path}", err=True)
    if cal is not None:
        _write_calibration(cal, rd, Path(design_file), Path(outdir) / f"{cal.slug}.calibrated.yaml")
    if res.errors:
        sys.exit(1)


def _write_calibration(cal, rd, design_file: Path, target: Path) -> None:
    """Write the calibrated model and check that it reads back, as ``--collective-model``
    reads it, with the fitted figures."""
    from infra.errors import InfraError, display_path
    from infra.models.catalog import load_override
    from infra.reports.atomic import write_text_atomic

    write_text_atomic(target, cal.text)
    check = load_override(target, "collective_model", rd.catalog)
    if check.slug != cal.slug or any(getattr(check, f.field) != f.fitted for f in cal.fits):
        raise InfraError("the calibrated model does not read back with the fitted figures",
                         file=str(target), hint="report this as a bug")
    where = display_path(target)
    click.echo(f"wrote {where} (collective model {cal.slug}, calibrated)", err=True)
    for f in cal.fits:
        click.echo(f"calibrated {cal.slug}: {f.field} {f.shipped:g} -> {f.fitted:g} "
                   f"({f.rows} row(s), median measured/predicted {f.median_ratio:g})", err=True)
    click.echo(f"median |measured/predicted - 1| of the rows: {cal.rows_before * 100:.1f} % "
               f"shipped, {cal.rows_after * 100:.1f} % calibrated", err=True)
    for note in cal.notes:
        click.echo(f"note: {note}", err=True)
    click.echo(f"use it: infra collectives {display_path(design_file)} --collective-model "
               f"{where}", err=True)


@click.command(epilog=LAYOUT)
@click.argument("inventory", type=click.Path(path_type=Path))
@click.option("--to-design", "out", required=True, type=click.Path(path_type=Path),
              help="Write a starting design YAML here ('-' for standard output).")
@click.option("--name", default=None, help="Design name (default: the directory name).")
@click.option("--host-regex", default=None, metavar="REGEX",
              help="Site host names as a regular expression with a named group `rack` "
                   "(and others, as for infra diff): servers go into those racks.")
@click.option("--host-map", "host_map_file", default=None, type=click.Path(path_type=Path),
              help="Site host names as a CSV (host,rack,slot) or YAML file: servers go "
                   "into those racks.")
@click.option("--catalog", "catalog_dir", type=click.Path(path_type=Path), multiple=True)
def ingest(inventory, out, name, host_regex, host_map_file, catalog_dir) -> None:
    """Read INVENTORY and write a starting design for what was found."""
    from infra.ingest.hostmap import site_naming
    from infra.ingest.to_design import starting_design_dir
    from infra.models.catalog import load_catalog
    from infra.reports.atomic import write_text_atomic

    draft = starting_design_dir(inventory, load_catalog(catalog_dir), name,
                                site_naming(host_regex, host_map_file, (("rack",),)))
    if str(out) == "-":  # standard output only through an explicit '-'
        click.echo(draft.to_yaml(), nl=False)
    else:
        click.echo(f"wrote {write_text_atomic(Path(out), draft.to_yaml())}")
    for note in draft.notes:
        click.echo(f"note: {note}", err=True)
