"""Queries on one game at a time, in SQLAlchemy Core: load (and lock), save, list.

The ORM models (:mod:`service.store.models`) define the schema; requests work on the plain
dataclasses of :mod:`service.store.stored` through Core statements on one connection, which costs a fraction of the ORM's
unit of work on this hot path. A play reads the game and its seats in one SELECT, then
saves: on PostgreSQL in one statement (the UPDATE of the game, checked against the version
read, with the INSERTs of its new actions and tricks as data-modifying CTEs); on SQLite,
where a statement costs no round trip, as one UPDATE and one or two INSERTs.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Row, Table, bindparam, case, insert, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.elements import TextClause

from .driver import Prepared
from .models import ActionRow, EventRow, GameRow, JsonType, SeatRow, TrickRow
from .new_events import read_new_events
from .stored import (
    ACTION_COLUMNS,
    EVENT_COLUMNS,
    GAME_COLUMNS,
    SEAT_COLUMNS,
    TRICK_COLUMNS,
    StoredAction,
    StoredEvent,
    StoredGame,
    StoredSeat,
    StoredTrick,
)

__all__ = ["ConcurrentUpdate", "GameRepository"]

GAMES = cast(Table, GameRow.__table__)
SEATS = cast(Table, SeatRow.__table__)
ACTIONS = cast(Table, ActionRow.__table__)
TRICKS = cast(Table, TrickRow.__table__)
EVENTS = cast(Table, EventRow.__table__)


class ConcurrentUpdate(Exception):
    """The game changed under a transaction that held its lock: a bug, never a client's doing."""


def _postgres_save() -> TextClause:
    """The game's UPDATE (only at the version it was read at) with its changed seats, new actions
    and new tricks, in one statement. The rows ride as JSON arrays turned into the tables' row types
    (``jsonb_populate_recordset``), so the statement is the same whatever their number (psycopg
    prepares it once per connection). Every part depends on the UPDATE's row: at another version
    nothing is written, and the statement answers 0."""

    def columns(table: Table, alias: str = "") -> str:  # all but game_id, which comes from g
        return ", ".join(f"{alias}{column.name}" for column in table.c if column.name != "game_id")

    updated = _CHANGING_GAME_COLUMNS
    seat_values = ", ".join(f"{name} = r.{name}" for name in _SEAT_COLUMNS if name != "seat")
    sql = f"""
        WITH g AS (
            UPDATE games SET {", ".join(f"{name} = :new_{name}" for name in updated)}
            WHERE id = :where_id AND version = :where_version
            RETURNING id
        ), s AS (
            UPDATE seats SET {seat_values}
            FROM g, jsonb_populate_recordset(NULL::seats, :seats) AS r
            WHERE seats.game_id = g.id AND seats.seat = r.seat
        ), a AS (
            INSERT INTO actions (game_id, {columns(ACTIONS)})
            SELECT g.id, {columns(ACTIONS, "r.")}
            FROM g, jsonb_populate_recordset(NULL::actions, :actions) AS r
        ), t AS (
            INSERT INTO tricks (game_id, {columns(TRICKS)})
            SELECT g.id, {columns(TRICKS, "r.")}
            FROM g, jsonb_populate_recordset(NULL::tricks, :tricks) AS r
        ), e AS (
            INSERT INTO events (game_id, {columns(EVENTS)})
            SELECT g.id, {columns(EVENTS, "r.")}
            FROM g, jsonb_populate_recordset(NULL::events, :events) AS r
        )
        SELECT count(*) FROM g
    """
    typed = [bindparam(f"new_{name}", type_=GAMES.c[name].type) for name in updated]
    typed += [bindparam(name, type_=JsonType) for name in ("seats", "actions", "tricks", "events")]
    return text(sql).bindparams(*typed)


_GAME_COLUMNS = GAME_COLUMNS
_SEAT_COLUMNS = SEAT_COLUMNS
# What a change to a game may touch; the other columns are set once, when the game is created.
_CHANGING_GAME_COLUMNS = (
    "version",
    "status",
    "turn_deadline",
    "open_seats",
    "trick_count",
    "action_count",
    "event_count",
    "state",
    "updated_at",
    "rematch",
)


