"""Idempotency keys in the database: a key's request and the response kept for it commit together.

A request that brings a key holds it (:meth:`IdempotencyStore.hold`) before its first write, in a
write transaction (:class:`.WriteTransaction`) begun on the session of the request's unit of work,
which does everything else inside: its change to a game, and at the end the key's row with the
response. Both commit, or neither does: a request that dies with its worker (a crash, a SIGKILL)
leaves nothing behind, and its retry runs afresh; a retry that finds the row finds the change too.
A key's row exists only once its first request has finished.

While a request holds a key, another with the same key:

- PostgreSQL: is told so at once, without waiting for it: an advisory lock of the transaction
  (``pg_try_advisory_xact_lock``) numbered by the key's hash; the server lets go of it when the
  transaction ends, or its connection does.
- SQLite: waits for it. Its write transaction holds SQLite's one write lock from the claim to the
  end, so the retry's claim waits for the write lock, then finds the first request's response (or,
  if the first one rolled back, nothing, and goes on).

What the columns hold is the caller's business (:mod:`service.work.idempotency`): hashes, and a
sealed response.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Integer, Table, bindparam, delete, func, select, tuple_
from sqlalchemy.dialects import postgresql, sqlite

from .db import Database, WriteTransaction
from .driver import Prepared
from .models import IdempotencyKeyRow
from .session import GameStore, StoreSession

__all__ = ["HeldKey", "IdempotencyStore", "KeptResponse", "purge_keys"]

KEYS = cast(Table, IdempotencyKeyRow.__table__)

# Run on the driver's cursor (.driver): SQLAlchemy's building and execution of each cost more
# than the statement itself, some 1 ms of CPU in every keyed request.
_LOCKING = Prepared(
    select(func.pg_try_advisory_xact_lock(bindparam("high", type_=Integer), bindparam("low", type_=Integer)))
)
_FINDING = Prepared(
    select(KEYS.c.fingerprint, KEYS.c.status, KEYS.c.response).where(
        KEYS.c.scope == bindparam("scope"),
        KEYS.c.key == bindparam("key"),
        KEYS.c.expires_at > bindparam("now", type_=KEYS.c.expires_at.type),
    )
)


@dataclass(frozen=True, slots=True)
class KeptResponse:
    """A key's row: its first request's fingerprint and response."""

    fingerprint: str
    status: int
    response: bytes


class IdempotencyStore:
    """The table ``idempotency_keys`` of one database, shared by every process that uses it."""

    def __init__(self, store: GameStore) -> None:
        db = store.db
        self._db = db
        insert: Any = (sqlite.insert if db.is_sqlite else postgresql.insert)(KEYS)
        row = {name: bindparam(name, type_=column.type) for name, column in KEYS.c.items()}
        kept = ("fingerprint", "status", "response", "created_at", "expires_at")
        self._keeping = Prepared(  # over an expired row, if one is left
            insert.values(row).on_conflict_do_update(
                index_elements=[KEYS.c.scope, KEYS.c.key], set_={name: insert.excluded[name] for name in kept}
            )
        )

    def hold(self, scope: str, key: str, *, now: datetime, session: StoreSession) -> HeldKey | None:
        """Hold the key for a request, in a write transaction begun on ``session``
        (:meth:`.StoreSession.begin_writing`) for everything the request writes from now on; None
        while another request holds it. End it with :meth:`HeldKey.keep` or :meth:`HeldKey.let_go`,
        then :meth:`HeldKey.close` it."""
        number = _number(scope, key)
        transaction = session.begin_writing()
        held = HeldKey(self, scope, key, number, transaction)
        try:
            if not self._lock(transaction, number):
                held.close()
                return None
            held.kept = self._kept(transaction, scope, key, now)
        except BaseException:
            held.close()
            raise
        return held

    def find(self, scope: str, key: str, *, now: datetime) -> KeptResponse | None:
        """The key's row, unless it has expired, read without holding the key (one statement on a
        connection of its own)."""
        with self._db.connect() as connection, self._db.begin(connection, write=False, one_statement=True):
            return _found(connection, scope, key, now)

    def _lock(self, transaction: WriteTransaction, number: int) -> bool:
        """On PostgreSQL, take the key's advisory lock unless another transaction holds it."""
        if self._db.is_sqlite:
            return True  # the write transaction holds SQLite's write lock: no other request gets here
        high, low = divmod(number, 1 << 32)
        with self._db.within(transaction.connection, savepoint=False) as connection:
            return bool(_LOCKING.run(connection, {"high": _int32(high), "low": _int32(low)}).rows[0][0])

    def _kept(self, transaction: WriteTransaction, scope: str, key: str, now: datetime) -> KeptResponse | None:
        """The key's row, unless it has expired."""
        with self._db.within(transaction.connection, savepoint=False) as connection:
            return _found(connection, scope, key, now)

    def _keep(
        self, held: HeldKey, fingerprint: str, status: int, response: bytes, now: datetime, expires: datetime
    ) -> None:
        row = {"scope": held.scope, "key": held.key, "fingerprint": fingerprint, "status": status}
        row.update(response=response, created_at=now, expires_at=expires)
        try:
            with self._db.within(held.transaction.connection, savepoint=False) as connection:
                self._keeping.run(connection, row)
            held.transaction.commit()
        except BaseException:
            held.transaction.rollback()
            raise

    def _close(self, held: HeldKey) -> None:
        held.transaction.close()

    def purge(self, now: datetime, *, limit: int) -> int:
        """Delete up to ``limit`` expired keys; the number deleted."""
        return purge_keys(self._db, now, limit=limit)


