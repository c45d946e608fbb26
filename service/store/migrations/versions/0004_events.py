"""Events: each game's feed of changes (table events) and its count (games.event_count).

A game's changes are stored as the events clients receive, numbered per game from 1, in the
same write as the change. Games stored before this revision have no events (their feed starts
from their state when first read). Keyed by (game_id, id) like every table: WITHOUT ROWID on SQLite.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("games", sa.Column("event_count", sa.Integer(), server_default="0", nullable=False))
    op.create_table(
        "events",
        sa.Column("game_id", sa.String(length=26), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=True),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sqlite_with_rowid=False,
    )


def downgrade() -> None:
    op.drop_table("events")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("event_count")