def _insert(table: Table, columns: Sequence[str]) -> Prepared:
    return Prepared(insert(table).values({name: bindparam(name, type_=table.c[name].type) for name in columns}))


# The statements of a play, built once and run on the driver's cursor (see .driver).
# A read takes a game and its three seats in one statement: one row per seat, the game's
# columns in StoredGame's order, then the seat's. The snapshot, the one large column, comes
# with seat 0's row only, so it is sent and decoded once, not three times. A locked read (the
# fallback of a write that lost its races) first locks the game's row, then reads the seats
# in a second statement: under PostgreSQL's READ COMMITTED a locking SELECT that waited
# re-reads only the rows it locks, so seats joined into it could be older than the game row.
_SELECT_GAME_AND_SEATS = Prepared(
    select(
        *(
            case((SEATS.c.seat == 0, GAMES.c.state)).label("state") if name == "state" else GAMES.c[name]
            for name in _GAME_COLUMNS
        ),
        *(SEATS.c[name].label(f"seat_{name}") for name in _SEAT_COLUMNS),
    )
    .join(SEATS, SEATS.c.game_id == GAMES.c.id)
    .where(GAMES.c.id == bindparam("game_id"))
    .order_by(SEATS.c.seat)
)
_LOCK_GAME = Prepared(
    select(*(GAMES.c[name] for name in _GAME_COLUMNS)).where(GAMES.c.id == bindparam("game_id")).with_for_update()
)
_SELECT_SEATS = Prepared(
    select(*(SEATS.c[name] for name in _SEAT_COLUMNS))
    .where(SEATS.c.game_id == bindparam("game_id"))
    .order_by(SEATS.c.seat)
)
_UPDATE_GAME = Prepared(
    update(GAMES)
    .where(GAMES.c.id == bindparam("where_id"), GAMES.c.version == bindparam("where_version"))
    .values({name: bindparam(f"new_{name}", type_=GAMES.c[name].type) for name in _CHANGING_GAME_COLUMNS})
)
_UPDATE_SEAT = Prepared(
    update(SEATS)
    .where(SEATS.c.game_id == bindparam("where_game_id"), SEATS.c.seat == bindparam("where_seat"))
    .values({name: bindparam(f"new_{name}", type_=SEATS.c[name].type) for name in _SEAT_COLUMNS if name != "seat"})
)
_SAVE_POSTGRES = Prepared(_postgres_save())
_INSERT_GAME = _insert(GAMES, _GAME_COLUMNS)
_INSERT_SEATS = _insert(SEATS, ("game_id", *_SEAT_COLUMNS))
_INSERT_ACTIONS = _insert(ACTIONS, ("game_id", *ACTION_COLUMNS))
_INSERT_TRICKS = _insert(TRICKS, ("game_id", *TRICK_COLUMNS))
_INSERT_EVENTS = _insert(EVENTS, ("game_id", *EVENT_COLUMNS))
_GAME_WIDTH = len(_GAME_COLUMNS)


_HEADS = select(GAMES.c.id, GAMES.c.event_count, GAMES.c.turn_deadline).where(
    GAMES.c.id.in_(bindparam("ids", expanding=True))
)


