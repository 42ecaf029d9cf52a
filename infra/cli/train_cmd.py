"""``infra train``: time, energy and cost of training a model on a design."""

from __future__ import annotations

from pathlib import Path

import click

from infra.cli.params import FiniteFloat


@click.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--model", "model", required=True,
              help="Model slug (catalogs/models), e.g. llama-3-70b.")
@click.option("--tokens", type=FiniteFloat(1, 1e18, what="training tokens"), required=True,
              help="Tokens to train on, e.g. 15e12.")
@click.option("--gpus", type=click.IntRange(1, 10**12), default=None,
              help="GPUs of the job (default: the design's, in whole scale-up domains).")
@click.option("--precision", type=click.Choice(["bf16", "fp8"]), default="bf16", show_default=True)
@click.option("--parallelism", default=None,
              help="Fix any of tp, pp, dp, cp, ep, mb, vpp, recompute (none|selective|full), "
                   "fsdp (0|1), rl (layers a stage recomputes whole, with recompute=full), "
                   "epo (0|1: MoE all-to-alls overlapped with another micro-batch), "
                   "e.g. tp=8,pp=16; the rest is chosen (fastest that fits HBM). The "
                   "parallelism infra train prints can be given back.")
@click.option("--batch-tokens", type=click.IntRange(1, 10**12), default=None,
              help="Tokens per step (default: the model entry's, else 16M).")
@click.option("--sequence-length", type=click.IntRange(1, 10**8), default=None,
              help="Sequence length (default: the model entry's).")
@click.option("--framework", default="megatron-lm", show_default=True,
              help="Training framework entry (catalogs/training).")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@click.option("--report", "reports", multiple=True, type=click.Choice(["xlsx"]),
              help="Also write <output>/<design>.<model>.train.xlsx: the run's figures as "
                   "formulas on editable inputs (tokens, step time, goodput, MFU override...).")
@click.option("-o", "--output", "outdir", type=click.Path(path_type=Path), default=Path("reports"),
              show_default=True, help="Directory for reports.")
@click.option("--catalog", "catalog_dir", type=click.Path(path_type=Path), multiple=True)
def train(file, model, tokens, gpus, precision, parallelism, batch_tokens, sequence_length,
          framework, fmt, reports, outdir, catalog_dir) -> None:
    """Days, MFU, tokens/s, MWh and dollars to train MODEL on design FILE: parallelism
    chosen (or given) to fit HBM, communication timed on the design's fabric, goodput
    from its failure rates."""
    from infra.api import train as run
    from infra.models.catalog import load_catalog
    from infra.reports.train_text import render_train

    r = run(file, model, tokens, gpus=gpus, precision=precision, parallelism=parallelism,
            batch_tokens=batch_tokens, sequence_length=sequence_length, framework=framework,
            catalog=load_catalog(catalog_dir))
    d = r.as_dict()
    click.echo(render_train(d, fmt), nl=False)
    if "xlsx" in reports:
        from infra.reports.train_xlsx import write_train_xlsx

        path = write_train_xlsx(d, Path(outdir) / f"{Path(file).stem}.{model}.train.xlsx")
        click.echo(f"wrote {path}", err=True)
