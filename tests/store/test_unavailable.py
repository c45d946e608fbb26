"""Losing the database connection is DatabaseUnavailable (503), never an unexpected error (500)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from service.config import Settings
from service.store import Database, DatabaseUnavailable


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
