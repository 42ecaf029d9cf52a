"""``infra design`` and ``infra validate``."""

from __future__ import annotations

from pathlib import Path

import click

from infra.cli.params import rows_option

REPORTS = ("json", "xlsx", "md", "html", "svg", "png", "dot")  # = infra.reports.writer.FORMATS


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--report", "reports", multiple=True, type=click.Choice(REPORTS),
              help="Report format to write (repeatable).")
@click.option("--highlight", metavar="KIND", default=None,
              help="Component kind for the failure-domain diagram (e.g. nvlink_backplane, "
                   "compute_tray, nic); default: the NVLink cable cartridge or a compute tray.")
@click.option("-o", "--output", "outdir", type=click.Path(path_type=Path), default=Path("reports"),
              show_default=True, help="Directory for reports.")
@click.option("--catalog", "catalog_dir", type=click.Path(path_type=Path), multiple=True,
              help="Catalog directory (repeatable: several are loaded together; default: $INFRA_CATALOG or the repository's catalogs/).")
@click.option("--full", is_flag=True,
              help="Print every key figure and table below the decision summary (default: "
                   "the decision summary only, one 80 x 50 screen).")
@click.option("--wide", is_flag=True,
              help="Show every column of each table, implies --full (default: key columns, "
                   "fitted to $COLUMNS).")
@click.option("-q", "--quiet", is_flag=True,
              help="Print neither the summary nor 'wrote ...' lines (warnings still go to stderr).")
@rows_option
@click.option("--no-diagrams", is_flag=True,
              help="Skip diagrams (files and the workbook's pictures): fastest reports.")
@click.option("--prices", "price_files", multiple=True, type=click.Path(path_type=Path),
              help="Price file overriding catalogs/prices/ by slug (repeatable), e.g. your "
                   "own vendor quote (basis: quote).")
def design(files, reports, highlight, outdir, catalog_dir, full, wide, quiet, max_rows,
           no_diagrams, price_files) -> None:
    """Analyse design FILE(s): the decision summary on the terminal (--full: every
    table), reports under reports/.

    Every file is analysed before any report is written: one bad file names itself (all
    bad files are listed) and nothing is written.
    """
    from infra.cli.runtime import freeze_long_lived

    analyses = _analyse(files, catalog_dir, price_files, reports, highlight)
    freeze_long_lived()  # they live to the end: writing the reports never scans them
    broken = 0
    # tables are what --wide and --rows shape: either one asks for them
    rows_given = click.get_current_context().get_parameter_source("max_rows")
    full = full or wide or rows_given not in (None, click.core.ParameterSource.DEFAULT)
    for f, analysis in zip(files, analyses):
        res = _one(f, analysis, highlight, reports=reports, outdir=outdir, wide=wide,
                   quiet=quiet, max_rows=max_rows, diagrams=not no_diagrams, full=full)
        if not quiet:
            for path in res.written:
                click.echo(f"wrote {path}", err=True)
        for w in res.warnings:
            click.echo(f"warning: {w}", err=True)
        for finding in analysis.findings:
            broken += 1
            click.echo(f"finding: {finding}", err=True)
    if broken:  # every figure and report is out; a design rule is broken: exit 1
        import sys

        sys.exit(1)


def _analyse(files, catalog_dir, price_files, reports, highlight) -> list:
    """Every file analysed (all failures together, exit 2); a report-name clash or an
    unknown ``--highlight`` kind is an error before anything is written."""
    from infra.analysis.summary import analyze_file
    from infra.errors import DesignError, working_on
    from infra.models.catalog import load_catalog
    from infra.models.prices import load_prices

    catalog = load_catalog(catalog_dir)
    book = load_prices(price_files, catalog)
    analyses = _each(files, lambda f: analyze_file(f, catalog, book))
    stems = [Path(f).stem for f in files]
    clash = sorted({s for s in stems if stems.count(s) > 1})
    if clash and reports:
        raise DesignError(f"several inputs have the file name {clash[0]!r}: their reports "
                          "would overwrite each other", hint="rename one, or run them separately")
    if highlight:  # the failure view's module only when it is asked for
        from infra.analysis.reliability.failure_view import failure_view, highlight_kinds
    if highlight and not any(highlight in highlight_kinds(a) for a in analyses):

        with working_on(files[0]):
            failure_view(analyses[0], highlight)  # a kind no design has: a typo, exit 2
    return analyses


