"""Idempotency keys in the database: claim a key, keep the first response, release a failed one.

A claim inserts the row in the state ``running`` (unique on scope and key), so a concurrent
request with the same key, on any worker or instance, finds it and is told so. The row is taken
over instead when it has expired, or when it has been ``running`` past ``stale_before`` (its
request died with its worker). What the columns hold is the caller's business
(:mod:`service.games.idempotency`): hashes, and a sealed response.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Table, and_, delete, or_, select, tuple_, update
from sqlalchemy.dialects import postgresql, sqlite

from .db import Database
from .models import IdempotencyKeyRow

__all__ = ["IdempotencyStore", "KeptResponse"]

KEYS = cast(Table, IdempotencyKeyRow.__table__)
RUNNING = "running"
DONE = "done"


@dataclass(frozen=True, slots=True)
class KeptResponse:
    """A key's row as stored: its request's fingerprint, and its response once it has one."""

    fingerprint: str
    running: bool
    status: int | None
    response: bytes | None


class IdempotencyStore:
    """The table ``idempotency_keys`` of one database, shared by every process that uses it."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._insert: Any = sqlite.insert if db.is_sqlite else postgresql.insert

    def claim(
        self, scope: str, key: str, fingerprint: str, *, now: datetime, expires_at: datetime, stale_before: datetime
    ) -> KeptResponse | None:
        """None when this request now holds the key (a new row in the state ``running``); otherwise
        the row another request holds or completed. Two statements in one write transaction."""
        statement = self._insert(KEYS).values(
            scope=scope,
            key=key,
            fingerprint=fingerprint,
            state=RUNNING,
            status=None,
            response=None,
            created_at=now,
            expires_at=expires_at,
        )
        excluded = statement.excluded
        statement = statement.on_conflict_do_update(
            index_elements=[KEYS.c.scope, KEYS.c.key],
            set_={
                "fingerprint": excluded.fingerprint,
                "state": excluded.state,
                "status": None,
                "response": None,
                "created_at": excluded.created_at,
                "expires_at": excluded.expires_at,
            },
            where=or_(KEYS.c.expires_at <= now, and_(KEYS.c.state == RUNNING, KEYS.c.created_at <= stale_before)),
        ).returning(KEYS.c.scope)
        found = select(KEYS.c.fingerprint, KEYS.c.state, KEYS.c.status, KEYS.c.response).where(
            KEYS.c.scope == scope, KEYS.c.key == key
        )
        with self._db.connect() as connection, self._db.begin(connection, write=True):
            if connection.execute(statement).first() is not None:
                return None
            row = connection.execute(found).first()
        if row is None:  # released between the two statements (PostgreSQL): as good as running
            return KeptResponse(fingerprint, True, None, None)
        return KeptResponse(row.fingerprint, row.state == RUNNING, row.status, row.response)

    def complete(self, scope: str, key: str, status: int, response: bytes) -> None:
        """Keep the response of the request that holds the key."""
        statement = (
            update(KEYS)
            .where(KEYS.c.scope == scope, KEYS.c.key == key, KEYS.c.state == RUNNING)
            .values(state=DONE, status=status, response=response)
        )
        with self._statement() as connection:
            connection.execute(statement)

    def release(self, scope: str, key: str) -> None:
        """Give up a key whose request failed: a retry runs afresh."""
        statement = delete(KEYS).where(KEYS.c.scope == scope, KEYS.c.key == key, KEYS.c.state == RUNNING)
        with self._statement() as connection:
            connection.execute(statement)

    def purge(self, now: datetime, *, limit: int) -> int:
        """Delete up to ``limit`` expired keys; the number deleted."""
        expired = select(KEYS.c.scope, KEYS.c.key).where(KEYS.c.expires_at <= now).limit(limit)
        statement = delete(KEYS).where(tuple_(KEYS.c.scope, KEYS.c.key).in_(expired))
        with self._statement() as connection:
            return connection.execute(statement).rowcount

    @contextmanager
    def _statement(self) -> Iterator[Connection]:
        with self._db.connect() as connection, self._db.begin(connection, write=True, one_statement=True):
            yield connection
