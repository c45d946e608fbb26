"""The ratings' statements: claim a rated game's result, lock and write players' ratings, the history, the leaderboard.

None of these runs in a game's transaction. Applying a result is a short write transaction of its
own (:meth:`RatingStore.transaction`), which locks what it writes:

- the result row, ``FOR UPDATE SKIP LOCKED`` on PostgreSQL (a result another process is applying
  is left to it), read only while pending;
- the persons' player rows, ``FOR UPDATE`` in id order (one order for every transaction: no
  deadlock);
- a bot's player row, ``FOR UPDATE SKIP LOCKED``: whoever holds it applies every pending game of
  that bot in one batch, and the others go on (see :class:`RatingTransaction.lock_bot`).

On SQLite a write transaction holds the database's write lock (``BEGIN IMMEDIATE``), which does
all of this at once.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Integer, Table, and_, bindparam, insert, or_, select, true, tuple_, update
from sqlalchemy.dialects import postgresql, sqlite

from .db import Database
from .models import GameResultRow, OutboxRow
from .player_models import PlayerRow, RatingHistoryRow, RatingOpponentRow
from .repository import GameRepository, outbox_values
from .stored import PLAYER_COLUMNS, StoredGame, StoredPlayer, StoredPlayerEvent
from .stored_ratings import HISTORY_COLUMNS, StoredEntry, StoredHistory, StoredResult

__all__ = ["RatingStore", "RatingTransaction"]

PLAYERS = cast(Table, PlayerRow.__table__)
RESULTS = cast(Table, GameResultRow.__table__)
HISTORY = cast(Table, RatingHistoryRow.__table__)
OPPONENTS = cast(Table, RatingOpponentRow.__table__)
_OUTBOX = cast(Table, OutboxRow.__table__)

_PLAYER = select(*(PLAYERS.c[name] for name in PLAYER_COLUMNS))
_HISTORY = select(*(HISTORY.c[name] for name in HISTORY_COLUMNS))
# The worker's reads of every pass, built once (built on each call, they cost more CPU than they take to run).
_FINISHED_BEFORE = bindparam("finished_before", type_=RESULTS.c.finished_at.type)
_PENDING_RESULTS = (
    select(RESULTS.c.game_id)
    .where(RESULTS.c.applied_at.is_(None), RESULTS.c.finished_at < _FINISHED_BEFORE)
    .order_by(RESULTS.c.finished_at)
    .limit(bindparam("limit", type_=Integer))
)
_PENDING_BOTS = (
    select(HISTORY.c.player_id).where(HISTORY.c.mu_after.is_(None), HISTORY.c.finished_at < _FINISHED_BEFORE).distinct()
)


class RatingStore:
    """Ratings in one database: the apply step's transactions, and the reads of histories and the leaderboard."""

    def __init__(self, db: Database) -> None:
        self.db = db

    @contextmanager
    def transaction(self) -> Iterator[RatingTransaction]:
        """One short write transaction on a connection of its own: committed when the block ends,
        rolled back if it raises."""
        with self.db.connect() as connection, self.db.begin(connection, write=True):
            yield RatingTransaction(connection)

    def pending_results(self, *, finished_before: datetime, limit: int) -> list[str]:
        """The rated games whose results are still to apply, finished before ``finished_before``, oldest first."""
        values = {"finished_before": finished_before, "limit": limit}
        return list(self._read(lambda connection: connection.execute(_PENDING_RESULTS, values).scalars().all()))

    def pending_bots(self, *, finished_before: datetime) -> list[str]:
        """The bot players with history rows still to complete, from games finished before ``finished_before``."""
        values = {"finished_before": finished_before}
        return list(self._read(lambda connection: connection.execute(_PENDING_BOTS, values).scalars().all()))

    def player(self, player_id: str) -> StoredPlayer | None:
        row = self._read(lambda connection: connection.execute(_PLAYER.where(PLAYERS.c.id == player_id)).first())
        return None if row is None else StoredPlayer(*row)

    def history(self, player_id: str, *, before: tuple[datetime, str] | None, limit: int) -> list[StoredHistory]:
        """The player's completed history rows, newest first (by finish, then game id), after the cursor ``before``."""
        statement = (
            _HISTORY.where(HISTORY.c.player_id == player_id, HISTORY.c.mu_after.is_not(None))
            .order_by(HISTORY.c.finished_at.desc(), HISTORY.c.game_id.desc())
            .limit(limit)
        )
        if before is not None:
            at, game_id = before
            statement = statement.where(
                or_(HISTORY.c.finished_at < at, and_(HISTORY.c.finished_at == at, HISTORY.c.game_id < game_id))
            )
        rows = self._read(lambda connection: connection.execute(statement).all())
        return [StoredHistory(*row) for row in rows]

    def applied(self, seats: Collection[tuple[str, str]]) -> list[StoredHistory]:
        """The completed history rows of these (player, game) pairs: the rated games' applied changes
        (one statement on the history's key)."""
        if not seats:
            return []
        statement = _HISTORY.where(
            tuple_(HISTORY.c.player_id, HISTORY.c.game_id).in_(sorted(seats)), HISTORY.c.mu_after.is_not(None)
        )
        rows = self._read(lambda connection: connection.execute(statement).all())
        return [StoredHistory(*row) for row in rows]

    def leaderboard(
        self, now: datetime, *, after: tuple[float, str] | None, limit: int, rising: bool = False
    ) -> list[StoredPlayer]:
        """The players ranked at ``now`` (``listed_until`` after it), or with ``rising`` the listable
        players not ranked now (provisional), best first (mu, then id, both descending: the order of
        the partial index ``ix_players_leaderboard``, or ``ix_players_rising``, read backwards), after
        the cursor ``after``."""
        if rising:
            listed = and_(
                PLAYERS.c.listable == true(), or_(PLAYERS.c.listed_until.is_(None), PLAYERS.c.listed_until <= now)
            )
        else:
            listed = and_(PLAYERS.c.listed_until.is_not(None), PLAYERS.c.listed_until > now)
        statement = _PLAYER.where(listed).order_by(PLAYERS.c.mu.desc(), PLAYERS.c.id.desc()).limit(limit)
        if after is not None:
            mu, player_id = after
            statement = statement.where(or_(PLAYERS.c.mu < mu, and_(PLAYERS.c.mu == mu, PLAYERS.c.id < player_id)))
        rows = self._read(lambda connection: connection.execute(statement).all())
        return [StoredPlayer(*row) for row in rows]

    def _read(self, run: Any) -> Any:
        with self.db.connect() as connection, self.db.begin(connection, write=False, one_statement=True):
            return run(connection)


