"""SQLite: the threads of one process take turns to write (Database.writers), and a turn held past
the busy timeout is DatabaseUnavailable (503), as SQLite's own lock held that long is."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from service.store import Database, DatabaseUnavailable

WAIT = 10.0  # seconds a test waits for a thread at most


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = Database(f"sqlite:///{tmp_path / 'writers.sqlite3'}", busy_timeout_ms=300)
    with database.transaction(write=True) as connection:
        connection.execute(text("CREATE TABLE moves (n INTEGER NOT NULL)"))
    yield database
    database.dispose()


def count(db: Database) -> int:
    with db.transaction(write=False) as connection:
        return int(connection.execute(text("SELECT count(*) FROM moves")).scalar_one())


def hold_a_write(db: Database, began: threading.Event, end: threading.Event) -> threading.Thread:
    """A thread that writes a row, then holds its transaction (and the turn) until ``end``."""

    def write() -> None:
        with db.transaction(write=True) as connection:
            connection.execute(text("INSERT INTO moves (n) VALUES (1)"))
            began.set()
            end.wait(WAIT)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    assert began.wait(WAIT)
    return thread


def test_a_writer_waits_for_the_turn_and_writes_after_the_one_before_it(db: Database) -> None:
    began, end = threading.Event(), threading.Event()
    holder = hold_a_write(db, began, end)
    assert db.writers.locked()
    wrote = threading.Event()

    def write_next() -> None:
        with db.transaction(write=True) as connection:
            connection.execute(text("INSERT INTO moves (n) VALUES (2)"))
        wrote.set()

    waiting = threading.Thread(target=write_next, daemon=True)
    waiting.start()
    assert not wrote.wait(0.1), "it wrote while another thread held the turn"
    end.set()
    holder.join(WAIT)
    waiting.join(WAIT)
    assert wrote.is_set() and count(db) == 2
    assert not db.writers.locked()


def test_a_turn_held_past_the_busy_timeout_is_unavailable_and_reads_go_on(db: Database) -> None:
    began, end = threading.Event(), threading.Event()
    holder = hold_a_write(db, began, end)
    try:
        with pytest.raises(DatabaseUnavailable), db.transaction(write=True) as connection:
            connection.execute(text("INSERT INTO moves (n) VALUES (2)"))
        assert count(db) == 0  # a read waits for no turn (and sees nothing uncommitted)
    finally:
        end.set()
        holder.join(WAIT)
    assert count(db) == 1


def test_a_transaction_that_fails_gives_its_turn_back(db: Database) -> None:
    with pytest.raises(ZeroDivisionError), db.transaction(write=True) as connection:
        connection.execute(text("INSERT INTO moves (n) VALUES (1)"))
        raise ZeroDivisionError
    assert not db.writers.locked()
    with db.transaction(write=True) as connection:
        connection.execute(text("INSERT INTO moves (n) VALUES (2)"))
    assert count(db) == 1  # the failed one was rolled back
