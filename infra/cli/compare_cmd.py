"""``infra compare``: GPU SKUs, trays and designs side by side, with cost and sizing."""

from __future__ import annotations

from pathlib import Path

import click

from infra.cli.params import FiniteFloat


@click.command()
@click.argument("options", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
              show_default=True, help="Terminal output format.")
@click.option("--report", "reports", multiple=True, type=click.Choice(["xlsx", "md", "html"]),
              help="Also write a report file (repeatable).")
@click.option("-o", "--output", "outdir", type=click.Path(path_type=Path), default=Path("reports"),
              show_default=True, help="Directory for reports.")
@click.option("--name", default=None,
              help="Report file stem (default: compare-<option>-vs-<option>..., from the inputs).")
@click.option("--target", default=None,
              help="Size each option: '1 EFLOPS bf16', '50 MW', '40 MW IT'.")
@click.option("--prices", "price_files", multiple=True, type=click.Path(path_type=Path),
              help="Price file overriding catalogs/prices/ by slug (repeatable).")
@click.option("--energy-usd-per-kwh", "--energy-price", "energy_usd_per_kwh",
              type=FiniteFloat(0, 10, what="USD per kWh"), default=None,
              help="Energy price, USD/kWh (default: US EIA industrial 2023, 0.0806).")
@click.option("--pue", type=float, default=None, help="Override every option's PUE.")
@click.option("--years", type=click.IntRange(1, 100),
              default=5, show_default=True, help="TCO horizon.")
@click.option("--maintenance", type=float, default=None,
              help="Maintenance, fraction of capex per year (default 0.05).")
@click.option("--precision", default="bf16", show_default=True,
              help="Precision for $ per dense PFLOP-year.")
@click.option("--utilisation", type=float, default=None,
              help="Share of hours the GPUs are in use, for $ per GPU-hour (default 1.0).")
@click.option("--discount-rate", type=float, default=None,
              help="Yearly discount rate for energy and maintenance (default 0).")
@click.option("--facility-usd-per-mw", type=float, default=None,
              help="Facility build cost per MW of IT load (default 11.7M, Cushman & "
                   "Wakefield 2025; 0 for an existing hall).")
@click.option("--allow-mixed-scope", is_flag=True,
              help="Rank cost metrics even when the options' capex scopes differ.")
@click.option("--train", "train_model", default=None,
              help="Also train this model (catalogs/models slug) on every design option: days, "
                   "GPU-hours, MWh and dollars per run, ranked (needs --tokens).")
@click.option("--tokens", type=FiniteFloat(1, 1e18, what="training tokens"), default=None,
              help="Tokens for --train, e.g. 15e12.")
@click.option("--catalog", "catalog_dir", type=click.Path(path_type=Path), multiple=True)
def compare(options, fmt, reports, outdir, name, target, price_files, energy_usd_per_kwh, pue,
            years, maintenance, precision, utilisation, discount_rate, facility_usd_per_mw,
            allow_mixed_scope, train_model, tokens, catalog_dir) -> None:
    """Compare OPTIONS: GPU slugs, tray slugs or design files, mixed."""
    from infra.analysis.cost.compare import compare as run_compare
    from infra.analysis.cost.target import parse_target
    from infra.analysis.cost.tco import CostAssumptions
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
    if utilisation is not None:
        kw["utilisation_fraction"] = utilisation
    if discount_rate is not None:
        kw["discount_rate"] = discount_rate
    if facility_usd_per_mw is not None:
        kw.update(facility_usd_per_mw=facility_usd_per_mw,
                  facility_source="--facility-usd-per-mw")
    assumptions = CostAssumptions(**kw)
    catalog = load_catalog(catalog_dir)
    book = load_prices(price_files, catalog)
    tgt = parse_target(target) if target else None
    spec = None
    if train_model or tokens:
        from infra.analysis.cost.compare_train import TrainSpec

        if not (train_model and tokens):
            raise CompareError("--train and --tokens go together",
                               hint="e.g. --train llama-3-70b --tokens 15e12")
        spec = TrainSpec(train_model, tokens)
    stem = report_stem(list(options), name)  # a bad --name or -o: before the work
    from infra.reports.atomic import check_targets

    check_targets([Path(outdir) / f"{stem}.{rep}" for rep in dict.fromkeys(reports)])
    data = run_compare(list(options), book, catalog, assumptions, tgt,
                       allow_mixed_scope, spec).as_dict()
    click.echo(render_compare(data, fmt), nl=False)
    for rep in dict.fromkeys(reports):
        path = Path(outdir) / f"{stem}.{rep}"
        if rep == "md":
            from infra.reports.compare_md import write_markdown

            write_markdown(data, path)
        elif rep == "html":
            from infra.reports.compare_html import compare_page
            from infra.reports.html_report import write_html

            write_html(compare_page(data), path)
        else:
            from infra.reports.compare_xlsx import write_compare_xlsx

            write_compare_xlsx(data, path)
        click.echo(f"wrote {path}", err=True)
    broken = [(o["label"], f) for o in data["options"] for f in o.get("findings") or ()]
    for label, f in broken:
        click.echo(f"finding: {label}: {f}", err=True)
    if broken:  # every figure and report is out; a design rule is broken: exit 1
        import sys

        sys.exit(1)


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
