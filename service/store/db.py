"""The database handle: engine set-up for SQLite and PostgreSQL, connections and transactions.

SQLite (the embedded default) runs in WAL mode with a busy timeout. Writers queue for the
database's one write lock on a file lock beside the database (``<file>.writers``) and then take
SQLite's lock up front (``BEGIN IMMEDIATE``): a writer that finds the lock taken sleeps in the
kernel until it is released, instead of in SQLite's busy handler, which polls with sleeps of 1
to 100 ms and left workers idle while the lock was free.

PostgreSQL (production) uses a pre-pinging pool of connections in autocommit mode: a single
statement (a read, or a write that is one statement) needs no BEGIN and COMMIT round trips, and
:meth:`Database.begin` opens a READ COMMITTED transaction where a block runs several.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, exc
from sqlalchemy.engine import make_url

from .. import jsonio
from .driver import driver_connection

try:
    import psycopg
except ImportError:  # pragma: no cover - installed with the service; only PostgreSQL needs it
    psycopg = None  # type: ignore[assignment]

try:
    import fcntl
except ImportError:  # Windows has no flock: SQLite's busy handler alone then queues writers
    fcntl = None  # type: ignore[assignment]

__all__ = ["Database", "DatabaseUnavailable"]

_AUTOCOMMIT = "AUTOCOMMIT"
_TRANSACTION = "READ COMMITTED"


# What the drivers raise for statements sent to them directly (see .driver): SQLAlchemy wraps
# the errors of the statements it runs in exc.DBAPIError, but not these.
_DRIVER_ERRORS: tuple[type[Exception], ...] = (sqlite3.Error,) + ((psycopg.Error,) if psycopg else ())


class DatabaseUnavailable(Exception):
    """The database cannot be reached (down, restarting, or out of connections)."""


class Database:
    """An engine (with its connection pool) for one database URL."""

    def __init__(self, url: str, *, pool_size: int = 5, busy_timeout_ms: int = 30_000, echo: bool = False) -> None:
        parsed = make_url(url)
        self.url = url
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        # hide_parameters: an error's text never carries bound values (a deal's secret seed).
        kwargs: dict[str, Any] = {"echo": echo, "hide_parameters": True}
        kwargs.update(json_serializer=jsonio.dumps, json_deserializer=jsonio.loads)  # snapshots: orjson
        if self.is_sqlite:
            database = parsed.database
            if database and database != ":memory:":
                Path(database).parent.mkdir(parents=True, exist_ok=True)
            kwargs["connect_args"] = {"timeout": busy_timeout_ms / 1000, "check_same_thread": False}
            if database and database != ":memory:":
                kwargs["pool_size"] = 0  # no limit: every thread keeps a connection (_KeptConnections)
        else:
            if parsed.drivername == "postgresql":  # psycopg 3 is the driver we ship
                url = parsed.set(drivername="postgresql+psycopg").render_as_string(hide_password=False)
            kwargs.update(pool_pre_ping=True, pool_size=pool_size, max_overflow=pool_size, pool_timeout=5)
            kwargs.update(isolation_level=_AUTOCOMMIT, connect_args={"connect_timeout": 3})
        self.engine: Engine = create_engine(url, **kwargs)
        self._writers: _WriterQueue | None = None
        self._kept: _KeptConnections | None = None
        if self.is_sqlite:
            _configure_sqlite(self.engine, busy_timeout_ms)
            if parsed.database and parsed.database != ":memory:":
                self._kept = _KeptConnections(self.engine)
                if fcntl is not None:
                    self._writers = _WriterQueue(Path(f"{parsed.database}.writers"))

    @contextmanager
    def transaction(self, *, write: bool) -> Iterator[Connection]:
        """One transaction on one pooled connection: committed when the block ends normally,
        rolled back otherwise. ``write`` queues for SQLite's write lock and takes it at once."""
        with self.connect() as connection, self.begin(connection, write=write):
            yield connection

    @contextmanager
    def connect(self, *, keep: bool = True) -> Iterator[Connection]:
        """A connection for one or more :meth:`begin` blocks: on PostgreSQL one from the pool
        (pre-pinged), on an SQLite file the one this thread keeps (see :class:`_KeptConnections`),
        unless ``keep`` is False (then one from the pool there too)."""
        with _unavailable_as_503:
            kept = self._kept.take() if self._kept is not None and keep else None
            if kept is not None:
                try:
                    yield from _dropping_when_unavailable(kept)
                finally:
                    self._kept.give_back(kept)  # type: ignore[union-attr]
                return
            with self.engine.connect() as connection:
                yield from _dropping_when_unavailable(connection)

    @contextmanager
    def begin(self, connection: Connection, *, write: bool, one_statement: bool = False) -> Iterator[Connection]:
        """A transaction on ``connection``: committed when the block ends normally, rolled back otherwise.

        ``write``: on SQLite, queue for the write lock and take it at once (``BEGIN IMMEDIATE``).
        ``one_statement``: the block runs a single statement, atomic on its own; PostgreSQL then
        runs it in autocommit mode, without the BEGIN and COMMIT round trips, and SQLite a read
        without BEGIN.
        """
        with _unavailable_as_503:
            if self.is_sqlite:
                # A lone statement needs no BEGIN: outside one, SQLite runs it as a transaction of its own.
                mode = "IMMEDIATE" if write else None if one_statement else "DEFERRED"
                if write and self._writers is not None:
                    with self._writers.turn():
                        yield from _sqlite_transaction(connection, mode)
                else:
                    yield from _sqlite_transaction(connection, mode)
            elif one_statement:
                try:
                    yield connection
                except BaseException:
                    connection.rollback()  # ends SQLAlchemy's bookkeeping: nothing is open on the server
                    raise
                if connection.in_transaction():
                    connection.commit()
            else:
                connection.execution_options(isolation_level=_TRANSACTION)
                try:
                    with connection.begin():
                        yield connection
                finally:
                    if not connection.invalidated:
                        connection.execution_options(isolation_level=_AUTOCOMMIT)

    @contextmanager
    def schema_lock(self) -> Iterator[Connection]:
        """A connection in a transaction holding the schema lock, for migrations: one holder at a time.

        Every process and host may call this at once: SQLite takes its write lock up front
        (``BEGIN IMMEDIATE``; DDL is transactional there), PostgreSQL an advisory lock per schema
        for the rest of the transaction. The others wait, then find the work done.
        """
        with self.transaction(write=True) as connection:
            if connection.dialect.name == "postgresql":
                connection.exec_driver_sql(
                    "SELECT pg_advisory_xact_lock(hashtext('coins.schema.' || current_schema()))"
                )
            yield connection

    def ping(self) -> None:
        """Raise :class:`DatabaseUnavailable` unless a trivial query succeeds."""
        with self.connect() as connection, self.begin(connection, write=False, one_statement=True):
            connection.exec_driver_sql("SELECT 1")

    def dispose(self) -> None:
        """Close every connection: the pool's, and those SQLite threads keep."""
        if self._kept is not None:
            self._kept.close_all()
        self.engine.dispose()