def purge_keys(db: Database, now: datetime, *, limit: int) -> int:
    """Delete up to ``limit`` keys of ``db`` expired at ``now``; the number deleted."""
    expired = select(KEYS.c.scope, KEYS.c.key).where(KEYS.c.expires_at <= now).limit(limit)
    statement = delete(KEYS).where(tuple_(KEYS.c.scope, KEYS.c.key).in_(expired))
    with db.connect() as connection, db.begin(connection, write=True, one_statement=True):
        return connection.execute(statement).rowcount


class HeldKey:
    """A key a request holds (:meth:`IdempotencyStore.hold`), with the first response if its first
    request finished (:attr:`kept`), and the write transaction the request runs in."""

    def __init__(
        self,
        store: IdempotencyStore,
        scope: str,
        key: str,
        number: int,
        transaction: WriteTransaction,
    ) -> None:
        self._store = store
        self.scope, self.key, self.number = scope, key, number
        self.transaction = transaction
        self.kept: KeptResponse | None = None

    def keep(self, fingerprint: str, status: int, response: bytes, *, now: datetime, expires_at: datetime) -> None:
        """Store the response and commit it with everything the request wrote. Raises
        :class:`.DatabaseUnavailable` if the commit fails: then nothing is written."""
        self._store._keep(self, fingerprint, status, response, now, expires_at)

    def let_go(self) -> None:
        """Roll back everything the request wrote: a retry runs afresh."""
        self.transaction.rollback()

    def close(self) -> None:
        """Roll back unless kept, and let go of the key."""
        self._store._close(self)


def _found(connection: Connection, scope: str, key: str, now: datetime) -> KeptResponse | None:
    """The key's row on ``connection``, unless it has expired (one statement)."""
    found = _FINDING.run(connection, {"scope": scope, "key": key, "now": now})
    return KeptResponse(*found.row(0)) if found.rows else None


def _number(scope: str, key: str) -> int:
    """A 56-bit number for the key: its PostgreSQL advisory lock."""
    return int.from_bytes(hashlib.sha256(f"{scope}\0{key}".encode()).digest()[:7], "big")


def _int32(value: int) -> int:
    return value - (1 << 32) if value >= 1 << 31 else value