def _one(f, analysis, highlight, *, reports, outdir, wide, quiet, max_rows, diagrams,
         full=False):
    """One design's summary (printed) and reports."""
    from infra.errors import working_on
    from infra.reports import terminal
    from infra.reports.writer import ReportResult, write_reports

    with working_on(f):
        data = analysis.as_dict()
        hl = highlight
        if hl:
            from infra.analysis.reliability.failure_view import highlight_kinds
        if hl and hl not in highlight_kinds(analysis):
            click.echo(f"warning: {f}: --highlight {hl!r}: no such component in this design "
                       f"(it has {', '.join(highlight_kinds(analysis)) or 'none'}); its "
                       "failure diagram shows the default", err=True)
            hl = None
        if not quiet:
            view = terminal.summary_view(data, max_rows=max_rows)
            terminal.print_summary(view, wide=wide, full=full)  # quiet on a closed pipe
        res = ReportResult()
        if reports:
            from infra.reports.atomic import check_targets

            check_targets([Path(outdir) / f"{Path(f).stem}.{r}" for r in reports
                           if r in ("json", "xlsx", "md", "html")])  # all or none
            res = write_reports(data, Path(f).stem, tuple(dict.fromkeys(reports)), outdir,
                                analysis=analysis, highlight=hl, diagrams=diagrams)
        return res


def _each(files, work):
    """``work(f)`` for every file; all failures are reported together (exit 2) at the end."""
    import sys

    from infra.errors import InfraError, working_on

    out, bad = [], 0
    for f in files:
        try:
            with working_on(f):
                out.append(work(f))
        except InfraError as exc:
            bad += 1
            click.echo(f"error: {exc}", err=True)
    if bad:
        if len(files) > 1:
            click.echo(f"error: {bad} of {len(files)} files failed; nothing was written",
                       err=True)
        sys.exit(2)
    return out


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--catalog", "catalog_dir", type=click.Path(path_type=Path), multiple=True)
def validate(files, catalog_dir) -> None:
    """Check design or catalog FILE(s); every file is checked, exit 2 if any fails."""
    import sys

    from infra.validate import validate_file
    from infra.errors import InfraError, working_on
    from infra.models.catalog import load_catalog

    catalog = load_catalog(catalog_dir)
    bad = broken = 0
    for f in files:
        try:
            with working_on(f):
                kind, findings = validate_file(Path(f), catalog)
        except InfraError as exc:
            bad += 1
            click.echo(f"error: {exc}", err=True)
            continue
        if findings:
            broken += 1
            for finding in findings:
                click.echo(f"finding: {finding}", err=True)
            click.echo(f"FINDINGS  {f}  ({kind}: {len(findings)} design rule"
                       f"{'s' if len(findings) != 1 else ''} broken)")
            continue
        click.echo(f"ok  {f}  ({kind})")
    if bad:
        if len(files) > 1:
            click.echo(f"error: {bad} of {len(files)} files failed", err=True)
        sys.exit(2)
    if broken:
        sys.exit(1)


@click.command("new")
@click.argument("name")
@click.option("--from", "template", default="gb200_nvl72", show_default=True,
              help="Shipped design to start from (its file stem, e.g. dgx_b200_su) or a "
                   "design file.")
@click.option("-o", "--output", "out", type=click.Path(path_type=Path), default=None,
              help="File to write (default: designs/NAME.yaml; '-' for standard output); "
                   "never overwritten.")
def new(name, template, out) -> None:
    """Write a starter design designs/NAME.yaml copied from a shipped design.

    NAME is a design name (letters, digits, '_', '-', '.'), never a path: use -o FILE to
    write elsewhere. The starter always validates.
    """
    from infra.validate import validate_file
    from infra.models.catalog import load_catalog
    from infra.models.starter import check_name, new_design, starter_text, template_file

    check_name(name)
    validate_file(template_file(template), load_catalog())  # so the starter validates
    if out is not None and str(out) == "-":  # standard output only through an explicit '-'
        click.echo(starter_text(name, template)[0], nl=False)
        return
    path = new_design(name, template, out)
    shown = f"./{path}" if str(path).startswith("-") else str(path)
    click.echo(f"wrote {path} (from {template}); check it with: infra validate {shown}")
