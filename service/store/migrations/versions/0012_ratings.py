"""Ratings: rated games' results (``game_results``), players' rating histories, the leaderboard's index.

``game_results`` is keyed by game, written by the change that finishes a rated game, and pending
until the ratings have applied it (a partial index lists the pending ones). ``rating_history`` is
keyed by (player, game), with no foreign key: it holds all a player's history shows, so it outlives
the game. ``players.listed_until`` is the moment a listed rating turns provisional by time away
(None while provisional); the leaderboard reads the listed players by ``mu`` from a partial index.
No game was rated before this revision: nothing to fill in.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_JSON = sa.JSON().with_variant(JSONB(), "postgresql")


def _partial_index(name: str, table: str, columns: list[str], condition: str) -> None:
    """An index of the rows matching ``condition`` only, on both databases."""
    op.create_index(name, table, columns, postgresql_where=sa.text(condition), sqlite_where=sa.text(condition))


def upgrade() -> None:
    op.add_column("players", sa.Column("listed_until", sa.DateTime(timezone=True), nullable=True))
    _partial_index("ix_players_leaderboard", "players", ["mu", "id"], "listed_until IS NOT NULL")
    op.create_table(
        "game_results",
        sa.Column("game_id", sa.String(length=26), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("entries", _JSON, nullable=False),
        sa.Column("applied_at", sa.DateTime(timezone=True), nullable=True),
    )
    _partial_index("ix_game_results_pending", "game_results", ["finished_at"], "applied_at IS NULL")
    op.create_table(
        "rating_history",
        sa.Column("player_id", sa.String(length=26), primary_key=True),
        sa.Column("game_id", sa.String(length=26), primary_key=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=False),
        sa.Column("place", sa.SmallInteger(), nullable=False),
        sa.Column("score", sa.SmallInteger(), nullable=False),
        sa.Column("left", sa.Boolean(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("games_before", sa.Integer(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=True),
        sa.Column("sigma_after", sa.Float(), nullable=True),
        sa.Column("applied_at", sa.DateTime(timezone=True), nullable=True),
        sqlite_with_rowid=False,
    )
    op.create_index("ix_rating_history_newest", "rating_history", ["player_id", "finished_at", "game_id"])
    _partial_index("ix_rating_history_pending", "rating_history", ["player_id", "finished_at"], "mu_after IS NULL")


def downgrade() -> None:
    op.drop_index("ix_rating_history_pending", table_name="rating_history")
    op.drop_index("ix_rating_history_newest", table_name="rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_game_results_pending", table_name="game_results")
    op.drop_table("game_results")
    op.drop_index("ix_players_leaderboard", table_name="players")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("listed_until")
