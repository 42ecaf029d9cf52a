"""``infra collectives``: predicted NCCL/RCCL collective performance of a design."""

from __future__ import annotations

import re
from pathlib import Path

import click

_UNIT = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6, "g": 10**9,
         "gb": 10**9, "t": 10**12, "tb": 10**12, "kib": 2**10, "mib": 2**20, "gib": 2**30,
         "tib": 2**40}


class ByteSize(click.ParamType):
    """A message size: bytes, or a number with a unit (``1MiB``, ``8 GiB``, ``134MB``).

    Examples
    --------
    >>> ByteSize().convert("8GiB", None, None), ByteSize().convert("134MB", None, None)
    (8589934592, 134000000)
    """

    name = "size"

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", str(value))
        unit = m and _UNIT.get(m.group(2).lower())
        if not m or unit is None:
            self.fail(f"{str(value)[:40]!r} is not a size: give bytes or a number with B, KB, "
                      "MB, GB, KiB, MiB, GiB or TiB", param, ctx)
        n = int(float(m.group(1)) * unit)
        if not 1 <= n <= 2**44:
            self.fail(f"{str(value)[:40]} is outside 1 B to 16 TiB", param, ctx)
        return n


def collective_model_option(f):
    """``--collective-model FILE`` (repeatable), shared by ``infra collectives`` and
    ``infra diff``."""
    return click.option(
        "--collective-model", "collective_models", multiple=True,
        type=click.Path(path_type=Path), metavar="FILE",
        help="A collective_model catalog entry (a site's calibration: `infra diff "
             "--calibrate` writes OUTDIR/<slug>.calibrated.yaml) that replaces the catalog "
             "entry of its slug (repeatable).")(f)


def override_collective_models(catalog, files):
    """``catalog`` with the ``--collective-model`` FILES in place of their slugs; says on
    stderr which model each replaces."""
    from infra.errors import display_path
    from infra.models.catalog import with_overrides

    out, entries = with_overrides(catalog, files, "collective_model")
    for e in entries:
        click.echo(f"collective model {e.slug}: {display_path(out.files[e.slug])} in place of "
                   f"{display_path(catalog.files.get(e.slug, e.slug))}", err=True)
    return out


def note_unused_overrides(rd, files) -> None:
    """Say on stderr when the design's GPU does not use an overridden model."""
    if not files:
        return
    from infra.analysis.perf.inputs import design_tiers
    from infra.errors import display_path

    model = design_tiers(rd).model
    given = {Path(f) for f in files}
    for slug, file in rd.catalog.files.items():
        if Path(file) in given and (model is None or model.slug != slug):
            click.echo(f"note: {display_path(file)} ({slug}) changes nothing: the design's GPU "
                       f"uses {model.slug if model else 'no collective model'}", err=True)


OPS = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast")
ALGOS = ("Ring", "Tree", "NVLS", "NVLSTree", "CollNet", "PAT")


@click.command()
@click.argument("file", type=click.Path(path_type=Path), required=False)
@click.option("--op", "ops", multiple=True, type=click.Choice(OPS),
              help="Collective (repeatable); default: all five.")
@click.option("--gpus", multiple=True, type=click.IntRange(2, 10**12),
              help="Job size in GPUs (repeatable); default: 8, one domain, two domains, the "
                   "whole design.")
@click.option("--size", "sizes", multiple=True, type=ByteSize(),
              help="Message size as nccl-tests counts it (repeatable): 1MiB, 8GiB, 134MB, "
                   "bytes; default 1 MiB to 16 GiB in powers of 4.")
@click.option("--algo", "algos", multiple=True, type=click.Choice(ALGOS),
              help="Restrict the choice as NCCL_ALGO does (repeatable).")
@click.option("--partition", type=click.IntRange(1, 10**6), default=None,
              help="GPUs per NVLink partition when domains are split (an NVL72 run as NVL8s).")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
              show_default=True)
@click.option("--validate", is_flag=True,
              help="Instead of a design: predict every published nccl-tests/rccl-tests run "
                   "the model is checked against, beside its measured busbw.")
@collective_model_option
@click.option("--catalog", "catalog_dir", type=click.Path(path_type=Path), multiple=True)
def collectives(file, ops, gpus, sizes, algos, partition, fmt, validate, collective_models,
                catalog_dir) -> None:
    """Predict all-reduce, all-gather, reduce-scatter, all-to-all and broadcast on design
    FILE: algorithm and protocol NCCL would choose, bus and algorithm bandwidth, time,
    and the link that binds."""
    from infra.api import collectives as predict
    from infra.models.catalog import load_catalog
    from infra.models.resolve import load_design
    from infra.reports.collectives_text import render_collectives, render_validation

    catalog = override_collective_models(load_catalog(catalog_dir), collective_models)
    if validate:
        from infra.analysis.perf.published import summary, validate as run, validation_rows

        checks = run(catalog)
        click.echo(render_validation(validation_rows(checks), summary(checks), fmt), nl=False)
        return
    if file is None:
        raise click.UsageError("give a design FILE (or --validate)")

    rd = load_design(file, catalog)
    rows = predict(rd, ops=ops, gpus=gpus, sizes=sizes, algorithms=algos or None,
                   partition=partition)
    note_unused_overrides(rd, collective_models)
    name = file.stem
    click.echo(render_collectives(name, [r.as_dict() for r in rows], fmt), nl=False)