class RatingTransaction:
    """The statements of one apply step, in its transaction (see the module's docstring for the locks)."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.is_postgres = connection.dialect.name == "postgresql"

    def game(self, game_id: str) -> StoredGame | None:
        """The rated game, with its seats, as stored (read in this transaction)."""
        return GameRepository(self.connection).get(game_id)

    def owe(self, game_id: str, events: Sequence[StoredPlayerEvent]) -> None:
        """Write what applying the game's result owes the players' feeds to the game's outbox, in this
        transaction: committed with the ratings or not at all, and delivered by the worker."""
        if events:
            self.connection.execute(insert(_OUTBOX), [outbox_values(game_id, event) for event in events])

    def claim_result(self, game_id: str) -> StoredResult | None:
        """The game's result, locked, if it is still pending and no other transaction holds it."""
        statement = select(RESULTS).where(RESULTS.c.game_id == game_id, RESULTS.c.applied_at.is_(None))
        row = self.connection.execute(statement.with_for_update(skip_locked=True)).first()
        if row is None:
            return None
        entries = tuple(StoredEntry(**entry) for entry in row.entries)
        return StoredResult(row.game_id, row.finished_at, entries, row.applied_at)

    def lock_players(self, player_ids: Collection[str]) -> dict[str, StoredPlayer]:
        """The players' rows, locked in id order (every transaction takes them in this one order)."""
        statement = _PLAYER.where(PLAYERS.c.id.in_(sorted(player_ids))).order_by(PLAYERS.c.id).with_for_update()
        return {row.id: StoredPlayer(*row) for row in self.connection.execute(statement)}

    def players(self, player_ids: Collection[str]) -> dict[str, StoredPlayer]:
        """The players' rows as they stand, not locked (a bot's: its batch may be writing it)."""
        statement = _PLAYER.where(PLAYERS.c.id.in_(sorted(player_ids)))
        return {row.id: StoredPlayer(*row) for row in self.connection.execute(statement)}

    def lock_bot(self, player_id: str) -> StoredPlayer | None:
        """The bot player's row, locked, or None if another transaction holds it (``SKIP LOCKED``):
        that one's batch applies what is pending, and then looks again (the caller's loop)."""
        statement = _PLAYER.where(PLAYERS.c.id == player_id).with_for_update(skip_locked=True)
        row = self.connection.execute(statement).first()
        return None if row is None else StoredPlayer(*row)

    def pending_of(self, player_id: str, *, limit: int) -> list[StoredHistory]:
        """The player's history rows still to complete, in finishing order."""
        statement = (
            _HISTORY.where(HISTORY.c.player_id == player_id, HISTORY.c.mu_after.is_(None))
            .order_by(HISTORY.c.finished_at, HISTORY.c.game_id)
            .limit(limit)
        )
        return [StoredHistory(*row) for row in self.connection.execute(statement)]

    def recent_results(self, player_id: str, *, since: datetime, until: datetime) -> list[StoredResult]:
        """The results of the player's rated games (in their history) that finished from ``since`` to
        ``until``, oldest first: who sat in each, and where from (the ratings' rules on meetings)."""
        statement = (
            select(RESULTS.c.game_id, RESULTS.c.finished_at, RESULTS.c.entries, RESULTS.c.applied_at)
            .select_from(HISTORY.join(RESULTS, RESULTS.c.game_id == HISTORY.c.game_id))
            .where(HISTORY.c.player_id == player_id, HISTORY.c.finished_at >= since, HISTORY.c.finished_at <= until)
            .order_by(HISTORY.c.finished_at, HISTORY.c.game_id)
        )
        return [
            StoredResult(
                row.game_id, row.finished_at, tuple(StoredEntry(**entry) for entry in row.entries), row.applied_at
            )
            for row in self.connection.execute(statement)
        ]

    def add_opponents(self, player_id: str, opponent_ids: Collection[str]) -> int:
        """Record the player's opponents (those already met stay as they are); how many are new."""
        if not opponent_ids:
            return 0
        values = [{"player_id": player_id, "opponent_id": opponent} for opponent in sorted(set(opponent_ids))]
        dialect_insert = postgresql.insert if self.is_postgres else sqlite.insert
        statement = dialect_insert(OPPONENTS).values(values).on_conflict_do_nothing().returning(OPPONENTS.c.opponent_id)
        return len(self.connection.execute(statement).all())

    def entries_of(self, game_ids: Collection[str]) -> list[StoredHistory]:
        """Every history row of these games (one statement)."""
        statement = _HISTORY.where(HISTORY.c.game_id.in_(sorted(game_ids)))
        return [StoredHistory(*row) for row in self.connection.execute(statement)]

    def add_history(self, rows: Sequence[StoredHistory]) -> bool:
        """Insert a game's history rows; False if any (player, game) was there already (then the
        caller rolls back: the game was applied once)."""
        values = [{name: getattr(row, name) for name in HISTORY_COLUMNS} for row in rows]
        dialect_insert = postgresql.insert if self.is_postgres else sqlite.insert
        statement = dialect_insert(HISTORY).values(values).on_conflict_do_nothing().returning(HISTORY.c.player_id)
        return len(self.connection.execute(statement).all()) == len(rows)  # RETURNING: the rows inserted

    def complete(self, row: StoredHistory) -> None:
        """Write a pending history row's rating before and after (a bot's, from its batch)."""
        statement = (
            update(HISTORY)
            .where(HISTORY.c.player_id == row.player_id, HISTORY.c.game_id == row.game_id, HISTORY.c.mu_after.is_(None))
            .values(
                mu_before=row.mu_before, sigma_before=row.sigma_before, games_before=row.games_before,
                mu_after=row.mu_after, sigma_after=row.sigma_after, applied_at=row.applied_at, weight=row.weight,
            )
        )  # fmt: skip
        self.connection.execute(statement)

    def set_rating(self, player: StoredPlayer, listed_until: datetime | None) -> None:
        """Write the player's rating (mu, sigma, rated games, rated at, distinct opponents, whether the
        leaderboard may list them) and until when it is ranked."""
        statement = (
            update(PLAYERS)
            .where(PLAYERS.c.id == player.id)
            .values(
                mu=player.mu, sigma=player.sigma, rated_games=player.rated_games, rated_at=player.rated_at,
                listed_until=listed_until, opponents=player.opponents, listable=player.listable,
            )
        )  # fmt: skip
        self.connection.execute(statement)

    def mark_applied(self, game_id: str, at: datetime) -> None:
        self.connection.execute(update(RESULTS).where(RESULTS.c.game_id == game_id).values(applied_at=at))
