"""The history database's tables (SQLAlchemy Core), the one description Alembic's
migrations are checked against (``tests/test_history_store.py``).

Times are UTC seconds since the epoch in ``BIGINT`` columns: the same integer arithmetic
(exposure = until - since) and the same index order on SQLite and PostgreSQL, with no
time-zone conversion by either driver. JSON documents (a component's attributes, a
change's before and after) are text with sorted keys, so equal states compare equal.

Tables
------
snapshots
    One row per recorded state that changed something: when it was taken
    (``taken_ts``), until when the same state was seen again (``seen_until_ts``), the
    inventory and design it came from and how many changes it brought.
placements
    Where each part was and with which attributes, as intervals: present from
    ``since_ts`` (inclusive) until ``until_ts`` (exclusive; NULL while still installed).
    A point-in-time question is ``since_ts <= t AND (until_ts IS NULL OR until_ts > t)``.
changes
    One row per install, remove, move, swap or update, with the part's before and after.
events
    Incidents and RMAs (``infra history events import``), unique on their content.
"""

from __future__ import annotations

from sqlalchemy import (BigInteger, Column, ForeignKey, Index, Integer, MetaData, String,
                        Table, Text)

metadata = MetaData()

snapshots = Table(
    "snapshots", metadata,
    Column("id", Integer, primary_key=True),
    Column("taken_ts", BigInteger, nullable=False),
    Column("seen_until_ts", BigInteger, nullable=False),
    Column("recorded_ts", BigInteger, nullable=False),
    Column("inventory", Text, nullable=False),
    Column("design", Text),
    Column("host_pattern", String(200)),
    Column("scope", Text, nullable=False),  # JSON: hosts in the capture, fabric or not
    Column("components", Integer, nullable=False),
    Column("changes", Integer, nullable=False),
    Index("ix_snapshots_taken", "taken_ts"),
)

placements = Table(
    "placements", metadata,
    Column("id", Integer, primary_key=True),
    Column("asset", String(200), nullable=False),  # GPU UUID, port GUID, host name ...
    Column("kind", String(32), nullable=False),  # host | gpu | nic | switch | link
    Column("host", String(200)),
    Column("rack", String(200)),
    Column("slot", String(200), nullable=False),  # position: "gpu module 3", "mlx5_0", ...
    Column("attrs", Text, nullable=False),
    Column("since_ts", BigInteger, nullable=False),
    Column("until_ts", BigInteger),
    Column("snapshot_id", Integer, ForeignKey("snapshots.id"), nullable=False),
    Index("ix_placements_asset", "asset", "since_ts"),
    Index("ix_placements_host", "host", "since_ts"),
    Index("ix_placements_rack", "rack", "since_ts"),
    Index("ix_placements_since", "since_ts"),
    Index("ix_placements_open", "until_ts"),
)

changes = Table(
    "changes", metadata,
    Column("id", Integer, primary_key=True),
    Column("snapshot_id", Integer, ForeignKey("snapshots.id"), nullable=False),
    Column("ts", BigInteger, nullable=False),
    Column("change", String(16), nullable=False),  # install | remove | move | swap | update
    Column("kind", String(32), nullable=False),
    Column("asset", String(200), nullable=False),
    Column("other", String(200)),  # swap: the part taken out (asset is the one put in)
    Column("host", String(200)),
    Column("rack", String(200)),
    Column("slot", String(200), nullable=False),
    Column("before", Text),
    Column("after", Text),
    Index("ix_changes_asset", "asset", "ts"),
    Index("ix_changes_other", "other"),
    Index("ix_changes_ts", "ts"),
    Index("ix_changes_host", "host", "ts"),
)

events = Table(
    "events", metadata,
    Column("id", Integer, primary_key=True),
    Column("ts", BigInteger, nullable=False),
    Column("host", String(200)),
    Column("asset", String(200)),
    Column("component", String(32), nullable=False),  # a rate kind of catalogs/rates
    Column("event", String(16), nullable=False),  # failure | interruption | rma | replaced | repaired
    Column("note", Text, nullable=False),
    Column("source", Text, nullable=False),  # file and line it was imported from
    Column("digest", String(64), nullable=False, unique=True),
    Index("ix_events_ts", "ts"),
    Index("ix_events_asset", "asset", "ts"),
    Index("ix_events_component", "component", "ts"),
)

TABLES = ("snapshots", "placements", "changes", "events")
