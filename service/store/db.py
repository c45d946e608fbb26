"""The database handle: engine set-up for SQLite and PostgreSQL, connections and transactions.

SQLite (the embedded default) runs in WAL mode with a busy timeout. A writer takes SQLite's one
write lock up front (``BEGIN IMMEDIATE``), so it waits before its first statement rather than
failing halfway. The threads of a process take turns (:attr:`Database.writers`, a lock of the
process: each is woken as the one before it ends), and the one whose turn it is tries for SQLite's
lock every half millisecond while another process holds it (:func:`.begin_immediate`). SQLite's own
busy handler sleeps between its tries, up to 100 ms at a time, and gives the lock to whoever tries
when it is free, not to who waited longest: with every thread waiting there, under load a ``BEGIN
IMMEDIATE`` waited p99 331 ms for a lock mostly free (``bench/webhook_games.py --db sqlite``, the web
role's threads), and keyed plays, which hold the lock longest, were bounded by those waits
(docs/benchmarks.md). Reads take no turn: WAL readers wait for no writer.

PostgreSQL (production) uses a pool (pre-pinging, unless told not to) of connections in autocommit mode: a single
statement (a read, or a write that is one statement) needs no BEGIN and COMMIT round trips, and
:meth:`Database.begin` opens a READ COMMITTED transaction where a block runs several.

A transaction that spans several blocks (a unit of work's, :class:`WriteTransaction`) runs its
blocks with :meth:`Database.within` (a savepoint for one that may fail on its own):
nothing here joins a transaction without being told to.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, exc
from sqlalchemy.engine import make_url

from .. import jsonio
from .driver import driver_connection
from .sqlite_connections import begin_immediate, configure_sqlite, sqlite_transaction

try:
    import psycopg
except ImportError:  # pragma: no cover - installed with the service; only PostgreSQL needs it
    psycopg = None  # type: ignore[assignment]

__all__ = ["Database", "DatabaseUnavailable", "WriteTransaction"]

log = logging.getLogger(__name__)

_AUTOCOMMIT = "AUTOCOMMIT"
_TRANSACTION = "READ COMMITTED"


# What the drivers raise for statements sent to them directly (see .driver): SQLAlchemy wraps
# the errors of the statements it runs in exc.DBAPIError, but not these.
_DRIVER_ERRORS: tuple[type[Exception], ...] = (sqlite3.Error,) + ((psycopg.Error,) if psycopg else ())


class DatabaseUnavailable(Exception):
    """The database cannot be reached (down, restarting, or out of connections)."""


class Database:
    """An engine (with its connection pool) for one database URL."""

    def __init__(
        self, url: str, *, pool_size: int = 5, busy_timeout_ms: int = 30_000, echo: bool = False, pre_ping: bool = True
    ) -> None:
        """``pre_ping`` (PostgreSQL): test each connection with a round trip as it leaves the pool, so
        that one the server dropped (a restart) is replaced unseen; without it, the first statement
        on such a connection fails (:class:`DatabaseUnavailable`) and the pool drops every connection
        opened before it, which suits a caller that retries the whole piece of work (the worker)."""
        parsed = make_url(url)
        self.url = url
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        database = parsed.database if self.is_sqlite else None
        #: The SQLite database's file (None on PostgreSQL, or for an in-memory database).
        self.file = Path(database) if database and database != ":memory:" else None
        # hide_parameters: an error's text never carries bound values (a deal's secret seed).
        kwargs: dict[str, Any] = {"echo": echo, "hide_parameters": True}
        kwargs.update(json_serializer=jsonio.dumps, json_deserializer=jsonio.loads)  # snapshots: orjson
        if self.is_sqlite:
            if self.file is not None:
                self.file.parent.mkdir(parents=True, exist_ok=True)
            kwargs["connect_args"] = {"timeout": busy_timeout_ms / 1000, "check_same_thread": False}
            if self.file is not None:
                # No ceiling: a request never waits for a connection (SQLite's own busy handler is
                # the one place a writer waits). A file connection is cheap.
                kwargs.update(pool_size=pool_size, max_overflow=-1)
        else:
            if parsed.drivername == "postgresql":  # psycopg 3 is the driver we ship
                url = parsed.set(drivername="postgresql+psycopg").render_as_string(hide_password=False)
            kwargs.update(pool_pre_ping=pre_ping, pool_size=pool_size, max_overflow=pool_size, pool_timeout=5)
            kwargs.update(isolation_level=_AUTOCOMMIT, connect_args={"connect_timeout": 3})
        self.engine: Engine = create_engine(url, **kwargs)
        #: SQLite: this process's threads take turns to write (see the module's docstring).
        self.writers = threading.Lock()
        self._busy_timeout_ms = busy_timeout_ms
        if self.is_sqlite:
            configure_sqlite(self.engine, busy_timeout_ms)

    @contextmanager
    def transaction(self, *, write: bool) -> Iterator[Connection]:
        """One transaction on one pooled connection: committed when the block ends normally,
        rolled back otherwise. ``write`` takes SQLite's write lock at once."""
        with self.connect() as connection, self.begin(connection, write=write):
            yield connection

    @contextmanager
    def connect(self) -> Iterator[Connection]:
        """A connection from the pool (on PostgreSQL pre-pinged) for one or more :meth:`begin` blocks."""
        with _unavailable_as_503, self.engine.connect() as connection:
            yield from _dropping_when_unavailable(connection)

    @contextmanager
    def begin(self, connection: Connection, *, write: bool, one_statement: bool = False) -> Iterator[Connection]:
        """A transaction on ``connection``: committed when the block ends normally, rolled back otherwise.

        ``write``: on SQLite, take the write lock at once (``BEGIN IMMEDIATE``).
        ``one_statement``: the block runs a single statement, atomic on its own; PostgreSQL then
        runs it in autocommit mode, without the BEGIN and COMMIT round trips, and SQLite a read
        without BEGIN.
        """
        with _unavailable_as_503:
            if self.is_sqlite:
                # A lone statement needs no BEGIN: outside one, SQLite runs it as a transaction of its own.
                if not write:
                    yield from sqlite_transaction(connection, None if one_statement else "DEFERRED")
                    return
                deadline = time.monotonic() + self._busy_timeout_ms / 1000
                if not self.writers.acquire(timeout=self._busy_timeout_ms / 1000):
                    raise DatabaseUnavailable(
                        "another thread of this process held the write lock past DB_BUSY_TIMEOUT_MS"
                    )
                try:
                    begin_immediate(driver_connection(connection), deadline, self._busy_timeout_ms)
                    yield from sqlite_transaction(connection, None)  # begun: it commits or rolls back
                finally:
                    self.writers.release()
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
    def within(self, connection: Connection, *, savepoint: bool) -> Iterator[Connection]:
        """A block inside the transaction already open on ``connection``, which its owner ends:
        with ``savepoint``, an exception undoes the block's writes alone and the transaction goes
        on (SQLite and PostgreSQL alike). Nothing commits here."""
        with _unavailable_as_503:
            if not savepoint:
                yield connection
                return
            connection.exec_driver_sql("SAVEPOINT coins_block")
            try:
                yield connection
            except BaseException:
                if not connection.invalidated:
                    connection.exec_driver_sql("ROLLBACK TO SAVEPOINT coins_block")
                    connection.exec_driver_sql("RELEASE SAVEPOINT coins_block")
                raise
            connection.exec_driver_sql("RELEASE SAVEPOINT coins_block")

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
        """Close every connection of the pool."""
        self.engine.dispose()


