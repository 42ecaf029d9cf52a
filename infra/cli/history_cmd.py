"""``infra history``: the inventory over time (record, at, asset, events, rates, drift)."""

from __future__ import annotations

from pathlib import Path

import click

from infra.cli.params import host_map_options

DB_HELP = ("Database URL: sqlite:///PATH (or a path) or postgresql://USER@HOST/DB "
           "(default: $INFRA_DB, else infra.db beside the design, else in the working "
           "directory).")
FORMATS = click.Choice(["table", "json", "csv"])


def db_option(f):
    return click.option("--db", "db", default=None, metavar="URL", help=DB_HELP)(f)


def format_option(f):
    f = click.option("-o", "--output", "output", type=click.Path(path_type=Path), default=None,
                     help="Also write the result to this file (in --format; table as text).")(f)
    return click.option("--format", "fmt", type=FORMATS, default="table", show_default=True)(f)


def emit(data: dict, rows_key: str | None, fmt: str, output: Path | None, title: str,
         columns: list[str] | None = None, notes: list[str] = (), view=None) -> None:
    """Print ``data`` as a table (its ``rows_key`` rows, shaped by ``view`` for the
    terminal), JSON or CSV; also to ``output``."""
    if fmt == "json":
        from infra.reports.json_report import to_json

        text = to_json(data)
    else:
        rows = data.get(rows_key, []) if rows_key else None
        if fmt == "csv":
            text = to_csv(rows or [], columns)
        elif view is not None:
            text = to_table([view(r) for r in rows or []], title, None, notes)
        else:
            text = to_table(rows, title, columns, notes)
    if output is not None:
        from infra.reports.atomic import write_text_atomic

        click.echo(f"wrote {write_text_atomic(Path(output), text)}", err=True)
    click.echo(text, nl=False)


def to_csv(rows: list[dict], columns: list[str] | None = None) -> str:
    import csv
    import io

    cols = columns or list(dict.fromkeys(k for r in rows for k in r))
    buf = io.StringIO()
    w = csv.DictWriter(buf, cols, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in cols})
    return buf.getvalue()


def to_table(rows: list[dict] | None, title: str, columns: list[str] | None = None,
             notes: list[str] = ()) -> str:
    """``title``, the rows (none: "(none)"; ``rows=None``: no table at all), the notes."""
    from infra.reports.terminal import table

    out = [title]
    if rows is not None:
        cols = columns or list(dict.fromkeys(k for r in rows for k in r))
        out.append(table(rows, cols) if rows else "  (none)")
    out += [f"note: {n}" for n in notes if n]
    return "\n".join(out) + "\n"


@click.group()
def history() -> None:
    """The inventory over time: snapshots, changes, incidents, the fleet's own failure rates.

    \b
    A site's week:
      infra history record INVENTORY_DIR --design D    # what is installed now
      infra history events import incidents.csv       # what failed
      infra history rates                             # the fleet's own failure rates
    """


@history.command()
@db_option
def upgrade(db) -> None:
    """Create the database or migrate it to this version's schema (Alembic)."""
    from infra.history import default_url, upgrade as run
    from infra.history.db import safe_url

    url = db or default_url()
    before, after = run(url)
    click.echo(f"{safe_url(url)}: schema {before or 'none'} -> {after}"
               if before != after else f"{safe_url(url)}: schema {after}, up to date")


@history.command()
@click.argument("inventory", type=click.Path(path_type=Path))
@click.option("--design", type=click.Path(path_type=Path), default=None,
              help="Design the hosts map onto (racks and slots through --host-pattern).")
@click.option("--at", "at", default=None, metavar="ISO8601",
              help="When the dumps were taken (default: now; no zone means UTC).")
@click.option("--host-pattern", default=None,
              help="Host names of the design's trays (default r{rack:03d}n{slot:02d}).")
@host_map_options
@click.option("--complete", is_flag=True,
              help="The capture covers every host: hosts absent from it are removed.")
