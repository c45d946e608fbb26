"""SQLite's side of the database handle (:mod:`.db`): connection set-up, a connection kept per
thread, the writers' queue on a file lock, and transactions begun on the driver itself."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, event

from .driver import driver_connection

try:
    import fcntl
except ImportError:  # Windows has no flock: SQLite's busy handler alone then queues writers
    fcntl = None  # type: ignore[assignment]

__all__ = ["KeptConnections", "WriterQueue", "configure_sqlite", "sqlite_transaction", "writer_queue"]


class KeptConnections:
    """One SQLite connection per thread, kept from request to request.

    A file database needs no pool: opening a connection is cheap and there is nothing to
    ping. What the pool costs is its checkout and checkin (SQLAlchemy's Connection, the pool's
    queue, the reset on return), some 40 µs per request, so each thread checks one out once and
    keeps it. A connection is kept only between whole uses: a nested :meth:`Database.connect` in
    the same thread gets its own from the pool, and one left in a transaction (which
    :meth:`Database.begin` never does) is rolled back when given back. After a fork the child
    opens its own. The pool has no size limit, as every thread may keep one.
    """

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._local = threading.local()
        self._lock = threading.Lock()
        self._every: dict[int, tuple[int, Connection]] = {}  # every thread's, for close_all: pid too

    def take(self) -> Connection | None:
        """This thread's connection, or None while it is in use (the caller uses the pool)."""
        local = self._local
        if getattr(local, "busy", False):
            return None
        connection: Connection | None = getattr(local, "connection", None)
        if connection is None or connection.closed or connection.invalidated or local.pid != os.getpid():
            connection = self._engine.connect()
            local.connection, local.pid = connection, os.getpid()
            with self._lock:
                self._every[id(connection)] = (os.getpid(), connection)
        local.busy = True
        return connection

    def give_back(self, connection: Connection) -> None:
        self._local.busy = False
        if connection.closed or connection.invalidated:  # dropped: the next use opens another
            self._local.connection = None
            with self._lock:
                self._every.pop(id(connection), None)
            connection.close()
            return
        if connection.in_transaction():
            connection.rollback()
        driver = driver_connection(connection)
        if driver.in_transaction:
            driver.rollback()

    def close_all(self) -> None:
        """Close the connections this process opened (a forked child leaves its parent's alone)."""
        with self._lock:
            every, self._every = self._every, {}
        for pid, connection in every.values():
            if pid == os.getpid():
                connection.close()


def writer_queue(path: Path) -> WriterQueue | None:
    """The writers' queue on the lock file ``path``; None where there is no flock (Windows)."""
    return WriterQueue(path) if fcntl is not None else None


class WriterQueue:
    """SQLite writers of every process on this host take turns on an exclusive ``flock`` of one
    file. A waiting writer sleeps in the kernel and wakes as soon as the lock is released (SQLite's
    own busy handler sleeps a fixed 1 to 100 ms between attempts). Each thread locks through a
    descriptor of its own, opened once (a flock belongs to the open file, so threads of one
    process queue as well; a forked child opens its own, as it must not unlock its parent's). A
    writer that hangs holds the queue only as long as gunicorn lets a worker hang (its timeout
    kills the worker, which releases the lock)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()

    @contextmanager
    def turn(self) -> Iterator[None]:
        local = self._local
        lock: _LockFile | None = getattr(local, "lock", None)
        if lock is None or lock.pid != os.getpid():  # this thread's first turn, or a forked child's
            lock = local.lock = _LockFile(self.path)
            local.held = False
        if local.held:  # a nested write transaction of the same thread
            yield
            return
        fcntl.flock(lock.fd, fcntl.LOCK_EX)
        local.held = True
        try:
            yield
        finally:
            local.held = False
            fcntl.flock(lock.fd, fcntl.LOCK_UN)


class _LockFile:
    """A descriptor of the writers' lock file, closed with the thread (or queue) that opened it."""

    def __init__(self, path: Path) -> None:
        self.pid = os.getpid()
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)

    def __del__(self) -> None:
        os.close(self.fd)  # in a forked child, only its copy: the parent's lock is not touched


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
