"""The store's statements sent to the driver's cursor (service.store.driver) against their slow twin,
SQLAlchemy's own statements: one generic test over every shape of stored game (text timestamps,
JSON text, 0/1 booleans on SQLite; PostgreSQL's types). Driver errors that mean the database is
gone still become DatabaseUnavailable. (The save in one statement is held to the plain save by
tests/store/test_fast_save.py.) Each statement knows from its compiled form whether rows come back,
held to what the driver says (its cursor's description) over every statement of whole games."""

from __future__ import annotations

import sqlite3
import uuid
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.games import GameService
from service.store import Database, DatabaseUnavailable, StoredGame, StoredResult, StoredSeat, driver
from service.store.repository import GameRepository
from service.store.stored import (
    ACTION_COLUMNS,
    EVENT_COLUMNS,
    GAME_COLUMNS,
    SEAT_COLUMNS,
    TRICK_COLUMNS,
    StoredAction,
    StoredEvent,
    StoredTrick,
)
from tests.support.every_event import Clock, play_every_kind_of_event
from tests.support.rated_games import play_out, rated_table
from tests.support.stored_games import changes, games, through_sqlalchemy

WHEN = datetime(2026, 11, 30, 12, 0, 0, 5, tzinfo=UTC)  # microseconds, to catch a lossy format
STATE = {"format": 1, "hands": [["ace-coins", "two-cups"], [], []], "nested": {"ü": [1, 2.5, None, True]}}


def _record(game_id: str) -> StoredGame:
    seats = [
        StoredSeat(0, "Ana", 41, "a" * 64, None, WHEN),
        StoredSeat(1, None, None, None, "expert", WHEN + timedelta(seconds=1)),
        StoredSeat(2),
    ]
    return StoredGame(
        id=game_id, version=3, status="playing", target_score=15, auto_deal=True, seed="s",
        requested_first_dealer=2, turn_timeout_seconds=60, turn_deadline=WHEN + timedelta(minutes=1),
        open_seats=1, trick_count=0, action_count=0, event_count=0, state=STATE, created_at=WHEN, updated_at=WHEN,
        seats=seats,
    )  # fmt: skip


def _fields(game: StoredGame) -> dict[str, object]:
    return {name: getattr(game, name) for name in (*GAME_COLUMNS, "seats", "loaded_version")}


@pytest.fixture
def db(app) -> Database:
    return app.extensions["coins.db"]


def _expected(game: StoredGame, saved: list[Any]) -> dict[str, Any]:
    def values(row: Any, names: tuple[str, ...]) -> tuple[Any, ...]:
        return tuple(getattr(row, name) for name in names)

    return {
        "game": values(game, GAME_COLUMNS),
        "seats": [values(seat, SEAT_COLUMNS) for seat in game.seats],
        "actions": [values(row, ACTION_COLUMNS) for row in saved if isinstance(row, StoredAction)],
        "tricks": [values(row, TRICK_COLUMNS) for row in saved if isinstance(row, StoredTrick)],
        "events": [values(row, EVENT_COLUMNS) for row in saved if isinstance(row, StoredEvent)],
        "results": [
            (row.finished_at, [asdict(entry) for entry in row.entries], None)
            for row in saved
            if isinstance(row, StoredResult)
        ],
    }


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_shape_of_game_saved_by_the_driver_reads_back_the_same_through_sqlalchemy(db, data):
    """The fast paths of the store against their slow twin: a game inserted, then changed and saved
    (through the driver's cursor; on PostgreSQL in one statement of CTEs), reads back through
    SQLAlchemy's own statements and through the driver's exactly as it was written."""
    game = data.draw(games(f"g-{uuid.uuid4().hex[:12]}"))
    saved: list[Any] = []
    for step in range(2):  # the insert, then a change saved as an update
        if step:
            data.draw(changes(game))
        saved += [*game.new_actions, *game.new_tricks, *game.new_events]
        saved += [game.new_result] if game.new_result is not None else []
        with db.connect() as connection:
            repository = GameRepository(connection)
            with db.begin(connection, write=True, one_statement=game.is_stored and repository.saves_in_one_statement):
                assert repository.save(game)
        with db.transaction(write=False) as connection:
            assert through_sqlalchemy(connection, game.id) == _expected(game, saved)
            loaded = GameRepository(connection).get(game.id)
        assert loaded is not None and _fields(loaded) == _fields(game)


def test_a_missing_sqlite_file_is_unavailable_under_driver_statements(tmp_path: Path):
    directory = tmp_path / "gone"
    db = Database(f"sqlite:///{directory}/coins.db")  # creates the directory
    directory.rmdir()
    with pytest.raises(DatabaseUnavailable), db.connect() as connection:
        GameRepository(connection).get("g4")
    db.dispose()


def test_other_driver_errors_stay_errors(db):
    with pytest.raises((sqlite3.IntegrityError, psycopg.IntegrityError)), db.transaction(write=True) as connection:
        repo = GameRepository(connection)
        repo.save(_record("g5"))
        repo.save(_record("g5"))  # the same id again
    with db.transaction(write=False) as connection:
        assert GameRepository(connection).get("g5") is None  # rolled back as a whole


class _Watched:
    """A driver's cursor that records, for each statement, whether the driver answered rows (its
    description: the plain way to ask) and whether the statement's caller fetched them."""

    def __init__(self, cursor: Any, seen: list[tuple[str, bool, bool]]) -> None:
        self._cursor, self._seen = cursor, seen
        self._sql = ""
        self._fetched = False

    def execute(self, sql: str, parameters: Any) -> None:
        self._cursor.execute(sql, parameters)
        self._sql, self._fetched = sql, False

    def executemany(self, sql: str, parameters: Any) -> None:
        self._cursor.executemany(sql, parameters)

    def fetchall(self) -> list[Any]:
        self._fetched = True
        return self._cursor.fetchall()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)

    def close(self) -> None:
        if self._sql:
            self._seen.append((self._sql, self._cursor.description is not None, self._fetched))
        self._cursor.close()


def test_each_statement_fetches_rows_exactly_when_the_driver_answers_some(app, client, monkeypatch):
    seen: list[tuple[str, bool, bool]] = []
    real = driver.driver_connection

    class Connection:
        def __init__(self, connection: Any) -> None:
            self._connection = real(connection)

        def cursor(self) -> _Watched:
            return _Watched(self._connection.cursor(), seen)

    monkeypatch.setattr(driver, "driver_connection", Connection)
    service: GameService = app.extensions["coins.games"]
    service.clock = Clock()
    play_every_kind_of_event(client, service.clock)  # seats taken and left, stand-ins, bots, a rematch
    game_id, ana, bo = rated_table(client, target_score=3)
    play_out(client, game_id, {0: ana.auth, 1: bo.auth}, keyed=True)  # a rated result, idempotency keys
    assert len({sql for sql, _, _ in seen}) >= 8, "the games ran the driver's statements"
    wrong = {sql for sql, answered, fetched in seen if answered != fetched}
    assert not wrong, wrong
