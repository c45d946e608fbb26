"""Queries on one game at a time, in SQLAlchemy Core: load (and lock), save, list.

The ORM models (:mod:`service.store.models`) define the schema; requests work on the plain
dataclasses of :mod:`service.store.stored` through Core statements on one connection, which costs a fraction of the ORM's
unit of work on this hot path. A play reads the game and its seats in one SELECT, then
saves: on PostgreSQL in one statement (:mod:`.fast_save`); on SQLite, where a statement costs
no round trip, as one UPDATE and one or two INSERTs (:meth:`GameRepository.update`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Row, Table, bindparam, case, exists, insert, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite

from .driver import Prepared
from .fast_save import save_in_one_statement
from .models import ActionRow, EventRow, GameResultRow, GameRow, OutboxRow, SeatRow, TrickRow
from .new_events import read_new_events
from .player_models import PlayerRow
from .stored import (
    ACTION_COLUMNS,
    CHANGING_GAME_COLUMNS,
    EVENT_COLUMNS,
    GAME_COLUMNS,
    SEAT_COLUMNS,
    TRICK_COLUMNS,
    StoredAction,
    StoredEvent,
    StoredGame,
    StoredPlayerEvent,
    StoredSeat,
    StoredTrick,
)
from .stored_ratings import StoredResult

__all__ = ["ConcurrentUpdate", "GameRepository"]

GAMES = cast(Table, GameRow.__table__)
SEATS = cast(Table, SeatRow.__table__)
ACTIONS = cast(Table, ActionRow.__table__)
TRICKS = cast(Table, TrickRow.__table__)
EVENTS = cast(Table, EventRow.__table__)
PLAYERS = cast(Table, PlayerRow.__table__)
RESULTS = cast(Table, GameResultRow.__table__)
OUTBOX = cast(Table, OutboxRow.__table__)
OUTBOX_COLUMNS = ("game_id", "player_id", "type", "data", "created_at")  # its id is the sequence's


class ConcurrentUpdate(Exception):
    """The game changed under a transaction that held its lock: a bug, never a client's doing."""


_GAME_COLUMNS = GAME_COLUMNS
_SEAT_COLUMNS = SEAT_COLUMNS


def _insert(table: Table, columns: Sequence[str]) -> Prepared:
    return Prepared(insert(table).values({name: bindparam(name, type_=table.c[name].type) for name in columns}))


# The statements of a play, built once and run on the driver's cursor (see .driver).
# A read takes a game and its three seats in one statement: one row per seat, the game's
# columns in StoredGame's order, then the seat's. The snapshot, the one large column, comes
# with seat 0's row only, so it is sent and decoded once, not three times. A locked read (the
# fallback of a write that lost its races) first locks the game's row, then reads the seats
# in a second statement: under PostgreSQL's READ COMMITTED a locking SELECT that waited
# re-reads only the rows it locks, so seats joined into it could be older than the game row.
# A request with a player's key reads, in that same statement, the id of the key's player (a
# scalar subquery on the players' unique index of key hashes): resolving a key costs no round trip.
_GAME_AND_SEATS = (
    *(
        case((SEATS.c.seat == 0, GAMES.c.state)).label("state") if name == "state" else GAMES.c[name]
        for name in _GAME_COLUMNS
    ),
    *(SEATS.c[name].label(f"seat_{name}") for name in _SEAT_COLUMNS),
)
_KEY_PLAYER = select(PLAYERS.c.id).where(PLAYERS.c.key_hash == bindparam("key_hash")).scalar_subquery()
_SELECT_GAME_AND_SEATS, _SELECT_GAME_SEATS_AND_CALLER = (
    Prepared(
        select(*columns)
        .join(SEATS, SEATS.c.game_id == GAMES.c.id)
        .where(GAMES.c.id == bindparam("game_id"))
        .order_by(SEATS.c.seat)
    )
    for columns in (_GAME_AND_SEATS, (*_GAME_AND_SEATS, _KEY_PLAYER.label("caller")))
)
_SELECT_KEY_PLAYER = Prepared(select(_KEY_PLAYER))
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
    .values({name: bindparam(f"new_{name}", type_=GAMES.c[name].type) for name in CHANGING_GAME_COLUMNS})
)
_UPDATE_SEAT = Prepared(
    update(SEATS)
    .where(SEATS.c.game_id == bindparam("where_game_id"), SEATS.c.seat == bindparam("where_seat"))
    .values({name: bindparam(f"new_{name}", type_=SEATS.c[name].type) for name in _SEAT_COLUMNS if name != "seat"})
)
_INSERT_GAME = _insert(GAMES, _GAME_COLUMNS)
_INSERT_SEATS = _insert(SEATS, ("game_id", *_SEAT_COLUMNS))
_INSERT_ACTIONS = _insert(ACTIONS, ("game_id", *ACTION_COLUMNS))
_INSERT_TRICKS = _insert(TRICKS, ("game_id", *TRICK_COLUMNS))
_INSERT_EVENTS = _insert(EVENTS, ("game_id", *EVENT_COLUMNS))
_INSERT_RESULTS = _insert(RESULTS, ("game_id", "finished_at", "entries", "applied_at"))
_INSERT_OUTBOX = _insert(OUTBOX, OUTBOX_COLUMNS)
_GAME_WIDTH = len(_GAME_COLUMNS)


