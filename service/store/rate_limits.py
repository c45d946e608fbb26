"""Rate-limit counters in the database: a storage for the ``limits`` library (and so Flask-Limiter).

``limits`` stores counters in memory (one process's), Redis, Memcached or MongoDB, and has no SQL
storage. Without Redis the service keeps them in the database it already has, which every worker
and instance shares: fixed windows, each hit one UPSERT that starts the window afresh once it has
expired and answers the new count. Expired counters are deleted now and then, a bounded number at
a time. Redis does the same work in memory: set ``REDIS_URL`` for busy installs.

Flask-Limiter builds it from the URI ``coins-database://`` with the option ``database`` (a
:class:`.Database`).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast

from limits.storage import Storage
from sqlalchemy import Connection, Table, case, delete, select
from sqlalchemy.dialects import postgresql, sqlite

from .db import Database, DatabaseUnavailable
from .models import RateLimitRow

__all__ = ["DatabaseStorage"]

COUNTERS = cast(Table, RateLimitRow.__table__)
PURGE_EVERY = 1000  # hits of one process between deletions of expired counters
PURGE_LIMIT = 1000  # counters deleted at most each time


class DatabaseStorage(Storage):
    """Fixed-window counters in the table ``rate_limits``."""

    STORAGE_SCHEME = ["coins-database"]

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False, **options: Any) -> None:
        database = options.pop("database", None)
        if not isinstance(database, Database):
            raise TypeError("DatabaseStorage needs the option database=<service.store.Database>")
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        self._db = database
        self._insert: Any = sqlite.insert if database.is_sqlite else postgresql.insert
        self._hits = itertools.count(1)

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return DatabaseUnavailable

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        now = time.time()
        statement = self._insert(COUNTERS).values(key=key, count=amount, expires_at=now + expiry)
        expired = COUNTERS.c.expires_at <= now
        statement = statement.on_conflict_do_update(
            index_elements=[COUNTERS.c.key],
            set_={
                "count": case((expired, amount), else_=COUNTERS.c.count + amount),
                "expires_at": case((expired, now + expiry), else_=COUNTERS.c.expires_at),
            },
        ).returning(COUNTERS.c.count)
        with self._statement() as connection:
            count = int(connection.execute(statement).scalar_one())
        if next(self._hits) % PURGE_EVERY == 0:
            self.purge(now)
        return count

    def get(self, key: str) -> int:
        with self._statement(write=False) as connection:
            count = connection.execute(
                select(COUNTERS.c.count).where(COUNTERS.c.key == key, COUNTERS.c.expires_at > time.time())
            ).scalar()
        return int(count) if count is not None else 0

    def get_expiry(self, key: str) -> float:
        with self._statement(write=False) as connection:
            expires_at = connection.execute(
                select(COUNTERS.c.expires_at).where(COUNTERS.c.key == key, COUNTERS.c.expires_at > time.time())
            ).scalar()
        return float(expires_at) if expires_at is not None else time.time()

    def check(self) -> bool:
        try:
            self._db.ping()
        except DatabaseUnavailable:
            return False
        return True

    def reset(self) -> int | None:
        with self._statement() as connection:
            return connection.execute(delete(COUNTERS)).rowcount

    def clear(self, key: str) -> None:
        with self._statement() as connection:
            connection.execute(delete(COUNTERS).where(COUNTERS.c.key == key))

    def purge(self, now: float | None = None, *, limit: int = PURGE_LIMIT) -> int:
        """Delete up to ``limit`` expired counters; the number deleted."""
        expired = select(COUNTERS.c.key).where(COUNTERS.c.expires_at <= (now or time.time())).limit(limit)
        with self._statement() as connection:
            return connection.execute(delete(COUNTERS).where(COUNTERS.c.key.in_(expired))).rowcount

    @contextmanager
    def _statement(self, *, write: bool = True) -> Iterator[Connection]:
        with self._db.connect() as connection, self._db.begin(connection, write=write, one_statement=True):
            yield connection
