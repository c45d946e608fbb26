"""Quick-play tickets (table queue_tickets).

Keyed by ticket id, not by game id: a ticket belongs to its player (see the model). A player has
at most one waiting ticket: a partial unique index on ``player_id`` where the status is
``waiting`` (SQLite and PostgreSQL both have them). A partial index finds the waiting tickets
oldest first, another the matched tickets whose games are not stored yet.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WAITING = sa.text("status = 'waiting'")
UNSTARTED = sa.text("status = 'matched' AND NOT game_started")


def upgrade() -> None:
    op.create_table(
        "queue_tickets",
        sa.Column("id", sa.String(length=26), primary_key=True),
        sa.Column("player_id", sa.String(length=26), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("target_score", sa.SmallInteger(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("bots_after", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("game_id", sa.String(length=26), nullable=True),
        sa.Column("seat", sa.SmallInteger(), nullable=True),
        sa.Column("lineup", sa.JSON(), nullable=True),
        sa.Column("matched_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("game_started", sa.Boolean(), nullable=False),
    )
    op.create_index(
        "ix_queue_tickets_waiting_player",
        "queue_tickets",
        ["player_id"],
        unique=True,
        sqlite_where=WAITING,
        postgresql_where=WAITING,
    )
    op.create_index(
        "ix_queue_tickets_waiting",
        "queue_tickets",
        ["created_at"],
        sqlite_where=WAITING,
        postgresql_where=WAITING,
    )
    op.create_index("ix_queue_tickets_game_id", "queue_tickets", ["game_id"])
    op.create_index(
        "ix_queue_tickets_unstarted",
        "queue_tickets",
        ["matched_at"],
        sqlite_where=UNSTARTED,
        postgresql_where=UNSTARTED,
    )


def downgrade() -> None:
    op.drop_table("queue_tickets")