CANCELLED = "cancelled"  # the status of a game cancelled before it started (contract 1.3)
WAITING_FOR_PLAYERS = "waiting_for_players"
_OPEN_SEAT = (
    SEATS.c.token_hash.is_(None), SEATS.c.bot.is_(None), SEATS.c.player_id.is_(None), SEATS.c.reserved_for.is_(None)
)  # fmt: skip
_VERSION = select(GAMES.c.version, GAMES.c.status).where(GAMES.c.id == bindparam("game_id"))
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

    def get(self, game_id: str, *, lock: bool = False, key_hash: str | None = None) -> StoredGame | None:
        """The game with its seats in one statement; with ``lock`` (a write that lost its races),
        the game's row locked until commit, then its seats. With ``key_hash`` (of a player's key),
        also the id of that key's player as the game's ``caller`` (None: no such key): in the same
        statement, or (locked) in one more."""
        key = {"game_id": game_id}
        if lock:
            locked = _LOCK_GAME.run(self.connection, key)
            if not locked.rows:
                return None
            game = _stored_game(locked.row(0))
            game.seats = [StoredSeat(*row) for row in _SELECT_SEATS.run(self.connection, key).all()]
            if key_hash is not None:
                game.caller = _SELECT_KEY_PLAYER.run(self.connection, {"key_hash": key_hash}).rows[0][0]
                game.caller_key = key_hash
            return game
        if key_hash is None:
            joined = _SELECT_GAME_AND_SEATS.run(self.connection, key)
        else:
            joined = _SELECT_GAME_SEATS_AND_CALLER.run(self.connection, {**key, "key_hash": key_hash})
        if not joined.rows:
            return None
        game = _stored_game(joined.row(0))  # the game's columns are the same on every row: read once
        game.seats = [
            StoredSeat(*joined.row(index, start=_GAME_WIDTH)[: len(_SEAT_COLUMNS)]) for index in range(len(joined.rows))
        ]
        if key_hash is not None:
            game.caller, game.caller_key = joined.rows[0][-1], key_hash
        return game

    def save(self, game: StoredGame) -> bool:
        """Write the game (insert, or update at the version it was loaded at), its changed seats,
        and its queued actions, tricks and events: an update on PostgreSQL in one statement
        (:mod:`.fast_save`), else by :meth:`update`. False, with nothing written, when the stored
        game is no longer at that version (another request changed it since it was read)."""
        if game.loaded_version is None:
            _INSERT_GAME.run(self.connection, {name: getattr(game, name) for name in _GAME_COLUMNS})
            _INSERT_SEATS.run_many(self.connection, [_seat_values(game.id, seat) for seat in game.seats])
            self._insert(_queued_rows(game))
        elif self.is_postgres:
            seats = [game.seats[number] for number in sorted(game.changed_seats)]
            if not save_in_one_statement(self.connection, _update_values(game), seats, _queued_rows(game)):
                return False
        elif not self.update(game):
            return False
        game.new_actions, game.new_tricks, game.new_events = [], [], []
        game.new_result, game.new_player_events = None, []
        game.loaded_version = game.version
        game.changed_seats.clear()
        return True

    def update(self, game: StoredGame) -> bool:
        """The plain save of a stored game, one statement a row: its UPDATE at the version it was
        loaded at (False, with nothing written, at another), then its changed seats' and the INSERTs
        of its queued rows. SQLite's way; on PostgreSQL, the slow twin of :mod:`.fast_save`. Run
        inside a transaction; :meth:`save` then clears the game's queues."""
        if _UPDATE_GAME.run(self.connection, _update_values(game)).rowcount != 1:
            return False
        for number in sorted(game.changed_seats):
            seat = {f"new_{name}": getattr(game.seats[number], name) for name in _SEAT_COLUMNS if name != "seat"}
            _UPDATE_SEAT.run(self.connection, {**seat, "where_game_id": game.id, "where_seat": number})
        self._insert(_queued_rows(game))
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
        self._insert(_queued_rows(game))
        game.new_actions, game.new_tricks, game.new_events = [], [], []
        game.new_result, game.new_player_events = None, []
        game.loaded_version = game.version
        return True

    def _insert(self, rows: dict[str, list[dict[str, Any]]]) -> None:
        queued = (
            (_INSERT_ACTIONS, "actions"), (_INSERT_TRICKS, "tricks"), (_INSERT_EVENTS, "events"),
            (_INSERT_RESULTS, "results"), (_INSERT_OUTBOX, "outbox"),
        )  # fmt: skip
        for statement, table in queued:
            if rows[table]:
                statement.run_many(self.connection, rows[table])

    def list_games(
        self, *, status: str | None, before_id: str | None, limit: int, player_id: str | None = None
    ) -> list[StoredGame]:
        """Games newest first (ids sort by creation time), after the cursor ``before_id``, of one
        ``status`` and with a seat of ``player_id``'s if given; two statements."""
        query = select(GAMES).order_by(GAMES.c.id.desc()).limit(limit)
        if player_id is not None:  # their seats, and those reserved for them (a challenge's)
            theirs = select(SEATS.c.game_id).where(SEATS.c.player_id == player_id)
            reserved = select(SEATS.c.game_id).where(SEATS.c.reserved_for == player_id)
            query = query.where(or_(GAMES.c.id.in_(theirs), GAMES.c.id.in_(reserved)))
        else:  # a cancelled game is in its players' lists only; a game whose vacant seats are all reserved is not open
            query = query.where(GAMES.c.status != CANCELLED)
            if status == WAITING_FOR_PLAYERS:  # nor a rematch offer's (its seats wait for their own askers)
                query = query.where(exists().where(SEATS.c.game_id == GAMES.c.id, *_OPEN_SEAT))
                query = query.where(GAMES.c.rematch_of.is_(None))
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

    def version(self, game_id: str) -> tuple[int, str] | None:
        """The stored game's version and status, or None when there is no such game."""
        row = self.connection.execute(_VERSION, {"game_id": game_id}).first()
        return None if row is None else (row[0], row[1])

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
    mapping = row._mapping  # SQLAlchemy's public mapping view (underscored not to clash with column names)
    return tuple(mapping[name] for name in names)