def _dropping_when_unavailable(connection: Connection) -> Iterator[Connection]:
    """Yield ``connection``; if a statement sent to the driver found the database gone, invalidate it.
    SQLAlchemy does that itself for its own statements, not for those (see .driver)."""
    try:
        yield connection
    except _DRIVER_ERRORS as error:
        if _is_unavailable(error, None) and not connection.invalidated:
            connection.invalidate()
        raise


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
    if isinstance(driver_error, sqlite3.Error):  # a file, not a server: one that cannot be opened, or
        # one whose write lock another connection held past DB_BUSY_TIMEOUT_MS (overload, as PostgreSQL's
        # statement timeout: 503 and Retry-After, not a bug)
        code = getattr(driver_error, "sqlite_errorcode", None)
        return code is not None and code & 0xFF in (sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_BUSY)
    if psycopg is not None and isinstance(driver_error, psycopg.Error):
        sqlstate = driver_error.sqlstate
        if sqlstate is None:  # psycopg's own failures to connect or to talk to the server carry none
            return isinstance(driver_error, psycopg.OperationalError | psycopg.InterfaceError)
        return sqlstate.startswith(_UNAVAILABLE_SQLSTATES)
    return False


class WriteTransaction:
    """One write transaction on a session's connection (:meth:`.StoreSession.begin_writing`), held
    across a unit of work: only :meth:`commit` commits. End it with :meth:`commit` or
    :meth:`rollback`, then :meth:`close` it (which rolls back if neither ran); the connection stays
    the session's."""

    def __init__(self, db: Database, connection: Connection) -> None:
        self._ended = False
        self._transaction = db.begin(connection, write=True)
        self._transaction.__enter__()
        self.connection = connection

    def commit(self) -> None:
        """Commit everything written in the transaction. Raises :class:`.DatabaseUnavailable` if
        the commit fails: then nothing is written."""
        self._end()
        self._transaction.__exit__(None, None, None)  # leaving Database.begin's block commits

    def rollback(self) -> None:
        """Undo everything written in the transaction (a connection already lost is rolled back by
        the server). Nothing to do once it has ended (a commit that failed, say)."""
        if self._ended:
            return
        self._end()
        try:
            self._transaction.__exit__(_RolledBack, _RolledBack(), None)
        except Exception as error:
            log.warning("could not roll back a write transaction: %s", type(error).__name__)

    def close(self) -> None:
        """Roll back unless committed."""
        self.rollback()

    def _end(self) -> None:
        if self._ended:
            raise RuntimeError("this write transaction has ended")
        self._ended = True


class _RolledBack(Exception):
    """Thrown into :meth:`.Database.begin`'s block to end a write transaction with a rollback."""