class _KeptConnections:
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


class _WriterQueue:
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


def _dropping_when_unavailable(connection: Connection) -> Iterator[Connection]:
    """Yield ``connection``; if a statement sent to the driver found the database gone, invalidate it.
    SQLAlchemy does that itself for its own statements, not for those (see .driver)."""
    try:
        yield connection
    except _DRIVER_ERRORS as error:
        if _is_unavailable(error, None) and not connection.invalidated:
            connection.invalidate()
        raise


def _sqlite_transaction(connection: Connection, mode: str | None) -> Iterator[Connection]:
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


class _UnavailableAs503:
    """Turns every way of not reaching the database into :class:`DatabaseUnavailable` (a class,
    not a generator: it wraps every block of statements, several per request)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, _tb: Any) -> None:
        if error is None:
            return
        if isinstance(error, exc.DBAPIError):
            if _is_unavailable(error.orig, error):
                raise DatabaseUnavailable(str(error.orig or error)) from error
        elif isinstance(error, _DRIVER_ERRORS):  # from a statement sent to the driver itself (see .driver)
            if _is_unavailable(error, None):
                raise DatabaseUnavailable(str(error)) from error
        elif isinstance(error, exc.TimeoutError):  # no pooled connection came free in time
            raise DatabaseUnavailable("connection pool exhausted") from error


_unavailable_as_503 = _UnavailableAs503()


# SQLSTATE classes: 08 connection exception, 57P operator intervention (shutdown, starting up),
# 57014 statement timeout, 53300 too many connections.
_UNAVAILABLE_SQLSTATES = ("08", "57P", "57014", "53300")


def _is_unavailable(driver_error: BaseException | None, wrapped: exc.DBAPIError | None) -> bool:
    """Whether a driver's error (as raised, or wrapped by SQLAlchemy) means the database cannot be
    reached: decided by the error's class and SQLSTATE, never by its message, so that a bug (a bad
    statement, a broken constraint) is never disguised as an outage."""
    if wrapped is not None and wrapped.connection_invalidated:
        return True
    if isinstance(driver_error, sqlite3.Error):  # a file, not a server: only one that cannot be opened
        return getattr(driver_error, "sqlite_errorcode", None) == sqlite3.SQLITE_CANTOPEN
    if psycopg is not None and isinstance(driver_error, psycopg.Error):
        sqlstate = driver_error.sqlstate
        if sqlstate is None:  # psycopg's own failures to connect or to talk to the server carry none
            return isinstance(driver_error, psycopg.OperationalError | psycopg.InterfaceError)
        return sqlstate.startswith(_UNAVAILABLE_SQLSTATES)
    return False


def _configure_sqlite(engine: Engine, busy_timeout_ms: int) -> None:
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
