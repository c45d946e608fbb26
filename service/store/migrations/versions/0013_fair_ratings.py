"""Ratings people can trust: clocks for rated games, void games, the rules against farming, names, accounts.

- ``games.void``: a rated game a seat left before playing a card (it rates nobody); ``seats.played``:
  the seat's own holder has played a card, filled in from the actions of the games in progress;
  ``seats.lapses``: the deadlines in a row the seat's holder let pass (contract 1.3: a seat that
  lets too many pass has left), 0 for every seat (a count starts with this revision).
- Rated games stored without a turn clock get 60 s (contract 1.3); those waiting on a person get a
  deadline 60 s from now.
- Where requests came from, as keyed hashes only (``seats``, ``queue_tickets``, ``players``:
  ``address_hash``), for the rules on one address; ``service_secrets`` keeps the key when
  ``ADDRESS_HASH_KEY`` is not set.
- ``rating_history.weight`` (1 for every game rated before); ``rating_opponents`` and
  ``players.opponents``: the distinct opponents each person met, filled in from the histories;
  ``players.listable`` (the leaderboard's floor, bots always) with its index for the rising players;
  ratings not listable are no longer ranked.
- ``players.barred_at``, ``players.deleted_at``, ``admin_actions`` (the operators' audit).
- Names: up to 80 code points (the columns widened, and left so by a downgrade), and
  ``players.legacy_name`` marks the names the rule for names (service.names, as of this revision)
  would refuse now: kept as they are, never rewritten (``coins-admin legacy-names`` lists them).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from alembic import context, op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

RATED_TURN_TIMEOUT_SECONDS = 60
MIN_OPPONENTS = 3  # service.ratings.fairness.MIN_OPPONENTS as of this revision
BOT_PLAYER_IDS = ("00000000000000000000000001", "00000000000000000000000002", "00000000000000000000000003")
IN_PROGRESS = ("playing", "waiting_for_deal")
BATCH = 1000
_JSON = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    _columns()
    _tables()
    _widen_names()
    _clocks()
    _played()
    _opponents()
    _legacy_names()


def _columns() -> None:
    for table in ("players", "seats", "queue_tickets"):
        op.add_column(table, sa.Column("address_hash", sa.String(length=32), nullable=True))
    op.add_column("seats", sa.Column("played", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("seats", sa.Column("lapses", sa.SmallInteger(), nullable=False, server_default="0"))
    op.add_column("games", sa.Column("void", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("rating_history", sa.Column("weight", sa.Float(), nullable=False, server_default="1"))
    op.add_column("players", sa.Column("opponents", sa.Integer(), nullable=False, server_default="0"))
    op.add_column("players", sa.Column("listable", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("players", sa.Column("barred_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("players", sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("players", sa.Column("legacy_name", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_index(
        "ix_players_rising", "players", ["mu", "id"],
        postgresql_where=sa.text("listable"), sqlite_where=sa.text("listable = 1"),
    )  # fmt: skip


def _tables() -> None:
    op.create_table(
        "rating_opponents",
        sa.Column("player_id", sa.String(length=26), primary_key=True),
        sa.Column("opponent_id", sa.String(length=26), primary_key=True),
        sqlite_with_rowid=False,
    )
    op.create_table(
        "admin_actions",
        sa.Column("id", sa.String(length=26), primary_key=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("operator", sa.String(length=100), nullable=False),
        sa.Column("action", sa.String(length=20), nullable=False),
        sa.Column("player_id", sa.String(length=26), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("detail", _JSON, nullable=False),
    )
    op.create_index("ix_admin_actions_player_id", "admin_actions", ["player_id", "id"])
    op.create_table(
        "service_secrets",
        sa.Column("name", sa.String(length=40), primary_key=True),
        sa.Column("value", sa.String(length=128), nullable=False),
    )


def _widen_names() -> None:
    """Names of up to 80 code points: PostgreSQL's columns widened in place; SQLite's tables are copied
    (its lengths are not enforced, but the schema says them), keeping the seats' clustered key."""
    postgres = op.get_bind().dialect.name == "postgresql"
    if not postgres and context.is_offline_mode():  # coins-migrate --sql: a copy needs the live table
        op.execute("-- 0013: SQLite's name columns are widened (their tables copied) when migrating online")
        return
    for table in ("players", "seats", "queue_tickets"):
        if postgres:
            op.alter_column(table, "name", type_=sa.String(length=80), existing_type=sa.String(length=40))
            continue
        kwargs = {"sqlite_with_rowid": False} if table == "seats" else {}
        with op.batch_alter_table(table, table_kwargs=kwargs) as batch:
            batch.alter_column("name", type_=sa.String(length=80), existing_type=sa.String(length=40))


