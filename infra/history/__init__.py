"""Inventory over time: a database of what was installed, when it changed, what failed,
and the failure rates of the site's own fleet (``infra history``).

Layer: beside ingest (may import models, analysis and ingest; never reports or the CLI).
The store is SQLAlchemy 2 Core on SQLite (default, a file) or PostgreSQL, its schema
made by Alembic migrations (:func:`upgrade`). Every command is a function here::

    from infra import history
    history.upgrade("sqlite:///fleet.db")
    r = history.record("inventory/2025-03-01", design="designs/dgx_h100_su.yaml",
                       at="2025-03-01T06:00Z", db="sqlite:///fleet.db")
    r.counts                                  # Counter({'swap': 1})
    history.at("2025-03-02", rack="su0/r0", db="sqlite:///fleet.db").rows
    history.asset("GPU-...", db=...).timeline()
    history.import_events("incidents.csv", db=...)
    history.rates(db=...).rows                # posterior per component kind
    history.drift("designs/dgx_h100_su.yaml", db=...).rows
"""

from __future__ import annotations

from pathlib import Path

from infra.history.db import HistoryError, default_url, iso, now_ts, to_ts

__all__ = ["HistoryError", "asset", "at", "default_url", "drift", "import_events", "rates",
           "record", "upgrade"]


def upgrade(db: str | None = None) -> tuple[str | None, str]:
    """Migrate ``db`` to the newest schema (creating it); returns (before, after) revisions."""
    from infra.history.db import upgrade as _upgrade

    return _upgrade(db or default_url())


def record(inventory: Path | str, *, design: Path | str | None = None, at=None,
           db: str | None = None, host_pattern: str | None = None, complete: bool = False,
           catalog=None, host_map=None):
    """Store what ``inventory`` shows as seen at ``at`` (ISO 8601; default now), placed
    on ``design``'s racks and slots through ``host_pattern`` (the ``infra history record``
    API), or ``host_map`` (:func:`infra.ingest.hostmap.site_naming`: the site's names).
    Returns a :class:`infra.history.recorder.RecordResult`."""
    from infra.errors import display_path
    from infra.history.db import connect
    from infra.history.recorder import record_state
    from infra.history.state import design_map, from_inventory
    from infra.ingest.inventory import load_inventory

    ts = now_ts() if at is None else to_ts(at, what="--at")
    state = from_inventory(load_inventory(inventory),
                           design_map(design, host_pattern, catalog, host_map))
    with connect(db or default_url(design), write=True) as conn:
        return record_state(conn, state, ts,
                            design=display_path(design) if design else None,
                            host_pattern=host_pattern, complete=complete)


def at(when, *, rack: str | None = None, host: str | None = None, kind: str | None = None,
       db: str | None = None):
    """What was installed at ``when`` (a bare date: the end of that day), in ``rack`` or
    on ``host``. Returns an :class:`infra.history.query.AtResult`."""
    from infra.history.db import connect
    from infra.history.query import installed_at

    with connect(db or default_url()) as conn:
        return installed_at(conn, to_ts(when, end_of_day=True, what="DATE"), rack=rack,
                            host=host, kind=kind)


def asset(asset_id: str, *, db: str | None = None):
    """One part's life: where and when it was, its changes and events."""
    from infra.history.db import connect
    from infra.history.query import asset_life

    with connect(db or default_url()) as conn:
        life = asset_life(conn, asset_id)
    if not (life.placements or life.changes or life.events):
        raise HistoryError(f"no part {asset_id!r} in the history",
                           hint="use a GPU UUID, an adapter GUID (0x...), a host name or a "
                                "switch GUID as `infra history at` lists them")
    return life


def import_events(file: Path | str, *, db: str | None = None, fmt: str | None = None):
    """Import incidents and RMAs from a CSV file or a NetBox change-log export (JSON);
    all rows or none. Returns an :class:`infra.history.events.ImportResult`."""
    from infra.history.db import connect
    from infra.history.events import insert_events, read_events

    rows, skipped = read_events(file, fmt)
    with connect(db or default_url(), write=True) as conn:
        return insert_events(conn, rows, str(file), skipped)


def rates(*, since=None, until=None, db: str | None = None, rates_file=None,
          prior_events: float | None = None):
    """Per-component failure rates from the site's history: Gamma-Poisson posteriors
    with the catalog's rates as priors. Returns an :class:`infra.history.fleet_rates.SiteRates`."""
    from infra.history.db import connect
    from infra.history.fleet_rates import DEFAULT_PRIOR_EVENTS, site_rates

    with connect(db or default_url()) as conn:
        return site_rates(conn, since_ts=None if since is None else to_ts(since, what="--since"),
                          until_ts=None if until is None else to_ts(until, end_of_day=True,
                                                                    what="--until"),
                          rates_file=rates_file,
                          prior_events=DEFAULT_PRIOR_EVENTS if prior_events is None
                          else prior_events)


def drift(design: Path | str, *, db: str | None = None, host_pattern: str | None = None,
          catalog=None, host_map=None):
    """How the installed fleet moved from ``design`` over time, one row per snapshot;
    ``host_map``: the site's names, as for :func:`record`."""
    from infra.history.db import connect
    from infra.history.drift_view import fleet_drift
    from infra.history.state import design_map

    expected = design_map(design, host_pattern, catalog, host_map, every_name=True)
    with connect(db or default_url(design)) as conn:
        return fleet_drift(conn, expected, str(design))
