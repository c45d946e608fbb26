"""Due work: the worker finds the games whose moves are due by ``games.turn_deadline`` (an index),
moves a game of bots alone only while ``games.followed_until`` holds (the real-time role's mark),
and each role's processes leave a sign of life in ``role_heartbeats`` for ``/readyz``. Quick play's
tickets ask for a turn clock (``queue_tickets.turn_timeout_seconds``, 60 s for those queued before).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("games", sa.Column("followed_until", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_games_turn_deadline", "games", ["turn_deadline"])
    op.add_column("queue_tickets", sa.Column("turn_timeout_seconds", sa.Integer(), nullable=False, server_default="60"))
    op.create_table(
        "role_heartbeats",
        sa.Column("role", sa.String(length=16), primary_key=True),
        sa.Column("instance", sa.String(length=128), primary_key=True),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sqlite_with_rowid=False,
    )


def downgrade() -> None:
    op.drop_table("role_heartbeats")
    op.drop_index("ix_games_turn_deadline", table_name="games")
    with op.batch_alter_table("queue_tickets") as batch:
        batch.drop_column("turn_timeout_seconds")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("followed_until")
