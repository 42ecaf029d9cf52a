"""``infra compare``: GPU SKUs, trays and designs side by side, with cost and sizing."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("options", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
              show_default=True, help="Terminal output format.")
@click.option("--report", "reports", multiple=True, type=click.Choice(["xlsx", "md"]),
              help="Also write a report file (repeatable).")
@click.option("-o", "--output", "outdir", type=click.Path(path_type=Path), default=Path("reports"),
              show_default=True, help="Directory for reports.")
@click.option("--name", default=None,
              help="Report file stem (default: compare-<option>-vs-<option>..., from the inputs).")
@click.option("--target", default=None,
              help="Size each option: '1 EFLOPS bf16', '50 MW', '40 MW IT'.")
@click.option("--prices", "price_files", multiple=True, type=click.Path(path_type=Path),
              help="Price file overriding catalogs/prices/ by slug (repeatable).")
@click.option("--energy-usd-per-kwh", type=float, default=None,
              help="Energy price (default: US EIA industrial 2023, 0.0806).")
@click.option("--pue", type=float, default=None, help="Override every option's PUE.")
@click.option("--years", type=int, default=5, show_default=True, help="TCO horizon.")
@click.option("--maintenance", type=float, default=None,
              help="Maintenance, fraction of capex per year (default 0.05).")
@click.option("--precision", default="bf16", show_default=True,
              help="Precision for $ per dense PFLOP-year.")
@click.option("--catalog", "catalog_dir", type=click.Path(path_type=Path), default=None)
def compare(options, fmt, reports, outdir, name, target, price_files, energy_usd_per_kwh, pue,
            years, maintenance, precision, catalog_dir) -> None:
    """Compare OPTIONS: GPU slugs, tray slugs or design files, mixed."""
    from infra.analysis.compare import compare as run_compare
    from infra.analysis.target import parse_target
    from infra.analysis.tco import CostAssumptions
    from infra.errors import CompareError
    from infra.models.catalog import load_catalog
    from infra.models.parts import PRECISIONS
    from infra.models.prices import load_prices
    from infra.reports.compare_text import render_compare

    if precision not in PRECISIONS:
        raise CompareError(f"unknown precision {precision!r}", hint=", ".join(PRECISIONS))
    kw = {"pue": pue, "years": years, "precision": precision}
    if energy_usd_per_kwh is not None:
        kw.update(energy_usd_per_kwh=energy_usd_per_kwh, energy_source="--energy-usd-per-kwh")
    if maintenance is not None:
        kw.update(maintenance_fraction_per_year=maintenance, maintenance_source="--maintenance")
    assumptions = CostAssumptions(**kw)
    catalog = load_catalog(catalog_dir)
    book = load_prices(price_files, catalog)
    tgt = parse_target(target) if target else None
    data = run_compare(list(options), book, catalog, assumptions, tgt).as_dict()
    click.echo(render_compare(data, fmt), nl=False)
    stem = report_stem(list(options), name)
    for rep in dict.fromkeys(reports):
        path = Path(outdir) / f"{stem}.{rep}"
        if rep == "md":
            from infra.reports.compare_md import write_markdown

            write_markdown(data, path)
        else:
            from infra.reports.compare_xlsx import write_compare_xlsx

            write_compare_xlsx(data, path)
        click.echo(f"wrote {path}", err=True)


def report_stem(options: list[str], name: str | None) -> str:
    """The report file stem: ``--name`` (a plain file name), else built from the options.

    Examples
    --------
    >>> report_stem(["designs/a.yaml", "nvidia-h100-sxm5"], None)
    'compare-a-vs-nvidia-h100-sxm5'
    """
    import hashlib
    import re

    from infra.errors import CompareError

    if name is not None:
        if not name.strip() or name.startswith(".") or re.search(r"[/\\\x00]", name):
            raise CompareError(f"--name {name!r} is not a plain file name",
                               hint="give a stem such as 'h100-vs-b200', without / or a leading dot")
        return name
    parts = [re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(o).stem if o.endswith((".yaml", ".yml")) else o)
             for o in options]
    stem = "compare-" + "-vs-".join(parts)
    if len(stem) > 100:
        digest = hashlib.sha256("\0".join(options).encode()).hexdigest()[:8]
        stem = f"{stem[:90]}-{digest}"
    return stem
