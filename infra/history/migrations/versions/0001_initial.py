"""History store: snapshots, placements (intervals), changes, events.

Revision ID: 0001
Revises:
Create Date: 2026-05-20
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "snapshots",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("taken_ts", sa.BigInteger, nullable=False),
        sa.Column("seen_until_ts", sa.BigInteger, nullable=False),
        sa.Column("recorded_ts", sa.BigInteger, nullable=False),
        sa.Column("inventory", sa.Text, nullable=False),
        sa.Column("design", sa.Text),
        sa.Column("host_pattern", sa.String(200)),
        sa.Column("scope", sa.Text, nullable=False),
        sa.Column("components", sa.Integer, nullable=False),
        sa.Column("changes", sa.Integer, nullable=False),
    )
    op.create_index("ix_snapshots_taken", "snapshots", ["taken_ts"])
    op.create_table(
        "placements",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("asset", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("host", sa.String(200)),
        sa.Column("rack", sa.String(200)),
        sa.Column("slot", sa.String(200), nullable=False),
        sa.Column("attrs", sa.Text, nullable=False),
        sa.Column("since_ts", sa.BigInteger, nullable=False),
        sa.Column("until_ts", sa.BigInteger),
        sa.Column("snapshot_id", sa.Integer, sa.ForeignKey("snapshots.id"), nullable=False),
    )
    op.create_index("ix_placements_asset", "placements", ["asset", "since_ts"])
    op.create_index("ix_placements_host", "placements", ["host", "since_ts"])
    op.create_index("ix_placements_rack", "placements", ["rack", "since_ts"])
    op.create_index("ix_placements_since", "placements", ["since_ts"])
    op.create_index("ix_placements_open", "placements", ["until_ts"])
    op.create_table(
        "changes",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("snapshot_id", sa.Integer, sa.ForeignKey("snapshots.id"), nullable=False),
        sa.Column("ts", sa.BigInteger, nullable=False),
        sa.Column("change", sa.String(16), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("asset", sa.String(200), nullable=False),
        sa.Column("other", sa.String(200)),
        sa.Column("host", sa.String(200)),
        sa.Column("rack", sa.String(200)),
        sa.Column("slot", sa.String(200), nullable=False),
        sa.Column("before", sa.Text),
        sa.Column("after", sa.Text),
    )
    op.create_index("ix_changes_asset", "changes", ["asset", "ts"])
    op.create_index("ix_changes_other", "changes", ["other"])
    op.create_index("ix_changes_ts", "changes", ["ts"])
    op.create_index("ix_changes_host", "changes", ["host", "ts"])
    op.create_table(
        "events",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("ts", sa.BigInteger, nullable=False),
        sa.Column("host", sa.String(200)),
        sa.Column("asset", sa.String(200)),
        sa.Column("component", sa.String(32), nullable=False),
        sa.Column("event", sa.String(16), nullable=False),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("digest", sa.String(64), nullable=False, unique=True),
    )
    op.create_index("ix_events_ts", "events", ["ts"])
    op.create_index("ix_events_asset", "events", ["asset", "ts"])
    op.create_index("ix_events_component", "events", ["component", "ts"])


def downgrade() -> None:
    for table in ("events", "changes", "placements", "snapshots"):
        op.drop_table(table)
