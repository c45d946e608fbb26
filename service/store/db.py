"""The database handle: engine set-up for SQLite and PostgreSQL, connections and transactions.

SQLite (the embedded default) runs in WAL mode with a busy timeout. A writer takes SQLite's one
write lock up front (``BEGIN IMMEDIATE``), so it waits (in SQLite's busy handler) before its
first statement rather than failing halfway.

PostgreSQL (production) uses a pre-pinging pool of connections in autocommit mode: a single
statement (a read, or a write that is one statement) needs no BEGIN and COMMIT round trips, and
:meth:`Database.begin` opens a READ COMMITTED transaction where a block runs several.

A thread may also hold one write transaction across everything it does for a while
(:meth:`Database.hold`: a POST with an ``Idempotency-Key``, whose change and kept response commit
together): its connects and begins then join that transaction, and what is to happen after a
commit (:meth:`Database.after_commit`) waits for its commit.
"""

from __future__ import annotations

import logging
import sqlite3
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, exc
from sqlalchemy.engine import make_url

from .. import jsonio
from .sqlite_connections import configure_sqlite, sqlite_transaction

try:
    import psycopg
except ImportError:  # pragma: no cover - installed with the service; only PostgreSQL needs it
    psycopg = None  # type: ignore[assignment]

__all__ = ["Database", "DatabaseUnavailable", "HeldTransaction"]

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

    def __init__(self, url: str, *, pool_size: int = 5, busy_timeout_ms: int = 30_000, echo: bool = False) -> None:
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
                # No ceiling: a request never waits for a connection (under gevent that wait would
                # let another greenlet run, and one holding SQLite's write lock could then wait on
                # it in SQLite's busy handler, which blocks the whole worker). A file connection is cheap.
                kwargs.update(pool_size=pool_size, max_overflow=-1)
        else:
            if parsed.drivername == "postgresql":  # psycopg 3 is the driver we ship
                url = parsed.set(drivername="postgresql+psycopg").render_as_string(hide_password=False)
            kwargs.update(pool_pre_ping=True, pool_size=pool_size, max_overflow=pool_size, pool_timeout=5)
            kwargs.update(isolation_level=_AUTOCOMMIT, connect_args={"connect_timeout": 3})
        self.engine: Engine = create_engine(url, **kwargs)
        self._held = threading.local()  # .transaction: the HeldTransaction of this thread, if any
        if self.is_sqlite:
            configure_sqlite(self.engine, busy_timeout_ms)

    def beside(self, suffix: str) -> Path:
        """A file beside the SQLite database's: ``<file>.<suffix>`` (its locks, say)."""
        assert self.file is not None, "an SQLite database in a file"
        return self.file.with_name(f"{self.file.name}.{suffix}")

    @contextmanager
    def transaction(self, *, write: bool) -> Iterator[Connection]:
        """One transaction on one pooled connection: committed when the block ends normally,
        rolled back otherwise. ``write`` takes SQLite's write lock at once."""
        with self.connect() as connection, self.begin(connection, write=write):
            yield connection

    @contextmanager
    def connect(self) -> Iterator[Connection]:
        """A connection from the pool (on PostgreSQL pre-pinged) for one or more :meth:`begin` blocks."""
        held = self.held()
        if held is not None:
            yield held.connection
            return
        with _unavailable_as_503, self.engine.connect() as connection:
            yield from _dropping_when_unavailable(connection)

    @contextmanager
    def begin(self, connection: Connection, *, write: bool, one_statement: bool = False) -> Iterator[Connection]:
        """A transaction on ``connection``: committed when the block ends normally, rolled back otherwise.

        ``write``: on SQLite, take the write lock at once (``BEGIN IMMEDIATE``).
        ``one_statement``: the block runs a single statement, atomic on its own; PostgreSQL then
        runs it in autocommit mode, without the BEGIN and COMMIT round trips, and SQLite a read
        without BEGIN.

        On the connection of this thread's :meth:`hold`, the block joins the held transaction: a
        write of several statements in a savepoint (an exception undoes the block's writes alone),
        anything else as it is; nothing commits before the held transaction does.
        """
        held = self.held()
        if held is not None and connection is held.connection:
            yield from _joined(connection, savepoint=write and not one_statement)
            return
        with _unavailable_as_503:
            if self.is_sqlite:
                # A lone statement needs no BEGIN: outside one, SQLite runs it as a transaction of its own.
                mode = "IMMEDIATE" if write else None if one_statement else "DEFERRED"
                yield from sqlite_transaction(connection, mode)
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

    def hold(self) -> HeldTransaction:
        """Begin a write transaction that this thread's connects and begins join until it is
        committed or rolled back (see :class:`HeldTransaction`). On SQLite it holds the write lock
        throughout."""
        if self.held() is not None:
            raise RuntimeError("this thread already holds a transaction")
        transaction = HeldTransaction(self)
        self._held.transaction = transaction
        return transaction

    def held(self) -> HeldTransaction | None:
        """This thread's held transaction, if it holds one."""
        return getattr(self._held, "transaction", None)

    def after_commit(self, action: Callable[[], None]) -> None:
        """Run ``action`` once what this thread has written is committed: now, or, inside a held
        transaction, after its commit (never, if it is rolled back)."""
        held = self.held()
        if held is None:
            action()
        else:
            held.committed.append(action)

    def _let_go(self, transaction: HeldTransaction) -> None:
        if self.held() is transaction:
            self._held.transaction = None

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