def _update_values(game: StoredGame) -> dict[str, Any]:
    """The values of the game's UPDATE: its changing columns, at the version it was loaded at."""
    values = {f"new_{name}": getattr(game, name) for name in CHANGING_GAME_COLUMNS}
    values.update(where_id=game.id, where_version=game.loaded_version)
    return values


def _queued_rows(game: StoredGame) -> dict[str, list[dict[str, Any]]]:
    """The values of the rows the game has queued, by table."""
    return {
        "actions": [_action_values(game.id, action) for action in game.new_actions],
        "tricks": [_trick_values(game.id, trick) for trick in game.new_tricks],
        "events": [_event_values(game.id, event) for event in game.new_events],
        "results": [] if game.new_result is None else [result_values(game.id, game.new_result)],
        "outbox": [outbox_values(game.id, event) for event in game.new_player_events],
    }


def result_values(game_id: str, result: StoredResult) -> dict[str, Any]:
    """A rated game's result as its row's values (its entries as a JSON list, by seat)."""
    entries = [asdict(entry) for entry in result.entries]
    return {"game_id": game_id, "finished_at": result.finished_at, "entries": entries, "applied_at": None}


def _seat_values(game_id: str, seat: StoredSeat) -> dict[str, Any]:
    return {"game_id": game_id, **{name: getattr(seat, name) for name in _SEAT_COLUMNS}}


def _action_values(game_id: str, action: StoredAction) -> dict[str, Any]:
    return {"game_id": game_id, **{name: getattr(action, name) for name in ACTION_COLUMNS}}


def _trick_values(game_id: str, trick: StoredTrick) -> dict[str, Any]:
    return {"game_id": game_id, **{name: getattr(trick, name) for name in TRICK_COLUMNS}}


def outbox_values(game_id: str, event: StoredPlayerEvent) -> dict[str, Any]:
    """A player's event the change owes, as its outbox row's values (numbered once delivered)."""
    return {"game_id": game_id, **{name: getattr(event, name) for name in OUTBOX_COLUMNS if name != "game_id"}}


def _event_values(game_id: str, event: StoredEvent) -> dict[str, Any]:
    return {"game_id": game_id, **{name: getattr(event, name) for name in EVENT_COLUMNS}}
