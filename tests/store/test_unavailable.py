"""Losing the database connection is DatabaseUnavailable (503), never an unexpected error (500)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from flask import Flask
from sqlalchemy import create_engine, text

from service.config import Settings
from service.store import Database, DatabaseUnavailable
from service.store.db import _is_unavailable


@pytest.fixture
def postgres(database_url: str) -> Iterator[Database]:
    if not database_url.startswith("postgresql"):
        pytest.skip("needs PostgreSQL (TEST_DATABASE_URL)")
    db = Database(Settings(database_url=database_url).sqlalchemy_url, pool_size=2)
    yield db
    db.dispose()


def terminate(backend_pid: int, database_url: str) -> None:
    """Kill one server process, as an administrator, a failover or an idle-connection reaper would."""
    admin = create_engine(Settings(database_url=database_url).sqlalchemy_url)
    with admin.begin() as connection:
        assert connection.scalar(text("SELECT pg_terminate_backend(:pid)"), {"pid": backend_pid})
    admin.dispose()


def test_a_connection_killed_in_a_transaction_is_unavailable(postgres: Database, database_url: str) -> None:
    with pytest.raises(DatabaseUnavailable), postgres.transaction(write=False) as connection:
        pid = connection.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
        terminate(pid, database_url)
        connection.exec_driver_sql("SELECT 1")
    postgres.ping()  # the dead connection left the pool: the next transaction gets a new one


def test_a_connection_killed_in_the_pool_is_replaced(postgres: Database, database_url: str) -> None:
    with postgres.transaction(write=False) as connection:
        pid = connection.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
    terminate(pid, database_url)  # the connection now idles in the pool, dead
    with postgres.transaction(write=False) as connection:  # pre-ping notices and reconnects
        assert connection.exec_driver_sql("SELECT pg_backend_pid()").scalar_one() != pid


def test_a_refused_connection_is_unavailable() -> None:
    db = Database("postgresql+psycopg://nobody@127.0.0.1:9/none")  # port 9 (discard): nothing listens
    try:
        with pytest.raises(DatabaseUnavailable):
            db.ping()
    finally:
        db.dispose()


def test_a_bad_query_is_not_unavailable(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'coins.sqlite3'}")
    try:
        with pytest.raises(Exception) as raised, db.transaction(write=False) as connection:
            connection.exec_driver_sql("SELECT no_such_column_with_timeout_in_its_name FROM nowhere")
        assert not isinstance(raised.value, DatabaseUnavailable)
    finally:
        db.dispose()


# How an error is classified: by its class and SQLSTATE, never by the words in its message.
_sqlite_cantopen = sqlite3.OperationalError("unable to open database file")
_sqlite_cantopen.sqlite_errorcode = sqlite3.SQLITE_CANTOPEN  # type: ignore[attr-defined]
_sqlite_busy = sqlite3.OperationalError("database is locked")  # the write lock held past the busy timeout
_sqlite_busy.sqlite_errorcode = sqlite3.SQLITE_BUSY  # type: ignore[attr-defined]
_sqlite_bug = sqlite3.OperationalError("no such table: connection_lost")
_sqlite_bug.sqlite_errorcode = sqlite3.SQLITE_ERROR  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("error", "unavailable"),
    [
        (psycopg.OperationalError("connection refused"), True),  # a failure to connect: no SQLSTATE
        (psycopg.InterfaceError("the connection is closed"), True),
        (psycopg.errors.lookup("08006")("server closed the connection"), True),  # connection failure
        (psycopg.errors.lookup("57P01")("terminating connection"), True),  # admin shutdown
        (psycopg.errors.lookup("53300")("too many clients"), True),
        (psycopg.errors.lookup("42P01")('relation "connection_lost" does not exist'), False),  # a bug
        (psycopg.errors.lookup("23505")('duplicate key "connection_pkey"'), False),
        (psycopg.ProgrammingError("query has no connection parameter"), False),
        (_sqlite_cantopen, True),
        (_sqlite_busy, True),  # overload, as PostgreSQL's statement timeout (57014): 503, retry
        (_sqlite_bug, False),
        (sqlite3.IntegrityError("UNIQUE constraint failed: connection.id"), False),
    ],
    ids=repr,
)
def test_unavailable_is_decided_by_class_and_sqlstate(error: Exception, unavailable: bool) -> None:
    assert _is_unavailable(error, None) is unavailable


def test_a_bug_that_mentions_connection_is_not_an_outage(app: Flask) -> None:
    """On either database: a statement that fails with "connection" in its message is still a bug."""
    db: Database = app.extensions["coins.db"]
    with pytest.raises(Exception) as raised, db.transaction(write=False) as connection:
        connection.exec_driver_sql("SELECT * FROM connection_lost_table")
    assert not isinstance(raised.value, DatabaseUnavailable)
    db.ping()
