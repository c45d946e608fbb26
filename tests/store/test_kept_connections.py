"""An SQLite file database keeps one connection per thread between requests (no pool checkout)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from sqlalchemy import text

from service.store import Database
from service.store.driver import driver_connection


@pytest.fixture
def db(tmp_path: Path):
    database = Database(f"sqlite:///{tmp_path / 'kept.db'}")
    yield database
    database.dispose()


def test_a_thread_uses_the_same_connection_each_time(db):
    with db.connect() as first:
        pass
    with db.connect() as second:
        assert second is first and not second.closed


def test_a_nested_use_gets_another_connection(db):
    with db.connect() as outer, db.connect() as inner:
        assert inner is not outer
    with db.connect() as again:
        assert again is outer  # the kept one is free again


def test_threads_keep_their_own(db):
    seen: list[object] = []

    def use() -> None:
        with db.connect() as connection:
            seen.append(connection)

    threads = [threading.Thread(target=use) for _ in range(20)]  # more threads than a default pool holds
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(seen) == 20 and len({id(connection) for connection in seen}) == 20


def test_a_transaction_left_open_is_rolled_back_when_given_back(db):
    with db.transaction(write=True) as connection:
        connection.execute(text("CREATE TABLE t (n INTEGER)"))
    with db.connect() as connection:
        driver_connection(connection).execute("BEGIN IMMEDIATE")
        driver_connection(connection).execute("INSERT INTO t VALUES (1)")
    with db.connect() as connection:
        assert not driver_connection(connection).in_transaction
        assert connection.execute(text("SELECT count(*) FROM t")).scalar_one() == 0
    with db.transaction(write=True) as other:  # and the write lock was let go
        other.execute(text("INSERT INTO t VALUES (2)"))


def test_dispose_closes_them_and_the_next_use_opens_one(db):
    with db.connect() as before:
        pass
    db.dispose()
    assert before.closed
    with db.connect() as after:
        assert after is not before and after.execute(text("SELECT 1")).scalar_one() == 1


def test_after_a_fork_the_child_opens_its_own(db, monkeypatch):
    with db.connect() as parent:
        pass
    monkeypatch.setattr(os, "getpid", lambda: -1)  # as the child sees it
    with db.connect() as child:
        assert child is not parent


def test_an_invalidated_connection_is_dropped_not_hoarded(db):
    for _ in range(5):
        with db.connect() as connection:
            connection.invalidate()  # as after the database was found gone
    assert db._kept is not None and len(db._kept._every) == 0
    with db.connect() as connection:
        assert connection.execute(text("SELECT 1")).scalar_one() == 1
    assert len(db._kept._every) == 1
