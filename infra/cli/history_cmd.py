"""``infra history``: the inventory over time (record, at, asset, events, rates, drift)."""

from __future__ import annotations

from pathlib import Path

import click

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
         columns: list[str] | None = None, notes: list[str] = ()) -> None:
    """Print ``data`` as a table (its ``rows_key`` rows), JSON or CSV; also to ``output``."""
    if fmt == "json":
        from infra.reports.json_report import to_json

        text = to_json(data)
    else:
        rows = data.get(rows_key, []) if rows_key else []
        text = to_csv(rows, columns) if fmt == "csv" else to_table(rows, title, columns, notes)
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


def to_table(rows: list[dict], title: str, columns: list[str] | None = None,
             notes: list[str] = ()) -> str:
    from infra.reports.terminal import table

    cols = columns or list(dict.fromkeys(k for r in rows for k in r))
    out = [title, table(rows, cols) if rows else "  (none)"]
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
@click.option("--complete", is_flag=True,
              help="The capture covers every host: hosts absent from it are removed.")
@db_option
@format_option
@click.option("--catalog", "catalog_dir", type=click.Path(path_type=Path), multiple=True)
def record(inventory, design, at, host_pattern, complete, db, fmt, output, catalog_dir) -> None:
    """Store what the INVENTORY dumps show; changes become change records."""
    from infra.history import record as run
    from infra.models.catalog import load_catalog

    catalog = load_catalog(catalog_dir) if design else None
    res = run(inventory, design=design, at=at, db=db, host_pattern=host_pattern,
              complete=complete, catalog=catalog)
    data = res.as_dict()
    if res.unchanged:
        title = (f"{inventory}: {res.components:,} parts at {data['at']}: no change "
                 f"(snapshot {res.snapshot_id} seen until then)")
    else:
        counts = ", ".join(f"{n:,} {c}" for c, n in sorted(res.counts.items()))
        title = (f"{inventory}: {res.components:,} parts at {data['at']}: snapshot "
                 f"{res.snapshot_id}, {counts}")
    emit(data, "first_changes", fmt, output, title,
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