_games = sa.table(
    "games", sa.column("id", sa.String()), sa.column("status", sa.String()), sa.column("rated", sa.Boolean()),
    sa.column("turn_timeout_seconds", sa.Integer()), sa.column("turn_deadline", sa.DateTime(timezone=True)),
)  # fmt: skip
_seats = sa.table(
    "seats", sa.column("game_id", sa.String()), sa.column("seat", sa.SmallInteger()),
    sa.column("player_id", sa.String()), sa.column("played", sa.Boolean()),
)  # fmt: skip
_actions = sa.table(
    "actions", sa.column("game_id", sa.String()), sa.column("seat", sa.SmallInteger()),
    sa.column("kind", sa.String()), sa.column("cause", sa.String()),
)  # fmt: skip
_players = sa.table(
    "players", sa.column("id", sa.String()), sa.column("name", sa.String()), sa.column("bot", sa.String()),
    sa.column("opponents", sa.Integer()), sa.column("listable", sa.Boolean()),
    sa.column("listed_until", sa.DateTime(timezone=True)), sa.column("legacy_name", sa.Boolean()),
)  # fmt: skip
_history = sa.table("rating_history", sa.column("player_id", sa.String()), sa.column("game_id", sa.String()))
_opponent_rows = sa.table(
    "rating_opponents", sa.column("player_id", sa.String()), sa.column("opponent_id", sa.String())
)


def _clocks() -> None:
    """Rated games without a clock get 60 s; a game in progress waiting on a person, a deadline."""
    unclocked = sa.and_(_games.c.rated.is_(True), _games.c.turn_timeout_seconds.is_(None))
    waiting = sa.and_(unclocked, _games.c.status.in_(IN_PROGRESS), _games.c.turn_deadline.is_(None))
    deadline = datetime.now(UTC) + timedelta(seconds=RATED_TURN_TIMEOUT_SECONDS)
    op.execute(_games.update().where(waiting).values(turn_deadline=deadline))
    op.execute(_games.update().where(unclocked).values(turn_timeout_seconds=RATED_TURN_TIMEOUT_SECONDS))


def _played() -> None:
    """The seats of games in progress whose own holder played a card: a person's play, or a bot's on
    the bot's own seat (not a stand-in's, nor the bot on a leaver's seat)."""
    own_play = sa.and_(
        _actions.c.game_id == _seats.c.game_id,
        _actions.c.seat == _seats.c.seat,
        _actions.c.kind == "play",
        sa.or_(
            _actions.c.cause == "player", sa.and_(_actions.c.cause == "bot", _seats.c.player_id.in_(BOT_PLAYER_IDS))
        ),
    )
    in_progress = sa.and_(_games.c.id == _seats.c.game_id, _games.c.status.in_(IN_PROGRESS))
    op.execute(
        _seats.update()
        .where(sa.exists(sa.select(1).where(own_play)), sa.exists(sa.select(1).where(in_progress)))
        .values(played=True)
    )


def _opponents() -> None:
    """Each person's distinct opponents, from the histories (no address is known for games rated
    before: each counts); bots are listable, persons from MIN_OPPONENTS on; others are not ranked."""
    mine, theirs = _history.alias("mine"), _history.alias("theirs")
    pairs = (
        sa.select(mine.c.player_id, theirs.c.player_id)
        .select_from(
            mine.join(theirs, sa.and_(mine.c.game_id == theirs.c.game_id, mine.c.player_id != theirs.c.player_id))
        )
        .join(_players, sa.and_(_players.c.id == mine.c.player_id, _players.c.bot.is_(None)))
        .distinct()
    )
    op.execute(_opponent_rows.insert().from_select(["player_id", "opponent_id"], pairs))
    count = (
        sa.select(sa.func.count())
        .select_from(_opponent_rows)
        .where(_opponent_rows.c.player_id == _players.c.id)
        .scalar_subquery()
    )
    op.execute(_players.update().where(_players.c.bot.is_(None)).values(opponents=count))
    listable = sa.or_(_players.c.bot.is_not(None), _players.c.opponents >= MIN_OPPONENTS)
    op.execute(_players.update().where(listable).values(listable=True))
    op.execute(_players.update().where(sa.not_(listable)).values(listed_until=None))


def _legacy_names() -> None:
    """Mark (never rewrite) the persons' names the rule for names would refuse now."""
    if context.is_offline_mode():  # coins-migrate --sql: the rule runs in Python, not in SQL
        op.execute("-- 0013: players.legacy_name is marked by the rule for names when migrating online (coins-migrate)")
        return
    from service.names import name_problem  # the rule of this release: a mark says "refused when it came"

    connection = op.get_bind()
    after = ""
    while True:
        rows = connection.execute(
            sa.select(_players.c.id, _players.c.name)
            .where(_players.c.bot.is_(None), _players.c.id > after)
            .order_by(_players.c.id)
            .limit(BATCH)
        ).all()
        if not rows:
            return
        refused = [player_id for player_id, name in rows if name_problem(name) is not None]
        if refused:
            connection.execute(_players.update().where(_players.c.id.in_(refused)).values(legacy_name=True))
        after = rows[-1][0]


def downgrade() -> None:
    op.drop_index("ix_players_rising", table_name="players")
    op.drop_table("service_secrets")
    op.drop_index("ix_admin_actions_player_id", table_name="admin_actions")
    op.drop_table("admin_actions")
    op.drop_table("rating_opponents")
    with op.batch_alter_table("players") as batch:
        for column in ("address_hash", "opponents", "listable", "barred_at", "deleted_at", "legacy_name"):
            batch.drop_column(column)
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("address_hash")
        batch.drop_column("played")
        batch.drop_column("lapses")
    with op.batch_alter_table("queue_tickets") as batch:
        batch.drop_column("address_hash")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("void")
    with op.batch_alter_table("rating_history") as batch:
        batch.drop_column("weight")
