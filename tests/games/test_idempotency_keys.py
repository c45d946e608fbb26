"""Idempotency keys through a database outage: a completion or release it refuses is owed, and written once it is back."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask

from service.games import IdempotencyKeys, KeyClaim, SavedResponse, idempotency
from service.games.idempotency import PAY_EVERY_SECONDS, KeyInUse
from service.store import IdempotencyStore

SCOPE = "token:test"
FINGERPRINT = "f" * 64
RESPONSE = SavedResponse(201, (("Content-Type", "application/json"),), b'{"ok": true}')


class Outage(Exception):
    """The database is down."""


class FlakyStore:
    """A real store that refuses every call while ``down``."""

    def __init__(self, store: IdempotencyStore) -> None:
        self.store = store
        self.down = False

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.store, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            if self.down:
                raise Outage
            return method(*args, **kwargs)

        return call


@pytest.fixture
def flaky(app: Flask) -> FlakyStore:
    return FlakyStore(IdempotencyStore(app.extensions["coins.db"]))


@pytest.fixture
def keys(flaky: FlakyStore) -> IdempotencyKeys:
    return IdempotencyKeys(flaky, hours=24)  # type: ignore[arg-type]


def test_a_release_the_database_refused_frees_the_key_at_the_next_claim(keys: IdempotencyKeys, flaky: FlakyStore):
    claim = keys.claim(SCOPE, "k1", FINGERPRINT)
    assert isinstance(claim, KeyClaim)
    flaky.down = True  # the request fails with the database (503): its key is released, or owed
    keys.release(claim)
    flaky.down = False
    assert isinstance(keys.claim(SCOPE, "k1", FINGERPRINT), KeyClaim)  # the retry runs afresh


def test_a_completion_the_database_refused_is_replayed_after_it(keys: IdempotencyKeys, flaky: FlakyStore):
    claim = keys.claim(SCOPE, "k1", FINGERPRINT)
    assert isinstance(claim, KeyClaim)
    flaky.down = True  # applied, then the database went away before the response was kept
    keys.complete(claim, RESPONSE)
    flaky.down = False
    assert keys.claim(SCOPE, "k1", FINGERPRINT) == RESPONSE


def test_owed_writes_wait_while_the_database_stays_down(keys: IdempotencyKeys, flaky: FlakyStore):
    first, second = keys.claim(SCOPE, "k1", FINGERPRINT), keys.claim(SCOPE, "k2", FINGERPRINT)
    assert isinstance(first, KeyClaim) and isinstance(second, KeyClaim)
    flaky.down = True
    keys.complete(first, RESPONSE)
    keys.release(second)
    with pytest.raises(Outage):  # the claim itself fails too: the request answers 503
        keys.claim(SCOPE, "k3", FINGERPRINT)
    flaky.down = False
    assert keys.claim(SCOPE, "k1", FINGERPRINT) == RESPONSE
    assert isinstance(keys.claim(SCOPE, "k2", FINGERPRINT), KeyClaim)


def test_owed_writes_are_paid_without_a_claim_once_the_database_is_back(keys: IdempotencyKeys, flaky: FlakyStore):
    claim = keys.claim(SCOPE, "k1", FINGERPRINT)
    assert isinstance(claim, KeyClaim)
    flaky.down = True
    keys.release(claim)
    flaky.down = False
    deadline = time.monotonic() + 10 * PAY_EVERY_SECONDS
    while keys.owes and time.monotonic() < deadline:  # bounded: the process's own retries
        time.sleep(0.05)
    assert not keys.owes
    now = datetime.now(UTC)
    taken = flaky.store.claim(  # by another process, at once: the key is free
        claim.scope,
        claim.key,
        FINGERPRINT,
        now=now,
        expires_at=now + timedelta(days=1),
        stale_before=now - timedelta(days=1),
    )
    assert taken is None


def test_what_is_owed_past_the_stale_time_is_dropped(keys: IdempotencyKeys, flaky: FlakyStore, monkeypatch):
    claim = keys.claim(SCOPE, "k1", FINGERPRINT)
    assert isinstance(claim, KeyClaim)
    flaky.down = True
    keys.release(claim)
    monkeypatch.setattr(idempotency, "STALE_SECONDS", 0)  # by now a retry would take the key over
    flaky.down = False
    assert isinstance(keys.claim(SCOPE, "k2", FINGERPRINT), KeyClaim)
    assert not keys.owes
    monkeypatch.undo()
    with pytest.raises(KeyInUse):  # not released: a retry takes the stale key over instead
        keys.claim(SCOPE, "k1", FINGERPRINT)


def test_a_key_whose_request_never_finished_stays_in_use(keys: IdempotencyKeys):
    """A request that died with its worker finishes nothing: its key is in use until it goes stale."""
    assert isinstance(keys.claim(SCOPE, "k1", FINGERPRINT), KeyClaim)
    with pytest.raises(KeyInUse):
        keys.claim(SCOPE, "k1", FINGERPRINT)
