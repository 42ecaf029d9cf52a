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
@click.option("--catalog", "catalog_dir", type=click.Path(path_type=Path), multiple=True)
def collectives(file, ops, gpus, sizes, algos, partition, fmt, validate, catalog_dir) -> None:
    """Predict all-reduce, all-gather, reduce-scatter, all-to-all and broadcast on design
    FILE: algorithm and protocol NCCL would choose, bus and algorithm bandwidth, time,
    and the link that binds."""
    from infra.api import collectives as predict
    from infra.models.catalog import load_catalog
    from infra.reports.collectives_text import render_collectives, render_validation

    if validate:
        from infra.analysis.perf.published import summary, validate as run, validation_rows

        checks = run(load_catalog(catalog_dir))
        click.echo(render_validation(validation_rows(checks), summary(checks), fmt), nl=False)
        return
    if file is None:
        raise click.UsageError("give a design FILE (or --validate)")

    rows = predict(file, ops=ops, gpus=gpus, sizes=sizes, algorithms=algos or None,
                   partition=partition, catalog=load_catalog(catalog_dir))
    name = file.stem
    click.echo(render_collectives(name, [r.as_dict() for r in rows], fmt), nl=False)