class GameRepository:
    """The game-shaped statements on one connection. The caller (:mod:`.session`) owns the transaction."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.is_postgres = connection.dialect.name == "postgresql"

    @property
    def saves_in_one_statement(self) -> bool:
        """:meth:`save` of a game already stored is a single statement (atomic without a transaction)."""
        return self.is_postgres

    def get(self, game_id: str, *, lock: bool = False) -> StoredGame | None:
        """The game with its seats in one statement; with ``lock`` (a write that lost its races),
        the game's row locked until commit, then its seats."""
        key = {"game_id": game_id}
        if lock:
            locked = _LOCK_GAME.run(self.connection, key)
            if not locked.rows:
                return None
            game = _stored_game(locked.row(0))
            game.seats = [StoredSeat(*row) for row in _SELECT_SEATS.run(self.connection, key).all()]
            return game
        joined = _SELECT_GAME_AND_SEATS.run(self.connection, key)
        if not joined.rows:
            return None
        game = _stored_game(joined.row(0))  # the game's columns are the same on every row: read once
        game.seats = [StoredSeat(*joined.row(index, start=_GAME_WIDTH)) for index in range(len(joined.rows))]
        return game

    def save(self, game: StoredGame) -> bool:
        """Write the game (insert, or update at the version it was loaded at), its changed seats,
        and its queued actions and tricks. False, with nothing written, when the stored game is
        no longer at that version (another request changed it since it was read)."""
        connection = self.connection
        actions = [_action_values(game.id, action) for action in game.new_actions]
        tricks = [_trick_values(game.id, trick) for trick in game.new_tricks]
        events = [_event_values(game.id, event) for event in game.new_events]
        if game.loaded_version is None:
            _INSERT_GAME.run(connection, {name: getattr(game, name) for name in _GAME_COLUMNS})
            _INSERT_SEATS.run_many(connection, [_seat_values(game.id, seat) for seat in game.seats])
            self._insert(actions, tricks, events)
        elif self.is_postgres:
            values = self._update_values(game)
            values["seats"] = [_seat_json(game.seats[number]) for number in sorted(game.changed_seats)]
            values["actions"] = [_row_json(row) for row in actions]
            values["tricks"] = [_row_json(row) for row in tricks]
            values["events"] = [_row_json(row) for row in events]
            if _SAVE_POSTGRES.run(connection, values).rows != [(1,)]:
                return False
        else:
            if _UPDATE_GAME.run(connection, self._update_values(game)).rowcount != 1:
                return False
            for number in sorted(game.changed_seats):
                seat = {f"new_{name}": getattr(game.seats[number], name) for name in _SEAT_COLUMNS if name != "seat"}
                _UPDATE_SEAT.run(connection, {**seat, "where_game_id": game.id, "where_seat": number})
            self._insert(actions, tricks, events)
        game.new_actions, game.new_tricks, game.new_events = [], [], []
        game.loaded_version = game.version
        game.changed_seats.clear()
        return True

    def insert_if_absent(self, game: StoredGame) -> bool:
        """Insert a new game (with its seats and queued rows) unless a game of its id is stored:
        then False, with nothing written. Of two transactions inserting one id, the second waits
        for the first and finds the id taken (``ON CONFLICT DO NOTHING``), rather than failing."""
        dialect_insert = postgresql.insert if self.is_postgres else sqlite.insert
        statement = (
            dialect_insert(GAMES)
            .values({name: getattr(game, name) for name in _GAME_COLUMNS})
            .on_conflict_do_nothing(index_elements=[GAMES.c.id])
            .returning(GAMES.c.id)  # a row when inserted, none when the id was taken
        )
        if self.connection.execute(statement).first() is None:
            return False
        _INSERT_SEATS.run_many(self.connection, [_seat_values(game.id, seat) for seat in game.seats])
        self._insert(
            [_action_values(game.id, action) for action in game.new_actions],
            [_trick_values(game.id, trick) for trick in game.new_tricks],
            [_event_values(game.id, event) for event in game.new_events],
        )
        game.new_actions, game.new_tricks, game.new_events = [], [], []
        game.loaded_version = game.version
        return True

    def _insert(
        self, actions: list[dict[str, Any]], tricks: list[dict[str, Any]], events: list[dict[str, Any]]
    ) -> None:
        if actions:
            _INSERT_ACTIONS.run_many(self.connection, actions)
        if tricks:
            _INSERT_TRICKS.run_many(self.connection, tricks)
        if events:
            _INSERT_EVENTS.run_many(self.connection, events)

    @staticmethod
    def _update_values(game: StoredGame) -> dict[str, Any]:
        values = {f"new_{name}": getattr(game, name) for name in _CHANGING_GAME_COLUMNS}
        values.update(where_id=game.id, where_version=game.loaded_version)
        return values

    def list_games(self, *, status: str | None, before_id: str | None, limit: int) -> list[StoredGame]:
        """Games newest first (ids sort by creation time), after the cursor ``before_id``; two statements."""
        query = select(GAMES).order_by(GAMES.c.id.desc()).limit(limit)
        if status is not None:
            query = query.where(GAMES.c.status == status)
        if before_id is not None:
            query = query.where(GAMES.c.id < before_id)
        games = [_stored_game(_columns(row, _GAME_COLUMNS)) for row in self.connection.execute(query)]
        if games:
            by_id = {game.id: game for game in games}
            seats = select(SEATS).where(SEATS.c.game_id.in_(by_id)).order_by(SEATS.c.game_id, SEATS.c.seat)
            for row in self.connection.execute(seats):
                by_id[row.game_id].seats.append(StoredSeat(*_columns(row, _SEAT_COLUMNS)))
        return games

    def list_actions(self, game_id: str, *, after: int, limit: int) -> list[StoredAction]:
        """The action log oldest first, numbered after ``after``."""
        query = (
            select(*(ACTIONS.c[name] for name in ACTION_COLUMNS))
            .where(ACTIONS.c.game_id == game_id, ACTIONS.c.seq > after)
            .order_by(ACTIONS.c.seq)
            .limit(limit)
        )
        return [StoredAction(*row) for row in self.connection.execute(query)]

    def list_tricks(self, game_id: str, *, after: int, limit: int) -> list[StoredTrick]:
        """Completed tricks oldest first, numbered after ``after``."""
        query = (
            select(*(TRICKS.c[name] for name in TRICK_COLUMNS))
            .where(TRICKS.c.game_id == game_id, TRICKS.c.number > after)
            .order_by(TRICKS.c.number)
            .limit(limit)
        )
        return [StoredTrick(*row) for row in self.connection.execute(query)]

    def heads(self, game_ids: Collection[str]) -> dict[str, tuple[int, datetime | None]]:
        """The last event id and the turn deadline of the stored games among ``game_ids``."""
        found = self.connection.execute(_HEADS, {"ids": list(game_ids)})
        return {game_id: (last, deadline) for game_id, last, deadline in found}

    def list_new_events(self, after: Mapping[str, int], *, limit: int) -> list[tuple[str, StoredEvent]]:
        """Each game's events numbered after its own ``after[game_id]``, at most ``limit`` of each
        game: ``(game_id, event)`` pairs (see :mod:`.new_events`)."""
        return read_new_events(self.connection, after, limit=limit)