class HeldTransaction:
    """A write transaction one thread holds across several steps (see :meth:`Database.hold`):
    end it with :meth:`commit` or :meth:`rollback`."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self.committed: list[Callable[[], None]] = []  # what waits for the commit (Database.after_commit)
        self._ended = False
        self._connected = ExitStack()  # the connection, given back when the transaction ends
        self.connection = self._connected.enter_context(db.connect())
        self._transaction = db.begin(self.connection, write=True)
        try:
            self._transaction.__enter__()
        except BaseException:
            self._connected.__exit__(*sys.exc_info())
            raise

    def commit(self) -> None:
        """Commit everything written since :meth:`Database.hold`, then run what waited for it on
        the same connection (a failing action is logged). Raises :class:`DatabaseUnavailable` if
        the commit fails: then nothing is written."""
        self._end()
        with self._connected:
            self._transaction.__exit__(None, None, None)  # leaving Database.begin's block commits
            for action in self.committed:
                try:
                    action()
                except Exception:
                    log.exception("an action after a commit failed")

    def rollback(self) -> None:
        """Undo everything written since :meth:`Database.hold` (a connection already lost is
        rolled back by the server). Nothing to do once the transaction has ended (a commit that
        failed, say)."""
        if self._ended:
            return
        self._end()
        try:
            with self._connected:
                self._transaction.__exit__(_RolledBack, _RolledBack(), None)
        except Exception as error:
            log.warning("could not roll back a held transaction: %s", type(error).__name__)

    def _end(self) -> None:
        if self._ended:
            raise RuntimeError("this held transaction has ended")
        self._ended = True
        self._db._let_go(self)


class _RolledBack(Exception):
    """Thrown into :meth:`Database.begin`'s block to end a held transaction with a rollback."""


def _dropping_when_unavailable(connection: Connection) -> Iterator[Connection]:
    """Yield ``connection``; if a statement sent to the driver found the database gone, invalidate it.
    SQLAlchemy does that itself for its own statements, not for those (see .driver)."""
    try:
        yield connection
    except _DRIVER_ERRORS as error:
        if _is_unavailable(error, None) and not connection.invalidated:
            connection.invalidate()
        raise


def _joined(connection: Connection, *, savepoint: bool) -> Iterator[Connection]:
    """A block inside a held transaction: in a savepoint if asked (SQLite and PostgreSQL alike)."""
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
