"""Statements sent to the driver (service.store.driver) store and read values exactly as
SQLAlchemy does: a row written one way reads back the same the other way, on SQLite (text
timestamps, JSON text, 0/1 booleans) and on PostgreSQL. Driver errors that mean the database
is gone still become DatabaseUnavailable."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import insert, select

from service.store import Database, DatabaseUnavailable, StoredGame, StoredSeat
from service.store.repository import GAMES, SEATS, GameRepository
from service.store.stored import GAME_COLUMNS

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


def test_written_through_the_driver_read_through_sqlalchemy(db):
    with db.transaction(write=True) as connection:
        assert GameRepository(connection).save(_record("g1"))
    with db.transaction(write=False) as connection:
        game = connection.execute(select(GAMES).where(GAMES.c.id == "g1")).one()._asdict()
        seats = [row._asdict() for row in connection.execute(select(SEATS).order_by(SEATS.c.seat))]
    expected = _fields(_record("g1"))
    assert {key: game[key] for key in game} == {key: expected[key] for key in game}
    assert game["turn_deadline"].tzinfo is not None and game["auto_deal"] is True
    assert [seat.pop("game_id") for seat in seats] == ["g1"] * 3
    assert seats == [_seat(seat) for seat in _record("g1").seats]


def _seat(seat: StoredSeat) -> dict[str, object]:
    return {name: getattr(seat, name) for name in StoredSeat.__dataclass_fields__}


def test_written_through_sqlalchemy_read_through_the_driver(db):
    record = _record("g2")
    with db.transaction(write=True) as connection:
        connection.execute(insert(GAMES), [{k: v for k, v in _fields(record).items() if k in GAMES.c}])
        connection.execute(insert(SEATS), [{"game_id": "g2", **_seat(seat)} for seat in record.seats])
    with db.transaction(write=False) as connection:
        loaded = GameRepository(connection).get("g2")
        locked = GameRepository(connection).get("g2", lock=True)
    record.loaded_version = record.version
    assert loaded is not None and _fields(loaded) == _fields(record)
    assert locked is not None and _fields(locked) == _fields(record)


def test_a_save_reads_back_what_it_wrote(db):
    record = _record("g3")
    with db.transaction(write=True) as connection:
        GameRepository(connection).save(record)
    record.version += 1
    record.status = "finished"
    record.state = {**STATE, "more": "x" * 5000}  # larger than a page
    record.turn_deadline = None
    record.updated_at = WHEN + timedelta(hours=1)
    record.seats[2].name, record.seats[2].joined_at = "Cy", WHEN
    record.changed_seats.add(2)
    with db.connect() as connection:
        repo = GameRepository(connection)
        with db.begin(connection, write=True, one_statement=repo.saves_in_one_statement):
            assert repo.save(record)
    with db.transaction(write=False) as connection:
        loaded = GameRepository(connection).get("g3")
    assert loaded is not None and _fields(loaded) == _fields(record)


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
