"""Reviews and the master bot: ``reviews`` keeps each finished game's review, asked for by its first
reader and computed by the worker a few plays at a time (``plays`` grows until ``done_at`` is set);
the ``master`` strength gets its player, rated and listed as the other bots are.

The master's id and name are written out here, not imported from the service, so that this revision
stays what it was (tests/store checks the service's against them).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0016"
down_revision: str | Sequence[str] | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

MASTER = ("00000000000000000000000004", "Master bot")
INITIAL_MU = 25.0
INITIAL_SIGMA = 25.0 / 3

_players = sa.table(
    "players", sa.column("id", sa.String()), sa.column("name", sa.String()), sa.column("bot", sa.String()),
    sa.column("key_hash", sa.String()), sa.column("mu", sa.Float()), sa.column("sigma", sa.Float()),
    sa.column("rated_games", sa.Integer()), sa.column("rated_at", sa.DateTime(timezone=True)),
    sa.column("created_at", sa.DateTime(timezone=True)), sa.column("opponents", sa.Integer()),
    sa.column("listable", sa.Boolean()), sa.column("legacy_name", sa.Boolean()),
)  # fmt: skip


def upgrade() -> None:
    op.create_table(
        "reviews",
        sa.Column("game_id", sa.String(length=26), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("reviewed", sa.Integer(), nullable=False),
        sa.Column("plays", sa.JSON().with_variant(postgresql.JSONB(), "postgresql"), nullable=False),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index(
        "ix_reviews_pending", "reviews", ["requested_at"],
        postgresql_where=sa.text("done_at IS NULL"), sqlite_where=sa.text("done_at IS NULL"),
    )  # fmt: skip
    id_, name = MASTER
    op.bulk_insert(
        _players,
        [
            {"id": id_, "name": name, "bot": "master", "key_hash": None, "mu": INITIAL_MU, "sigma": INITIAL_SIGMA,
             "rated_games": 0, "rated_at": None, "created_at": datetime.now(UTC), "opponents": 0, "listable": True,
             "legacy_name": False}
        ],
    )  # fmt: skip


def downgrade() -> None:
    op.execute(_players.delete().where(_players.c.id == MASTER[0]))
    op.drop_index("ix_reviews_pending", table_name="reviews")
    op.drop_table("reviews")