def _stored_game(row: Sequence[Any]) -> StoredGame:
    """A game from a row whose first columns are the game's, in :data:`_GAME_COLUMNS` order."""
    game = StoredGame(*row[:_GAME_WIDTH])
    game.loaded_version = game.version
    return game


def _columns(row: Row[Any], names: Sequence[str]) -> tuple[Any, ...]:
    mapping = row._mapping
    return tuple(mapping[name] for name in names)


def _seat_values(game_id: str, seat: StoredSeat) -> dict[str, Any]:
    return {"game_id": game_id, **{name: getattr(seat, name) for name in _SEAT_COLUMNS}}


def _action_values(game_id: str, action: StoredAction) -> dict[str, Any]:
    return {"game_id": game_id, **{name: getattr(action, name) for name in ACTION_COLUMNS}}


def _trick_values(game_id: str, trick: StoredTrick) -> dict[str, Any]:
    return {"game_id": game_id, **{name: getattr(trick, name) for name in TRICK_COLUMNS}}


def _event_values(game_id: str, event: StoredEvent) -> dict[str, Any]:
    return {"game_id": game_id, **{name: getattr(event, name) for name in EVENT_COLUMNS}}


def _seat_json(seat: StoredSeat) -> dict[str, Any]:
    return _row_json({name: getattr(seat, name) for name in _SEAT_COLUMNS})


def _row_json(row: dict[str, Any]) -> dict[str, Any]:
    """A row for ``jsonb_populate_recordset``: timestamps as ISO 8601 with their offset."""
    return {key: value.isoformat() if isinstance(value, datetime) else value for key, value in row.items()}
