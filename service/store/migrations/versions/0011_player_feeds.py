"""Players' own feeds: player_feeds (each player's last event id) and player_events.

Neither is keyed by game id (see their models): a player's feed belongs to the player, and is
written after a game's change has committed, in short transactions of its own. Both WITHOUT ROWID
on SQLite.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "player_feeds",
        sa.Column("player_id", sa.String(length=26), primary_key=True),
        sa.Column("last_id", sa.Integer(), nullable=False),
        sqlite_with_rowid=False,
    )
    op.create_table(
        "player_events",
        sa.Column("player_id", sa.String(length=26), primary_key=True),
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sqlite_with_rowid=False,
    )


def downgrade() -> None:
    op.drop_table("player_events")
    op.drop_table("player_feeds")
