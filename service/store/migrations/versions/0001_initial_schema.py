"""Initial schema: games, seats, actions and tricks, as in service/store/models.py.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Frozen here on purpose: a revision must not change when the models do.
JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(length=26), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("target_score", sa.SmallInteger(), nullable=False),
        sa.Column("auto_deal", sa.Boolean(), nullable=False),
        sa.Column("seed", sa.String(length=200), nullable=True),
        sa.Column("requested_first_dealer", sa.SmallInteger(), nullable=True),
        sa.Column("turn_timeout_seconds", sa.Integer(), nullable=True),
        sa.Column("turn_deadline", sa.DateTime(timezone=True), nullable=True),
        sa.Column("open_seats", sa.SmallInteger(), nullable=False),
        sa.Column("trick_count", sa.Integer(), nullable=False),
        sa.Column("action_count", sa.Integer(), nullable=False),
        sa.Column("state", JSON, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_games_status_id", "games", ["status", "id"], unique=False)
    op.create_table(
        "seats",
        sa.Column("game_id", sa.String(length=26), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=True),
        sa.Column("age", sa.SmallInteger(), nullable=True),
        sa.Column("token_hash", sa.String(length=64), nullable=True),
        sa.Column("bot", sa.String(length=10), nullable=True),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "seat"),
    )
    op.create_table(
        "actions",
        sa.Column("game_id", sa.String(length=26), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=False),
        sa.Column("hand_number", sa.Integer(), nullable=False),
        sa.Column("cause", sa.String(length=8), nullable=False),
        sa.Column("card", sa.String(length=16), nullable=True),
        sa.Column("seed", sa.String(length=128), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "seq"),
    )
    op.create_table(
        "tricks",
        sa.Column("game_id", sa.String(length=26), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("hand_number", sa.Integer(), nullable=False),
        sa.Column("trick_number", sa.SmallInteger(), nullable=False),
        sa.Column("leader", sa.SmallInteger(), nullable=False),
        sa.Column("plays", JSON, nullable=False),
        sa.Column("winner", sa.SmallInteger(), nullable=False),
        sa.Column("points", sa.SmallInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "number"),
    )


def downgrade() -> None:
    op.drop_table("tricks")
    op.drop_table("actions")
    op.drop_table("seats")
    op.drop_index("ix_games_status_id", table_name="games")
    op.drop_table("games")
