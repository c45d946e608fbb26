"""Players: the ``players`` table (one row per bot strength made here), a seat's player, rated games, a game's winner.

``seats.player_id`` names the seat's player with no foreign key (a game's rows are tied to no other
table's), indexed with the game id for a player's games, newest first. Bot seats stored before this
revision are given their strength's player. ``games.rated`` is false for every game stored before;
``games.winner`` is filled in for the finished ones from their snapshots' winner, so that a player's
record counts their wins.

The bot players' ids and names are written out here, not imported from the service, so that this
revision stays what it was (tests/store checks the service's against them).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import context, op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BOT_PLAYERS = {
    "random": ("00000000000000000000000001", "Random bot"),
    "basic": ("00000000000000000000000002", "Basic bot"),
    "expert": ("00000000000000000000000003", "Expert bot"),
}
INITIAL_MU = 25.0
INITIAL_SIGMA = 25.0 / 3
BATCH = 1000


def upgrade() -> None:
    players = op.create_table(
        "players",
        sa.Column("id", sa.String(length=26), primary_key=True),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("bot", sa.String(length=10), nullable=True, unique=True),
        sa.Column("key_hash", sa.String(length=64), nullable=True, unique=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("rated_games", sa.Integer(), nullable=False),
        sa.Column("rated_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    now = datetime.now(UTC)
    op.bulk_insert(
        players,
        [
            {"id": id_, "name": name, "bot": bot, "key_hash": None, "mu": INITIAL_MU, "sigma": INITIAL_SIGMA,
             "rated_games": 0, "rated_at": None, "created_at": now}
            for bot, (id_, name) in BOT_PLAYERS.items()
        ],
    )  # fmt: skip
    op.add_column("seats", sa.Column("player_id", sa.String(length=26), nullable=True))
    op.create_index("ix_seats_player_id_game_id", "seats", ["player_id", "game_id"])
    op.add_column("games", sa.Column("rated", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("games", sa.Column("winner", sa.SmallInteger(), nullable=True))
    seats = sa.table("seats", sa.column("bot", sa.String()), sa.column("player_id", sa.String()))
    for bot, (id_, _name) in BOT_PLAYERS.items():
        op.execute(seats.update().where(seats.c.bot == bot).values(player_id=id_))
    _fill_winners()


def _fill_winners() -> None:
    """Each finished game's winning seat, from its snapshot (the engine's ``winner``), a batch at a time."""
    games = sa.table(
        "games", sa.column("id", sa.String()), sa.column("status", sa.String()),
        sa.column("state", sa.JSON()), sa.column("winner", sa.SmallInteger()),
    )  # fmt: skip
    if context.is_offline_mode():  # coins-migrate --sql: the snapshots are read in Python, not by SQL
        op.execute("-- 0009: games.winner is filled in from the snapshots when migrating online (coins-migrate)")
        return
    connection = op.get_bind()
    after = ""
    while True:
        rows = connection.execute(
            sa.select(games.c.id, games.c.state)
            .where(games.c.status == "finished", games.c.id > after)
            .order_by(games.c.id)
            .limit(BATCH)
        ).all()
        if not rows:
            return
        for game_id, state in rows:
            snapshot = json.loads(state) if isinstance(state, str) else state
            winner = (snapshot or {}).get("winner")
            if isinstance(winner, int):
                connection.execute(games.update().where(games.c.id == game_id).values(winner=winner))
        after = rows[-1][0]


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("winner")
        batch.drop_column("rated")
    op.drop_index("ix_seats_player_id_game_id", table_name="seats")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("player_id")
    op.drop_table("players")
