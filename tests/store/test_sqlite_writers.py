"""SQLite: the threads of one process take turns to write (Database.writers), the one whose turn it
is tries for the write lock until it is free (begin_immediate), and a turn or a lock held past the
busy timeout is DatabaseUnavailable (503)."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import text

from service.store import Database, DatabaseUnavailable
from service.store.sqlite_connections import begin_immediate

WAIT = 10.0  # seconds a test waits for a thread at most


@contextmanager
def database(path: Path, busy_timeout_ms: int) -> Iterator[Database]:
    opened = Database(f"sqlite:///{path}", busy_timeout_ms=busy_timeout_ms)
    with opened.transaction(write=True) as connection:
        connection.execute(text("CREATE TABLE moves (n INTEGER NOT NULL)"))
    yield opened
    opened.dispose()


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    with database(tmp_path / "writers.sqlite3", busy_timeout_ms=10_000) as opened:
        yield opened


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


def test_a_turn_held_past_the_busy_timeout_is_unavailable_and_reads_go_on(tmp_path: Path) -> None:
    with database(tmp_path / "short.sqlite3", busy_timeout_ms=300) as db:
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


def test_the_writer_whose_turn_it_is_gets_the_lock_another_process_held_once_it_is_free(
    db: Database, tmp_path: Path
) -> None:
    other = sqlite3.connect(
        tmp_path / "writers.sqlite3", isolation_level=None, check_same_thread=False
    )  # as another process
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO moves (n) VALUES (1)")
    threading.Timer(0.1, other.commit).start()  # within the busy timeout (10 s)
    with db.transaction(write=True) as connection:
        connection.execute(text("INSERT INTO moves (n) VALUES (2)"))
    assert count(db) == 2
    other.close()


def test_begin_immediate_gives_up_at_its_deadline_with_sqlite_s_own_error_and_leaves_the_busy_timeout(
    tmp_path: Path,
) -> None:
    path = tmp_path / "locked.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA journal_mode=WAL")
    holder.execute("BEGIN IMMEDIATE")
    waiter = sqlite3.connect(path, isolation_level=None)
    waiter.execute("PRAGMA busy_timeout=1234")
    try:
        with pytest.raises(sqlite3.OperationalError) as refused:
            begin_immediate(waiter, time.monotonic() + 0.05, 1234)
        assert refused.value.sqlite_errorcode == sqlite3.SQLITE_BUSY
        assert waiter.execute("PRAGMA busy_timeout").fetchone() == (1234,)
        holder.rollback()
        begin_immediate(waiter, time.monotonic() + 0.05, 1234)
        assert waiter.in_transaction
    finally:
        waiter.close()
        holder.close()
