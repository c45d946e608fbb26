"""Idempotency keys: a request's writes and its kept response commit together, and a request that
dies with its process leaves neither behind nor its key held (both databases)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from datetime import UTC, datetime

import pytest
from flask import Flask
from sqlalchemy import text

from service.games import IdempotencyKeys, KeyClaim, KeyInUse, KeyReused, SavedResponse
from service.store import Database, IdempotencyStore

SCOPE = "token:test"
FINGERPRINT = "f" * 64
RESPONSE = SavedResponse(201, (("Content-Type", "application/json"),), b'{"ok": true}')


@pytest.fixture
def db(app: Flask) -> Database:
    return app.extensions["coins.db"]  # type: ignore[no-any-return]


@pytest.fixture
def keys(db: Database) -> IdempotencyKeys:
    return IdempotencyKeys(IdempotencyStore(db), hours=24)


def rows(db: Database, table: str) -> int:
    with db.engine.connect() as connection:
        return int(connection.execute(text(f"SELECT count(*) FROM {table}")).scalar_one())


def write_a_counter(db: Database, key: str) -> None:
    """A write of the request (rate_limits is a table with no foreign keys: any row will do)."""
    with db.connect() as connection, db.begin(connection, write=True):
        connection.execute(text("INSERT INTO rate_limits (key, count, expires_at) VALUES (:key, 1, 0)"), {"key": key})


def test_the_response_commits_with_the_request_writes(keys: IdempotencyKeys, db: Database):
    claim = keys.claim(SCOPE, "k1", FINGERPRINT)
    assert isinstance(claim, KeyClaim)
    write_a_counter(db, "a")
    assert rows(db, "rate_limits") == 0  # not yet committed: another connection sees nothing
    keys.complete(claim, RESPONSE)
    assert rows(db, "rate_limits") == 1
    assert keys.claim(SCOPE, "k1", FINGERPRINT) == RESPONSE


def test_a_released_key_undoes_the_request_writes(keys: IdempotencyKeys, db: Database):
    claim = keys.claim(SCOPE, "k1", FINGERPRINT)
    assert isinstance(claim, KeyClaim)
    write_a_counter(db, "a")
    keys.release(claim)
    assert rows(db, "rate_limits") == 0 and rows(db, "idempotency_keys") == 0
    retry = keys.claim(SCOPE, "k1", FINGERPRINT)
    assert isinstance(retry, KeyClaim)  # runs afresh
    keys.release(retry)


def test_a_key_is_held_against_other_threads_until_its_request_ends(keys: IdempotencyKeys):
    claim = keys.claim(SCOPE, "k1", FINGERPRINT)
    assert isinstance(claim, KeyClaim)
    seen: list[BaseException | object] = []

    def retry() -> None:
        try:
            seen.append(keys.claim(SCOPE, "k1", FINGERPRINT))
        except KeyInUse as error:
            seen.append(error)

    thread = threading.Thread(target=retry)
    thread.start()
    thread.join(30)
    assert len(seen) == 1 and isinstance(seen[0], KeyInUse)
    keys.complete(claim, RESPONSE)
    assert keys.claim(SCOPE, "k1", FINGERPRINT) == RESPONSE
    with pytest.raises(KeyReused):
        keys.claim(SCOPE, "k1", "0" * 64)


def test_a_block_that_fails_inside_the_request_undoes_its_own_writes_only(keys: IdempotencyKeys, db: Database):
    claim = keys.claim(SCOPE, "k1", FINGERPRINT)
    assert isinstance(claim, KeyClaim)
    write_a_counter(db, "kept")
    with pytest.raises(RuntimeError), db.connect() as connection, db.begin(connection, write=True):
        connection.execute(text("INSERT INTO rate_limits (key, count, expires_at) VALUES ('undone', 1, 0)"))
        raise RuntimeError("refused")  # as a use case refuses a change it has half written
    keys.complete(claim, RESPONSE)
    with db.engine.connect() as connection:
        assert connection.execute(text("SELECT key FROM rate_limits")).scalars().all() == ["kept"]


def test_what_waits_for_the_commit_runs_after_it_and_never_after_a_rollback(keys: IdempotencyKeys, db: Database):
    told: list[int] = []
    claim = keys.claim(SCOPE, "k1", FINGERPRINT)
    assert isinstance(claim, KeyClaim)
    write_a_counter(db, "a")
    db.after_commit(lambda: told.append(rows(db, "rate_limits")))
    assert told == []
    keys.complete(claim, RESPONSE)
    assert told == [1]  # after the commit, which it saw

    claim = keys.claim(SCOPE, "k2", FINGERPRINT)
    assert isinstance(claim, KeyClaim)
    db.after_commit(lambda: told.append(-1))
    keys.release(claim)
    assert told == [1]
    db.after_commit(lambda: told.append(2))  # outside a held transaction: at once
    assert told == [1, 2]


HOLDER = textwrap.dedent(
    """
    import sys, time
    from datetime import UTC, datetime
    from sqlalchemy import text
    from service.store import Database, IdempotencyStore

    db = Database(sys.argv[1])
    held = IdempotencyStore(db).hold("scope", "key", now=datetime.now(UTC))
    assert held is not None and held.kept is None
    with db.connect() as connection, db.begin(connection, write=True):
        connection.execute(text("INSERT INTO rate_limits (key, count, expires_at) VALUES ('dead', 1, 0)"))
    print("held", flush=True)
    time.sleep(60)  # killed before it keeps anything
    """
)


def test_a_request_killed_with_its_process_leaves_no_write_and_no_held_key(db: Database):
    store = IdempotencyStore(db)
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDER, db.url], stdout=subprocess.PIPE, text=True, env={**os.environ}
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "held"
        assert store.hold("scope", "key", now=datetime.now(UTC)) is None  # another process holds it
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    deadline = time.monotonic() + 10  # at once, not minutes later (PostgreSQL: once the server saw the client go)
    while (held := store.hold("scope", "key", now=datetime.now(UTC))) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert held is not None and held.kept is None
    held.let_go()
    assert rows(db, "rate_limits") == 0
