"""SQLite's side of the database handle (:mod:`.db`): connection set-up, and transactions begun on the driver itself."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from typing import Any

from sqlalchemy import Connection, Engine, event

from .driver import driver_connection

__all__ = ["TRY_EVERY_SECONDS", "begin_immediate", "configure_sqlite", "sqlite_transaction"]

TRY_EVERY_SECONDS = 0.0005  # a writer's next try for the write lock while another process holds it


def sqlite_transaction(connection: Connection, mode: str | None) -> Iterator[Connection]:
    """SQLite's ``BEGIN <mode>`` (none when ``mode`` is None) and ``COMMIT`` or ``ROLLBACK``, sent
    straight to the driver: through SQLAlchemy they cost some 0.1 ms more per transaction.
    Statements run through SQLAlchemy inside join the transaction (its own begin finds the driver
    already in one and sends nothing; see ``on_begin``), and its commit or rollback ends it."""
    driver = driver_connection(connection)
    if mode is not None:
        driver.execute(f"BEGIN {mode}")
    try:
        yield connection
    except BaseException:
        if connection.in_transaction():
            connection.rollback()
        elif driver.in_transaction:
            driver.rollback()
        raise
    if connection.in_transaction():
        connection.commit()
    elif driver.in_transaction:
        driver.commit()


def begin_immediate(driver: sqlite3.Connection, deadline: float, busy_timeout_ms: int) -> None:
    """``BEGIN IMMEDIATE`` on ``driver``, tried again every :data:`TRY_EVERY_SECONDS` while another
    process holds the write lock, until ``deadline`` (a :func:`time.monotonic` time; then SQLite's own
    "database is locked"). SQLite's busy handler (``PRAGMA busy_timeout``, off meanwhile) sleeps
    between its tries, up to 100 ms at a time, and the lock it waits for is mostly free meanwhile:
    under load its waits, not the lock, bounded the writes (see :mod:`.db`)."""
    driver.execute("PRAGMA busy_timeout=0")
    try:
        while True:
            try:
                driver.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as error:
                if error.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY or time.monotonic() >= deadline:
                    raise
            time.sleep(TRY_EVERY_SECONDS)
    finally:
        driver.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")


def configure_sqlite(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves, below
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        _switch_to_wal(cursor, busy_timeout_ms)
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def on_begin(connection: Any) -> None:
        # SQLAlchemy begins on its first statement: inside Database.begin the driver already is
        # in a transaction; elsewhere (a bare Connection) this one begins here
        driver = driver_connection(connection)
        if not driver.in_transaction:
            driver.execute("BEGIN")


def _switch_to_wal(cursor: Any, busy_timeout_ms: int) -> None:
    """``PRAGMA journal_mode=WAL``, retried while locked: when several processes open a new
    database at once (gunicorn workers), SQLite may refuse the switch with "database is locked"
    at once, without waiting the busy timeout (it would deadlock otherwise)."""
    deadline = time.monotonic() + busy_timeout_ms / 1000
    delay = 0.005
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() >= deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.1)