@db_option
@format_option
@click.option("--catalog", "catalog_dir", type=click.Path(path_type=Path), multiple=True)
def record(inventory, design, at, host_pattern, host_regex, host_map_file, complete, db, fmt,
           output, catalog_dir) -> None:
    """Store what the INVENTORY dumps show; changes become change records."""
    from infra.history import record as run
    from infra.ingest.hostmap import site_naming
    from infra.models.catalog import load_catalog

    host_map = site_naming(host_regex, host_map_file)
    if host_map is not None and design is None:
        raise click.UsageError("--host-regex and --host-map place hosts in a design: "
                               "give --design")
    catalog = load_catalog(catalog_dir) if design else None
    res = run(inventory, design=design, at=at, db=db, host_pattern=host_pattern,
              complete=complete, catalog=catalog, host_map=host_map)
    data = res.as_dict()
    if res.unchanged:
        title = (f"{inventory}: {res.components:,} parts at {data['at']}: no change "
                 f"(snapshot {res.snapshot_id} seen until then)")
    else:
        counts = ", ".join(f"{n:,} {c}" for c, n in sorted(res.counts.items()))
        title = (f"{inventory}: {res.components:,} parts at {data['at']}: snapshot "
                 f"{res.snapshot_id}, {counts}")
    emit(data, "first_changes" if res.sample or fmt != "table" else None, fmt, output, title,
         ["change", "kind", "host", "slot", "before", "after"])


@history.command()
@click.argument("when", metavar="DATE")
@click.option("--rack", default=None, help="Only this rack (design rack path, e.g. su0/r3).")
@click.option("--host", default=None, help="Only this host.")
@click.option("--kind", type=click.Choice(["host", "gpu", "nic", "switch", "link"]),
              default=None, help="Only parts of this kind.")
@db_option
@format_option
def at(when, rack, host, kind, db, fmt, output) -> None:
    """What was installed at DATE (ISO 8601; a bare date means the end of that day)."""
    from infra.history import at as run

    res = run(when, rack=rack, host=host, kind=kind, db=db)
    data = res.as_dict()
    where = " ".join(x for x in (f"rack {rack}" if rack else "", f"host {host}" if host else "") if x)
    emit(data, "parts", fmt, output,
         f"Installed at {data['at']}{' in ' + where if where else ''}: {len(res.rows):,} parts",
         ["kind", "host", "slot", "asset", "since", "rack"], [res.note()])


@history.command()
@click.argument("asset_id", metavar="ID")
@db_option
@format_option
def asset(asset_id, db, fmt, output) -> None:
    """One part's life: where it was, when, and what happened to it."""
    from infra.history import asset as run

    life = run(asset_id, db=db)
    data = life.as_dict()
    data["timeline"] = life.timeline()
    places = "; ".join(f"{p['host'] or '-'} {p['slot']} {p['since']}..{p['until'] or 'now'}"
                       for p in life.placements) or "never installed (events only)"
    emit(data, "timeline", fmt, output, f"{asset_id}: {places}",
         ["time", "what", "host", "slot", "detail"])


@history.group()
def events() -> None:
    """Incidents and RMAs (CSV: time,host,asset,component,event,note; or NetBox JSON)."""


@events.command("import")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--from", "source", type=click.Choice(["csv", "netbox"]), default=None,
              help="File format (default: netbox for *.json, else csv).")
@db_option
@format_option
def events_import(file, source, db, fmt, output) -> None:
    """Import FILE: every row is checked first; a bad row imports nothing (exit 2)."""
    from infra.history import import_events

    res = import_events(file, db=db, fmt=source)
    data = res.as_dict()
    skipped = [{"reason": k, "entries": v} for k, v in sorted(res.skipped.items())]
    data["skipped_rows"] = skipped
    emit(data, "skipped_rows" if skipped or fmt != "table" else None, fmt, output,
         f"{file}: {res.read:,} rows, {res.added:,} added, {res.already:,} already in the "
         f"database" + (f", {sum(res.skipped.values()):,} skipped:" if skipped else ""),
         ["reason", "entries"] if skipped else [])


