"""The store's fast paths (statements sent to the driver's cursor by service.store.driver, and the
save in one statement of CTEs on PostgreSQL) against their slow twin, SQLAlchemy's own statements:
one generic test over every shape of stored game (text timestamps, JSON text, 0/1 booleans on
SQLite; PostgreSQL's types). Driver errors that mean the database is gone still become
DatabaseUnavailable."""

from __future__ import annotations

import sqlite3
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from service.store import Database, DatabaseUnavailable, StoredGame, StoredSeat
from service.store.repository import ACTIONS, EVENTS, GAMES, SEATS, TRICKS, GameRepository
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


texts = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=12)
moments = st.datetimes(datetime(2000, 1, 1), datetime(2100, 1, 1), timezones=st.just(UTC))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**31), 2**31) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=12,
)
small = st.integers(0, 120)
states = st.none() | st.dictionaries(texts, json_values, max_size=4)  # the engine's snapshot, or none yet


@st.composite
def _seats(draw: st.DrawFn) -> list[StoredSeat]:
    def seat(number: int) -> StoredSeat:
        token = draw(st.none() | st.text("0123456789abcdef", min_size=64, max_size=64))
        bot = draw(st.none() | st.sampled_from(["random", "basic", "expert"]))
        return StoredSeat(
            number, draw(st.none() | texts), draw(st.none() | small), token, bot, draw(st.none() | moments)
        )

    return [seat(number) for number in range(3)]


@st.composite
def _game(draw: st.DrawFn, game_id: str) -> StoredGame:
    return StoredGame(
        id=game_id, version=draw(st.integers(1, 10**6)), status=draw(st.sampled_from(["waiting_for_players", "playing"])),
        target_score=draw(st.integers(1, 1000)), auto_deal=draw(st.booleans()), seed=draw(st.none() | texts),
        requested_first_dealer=draw(st.none() | st.integers(0, 2)), turn_timeout_seconds=draw(st.none() | small),
        turn_deadline=draw(st.none() | moments), open_seats=draw(st.integers(0, 3)), trick_count=0, action_count=0,
        event_count=0, state=draw(states),
        created_at=draw(moments), updated_at=draw(moments), rematch_of=draw(st.none() | texts), seats=draw(_seats()),
    )  # fmt: skip


@st.composite
def _change(draw: st.DrawFn, game: StoredGame) -> None:
    """A change as a use case makes one: new values, some seats changed, rows queued."""
    game.version += 1
    game.status = draw(st.sampled_from(["playing", "waiting_for_deal", "finished"]))
    game.turn_deadline, game.state, game.updated_at = draw(st.none() | moments), draw(states), draw(moments)
    game.open_seats, game.rematch = draw(st.integers(0, 3)), draw(st.none() | texts)
    for number in draw(st.sets(st.integers(0, 2))):
        game.seats[number] = draw(_seats())[number]
        game.changed_seats.add(number)
    kinds = st.sampled_from(["deal", "play"])
    causes = st.sampled_from(["player", "bot", "auto", "timeout"])
    for _ in range(draw(st.integers(0, 3))):
        game.action_count += 1
        card, seed = draw(st.none() | texts), draw(st.none() | texts)
        action = StoredAction(
            game.action_count, draw(kinds), draw(st.integers(0, 2)), 1, draw(causes), draw(moments), card, seed
        )
        game.new_actions.append(action)
    for _ in range(draw(st.integers(0, 2))):
        game.trick_count += 1
        plays = [[seat, draw(texts)] for seat in range(3)]
        game.new_tricks.append(
            StoredTrick(game.trick_count, 1, game.trick_count, 0, plays, 1, draw(small), draw(moments))
        )
    for _ in range(draw(st.integers(0, 2))):
        game.event_count += 1
        event = StoredEvent(
            game.event_count, draw(texts), game.version, draw(st.none() | st.integers(0, 2)), draw(texts), draw(moments)
        )
        game.new_events.append(event)  # fmt: skip


def _through_sqlalchemy(connection: Any, game_id: str) -> dict[str, Any]:
    """The game's rows as SQLAlchemy reads them (the slow twin of the driver's statements)."""

    def rows(table: Any, names: tuple[str, ...], order: Any) -> list[tuple[Any, ...]]:
        query = select(*(table.c[name] for name in names)).where(table.c.game_id == game_id).order_by(order)
        return [tuple(row) for row in connection.execute(query)]

    game = connection.execute(select(*(GAMES.c[name] for name in GAME_COLUMNS)).where(GAMES.c.id == game_id)).one()
    return {
        "game": tuple(game),
        "seats": rows(SEATS, SEAT_COLUMNS, SEATS.c.seat),
        "actions": rows(ACTIONS, ACTION_COLUMNS, ACTIONS.c.seq),
        "tricks": rows(TRICKS, TRICK_COLUMNS, TRICKS.c.number),
        "events": rows(EVENTS, EVENT_COLUMNS, EVENTS.c.id),
    }


def _expected(game: StoredGame, saved: list[Any]) -> dict[str, Any]:
    def values(row: Any, names: tuple[str, ...]) -> tuple[Any, ...]:
        return tuple(getattr(row, name) for name in names)

    return {
        "game": values(game, GAME_COLUMNS),
        "seats": [values(seat, SEAT_COLUMNS) for seat in game.seats],
        "actions": [values(row, ACTION_COLUMNS) for row in saved if isinstance(row, StoredAction)],
        "tricks": [values(row, TRICK_COLUMNS) for row in saved if isinstance(row, StoredTrick)],
        "events": [values(row, EVENT_COLUMNS) for row in saved if isinstance(row, StoredEvent)],
    }


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_shape_of_game_saved_by_the_driver_reads_back_the_same_through_sqlalchemy(db, data):
    """The fast paths of the store against their slow twin: a game inserted, then changed and saved
    (through the driver's cursor; on PostgreSQL in one statement of CTEs), reads back through
    SQLAlchemy's own statements and through the driver's exactly as it was written."""
    game = data.draw(_game(f"g-{uuid.uuid4().hex[:12]}"))
    saved: list[Any] = []
    for step in range(2):  # the insert, then a change saved as an update
        if step:
            data.draw(_change(game))
        saved += [*game.new_actions, *game.new_tricks, *game.new_events]
        with db.connect() as connection:
            repository = GameRepository(connection)
            with db.begin(connection, write=True, one_statement=game.is_stored and repository.saves_in_one_statement):
                assert repository.save(game)
        with db.transaction(write=False) as connection:
            assert _through_sqlalchemy(connection, game.id) == _expected(game, saved)
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