RATE_COLUMNS = ["kind", "events", "exposure_years", "unit", "site_rate_per_year",
                "prior_rate_per_year", "prior_events", "posterior_rate_per_year",
                "posterior_low_per_year", "posterior_high_per_year", "prior_share_of_mean",
                "replacements", "replacement_rate_per_year", "note"]


@history.command()
@click.option("--since", default=None, metavar="DATE", help="Start of the window (default: the first snapshot).")
@click.option("--until", default=None, metavar="DATE", help="End of the window (default: the last capture).")
@click.option("--rates", "rates_file", type=click.Path(path_type=Path), default=None,
              help="Rates file for the priors (default catalogs/rates/default.yaml).")
@click.option("--prior-events", type=click.FloatRange(min=0.01, max=1e6), default=None,
              help="Cap on the prior's weight in events (default 10).")
@db_option
@format_option
def rates(since, until, rates_file, prior_events, db, fmt, output) -> None:
    """Failure rates of the site's own fleet: Gamma-Poisson posteriors (90 % credible
    interval) with the catalog's published rates as priors, per component-year."""
    from infra.history import rates as run

    res = run(since=since, until=until, db=db, rates_file=rates_file, prior_events=prior_events)
    data = res.as_dict()
    emit(data, "rates", fmt, output,
         f"Failure rates {data['since']} .. {data['until']}, events per component-year\n"
         f"(posterior: Gamma-Poisson mean, 5 % and 95 % quantiles; prior: the catalog's "
         f"rate, worth at most {res.prior_events:g} events)",
         RATE_COLUMNS, view=_rate_view)


def _g(x) -> str:
    return "-" if x is None else f"{x:.3g}"


def _rate_view(r: dict) -> dict:
    share = r["prior_share_of_mean"]
    row = {"kind": r["kind"], "events": r["events"],
            "years": f"{r['exposure_years']:,.1f}",
            "site": _g(r["site_rate_per_year"]), "prior": _g(r["prior_rate_per_year"]),
            "posterior": _g(r["posterior_rate_per_year"]),
            "5 %": _g(r["posterior_low_per_year"]), "95 %": _g(r["posterior_high_per_year"]),
            "prior share": "-" if share is None else f"{share:.0%}",
            "replaced": r["replacements"]}
    if r["note"]:
        row["note"] = r["note"]
    return row


@history.command()
@click.option("--design", required=True, type=click.Path(path_type=Path))
@click.option("--host-pattern", default=None)
@host_map_options
@db_option
@format_option
@click.option("--catalog", "catalog_dir", type=click.Path(path_type=Path), multiple=True)
def drift(design, host_pattern, host_regex, host_map_file, db, fmt, output, catalog_dir) -> None:
    """How the installed fleet moved from DESIGN over time (one row per snapshot)."""
    from infra.history import drift as run
    from infra.ingest.hostmap import site_naming
    from infra.models.catalog import load_catalog

    res = run(design, db=db, host_pattern=host_pattern, catalog=load_catalog(catalog_dir),
              host_map=site_naming(host_regex, host_map_file))
    emit(res.as_dict(), "snapshots", fmt, output,
         f"{design}: {res.design_hosts:,} hosts, {res.design_gpus:,} GPUs designed",
         None, view=lambda r: {
             "snapshot": r["time"], "hosts": r["design_hosts_present"],
             "missing": r["design_hosts_missing"], "unknown": r["hosts_not_in_design"],
             "GPUs": r["gpus_installed"], "short": r["hosts_short_of_gpus"],
             "drivers": r["driver_versions"], "VBIOS": r["vbios_versions"],
             "changes": r["changes"]})
