"""The channel: how the after-commit signal "feed X changed" reaches every process that follows the feed.

A signal carries only the feed's id (a game's id, or ``player:<id>``): the events are read from the
database. ``None`` means "anything may have changed" (a listener that was cut off is back, or an
SQLite file changed), so every followed feed is read again. Each process has one listener, started
by its first reader, on a thread of its own:

- PostgreSQL: ``LISTEN``/``NOTIFY`` on one channel. The ``NOTIFY`` is its own statement, sent in
  autocommit on the writer's connection after the write has committed (a transaction that
  notifies takes a database-wide lock at commit, which would make every writer wait for the others).
- Redis (``REDIS_URL``): ``PUBLISH``/``SUBSCRIBE`` on one channel; the database is then not asked.
- An SQLite file: no message at all. The listener looks at ``PRAGMA data_version`` (a counter
  SQLite changes whenever another connection commits) every :data:`SQLITE_POLL_SECONDS`; the
  writer's own process hears at once.
- An in-memory SQLite database lives in one process: the writer tells that process directly.

A channel is the :class:`service.work.signals.Signals` a unit of work is handed.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import psycopg
import redis
from sqlalchemy.engine import make_url

from ..store import Database

__all__ = [
    "Channel",
    "InProcessChannel",
    "PostgresChannel",
    "RedisChannel",
    "SqliteFileChannel",
    "channel_for",
]

log = logging.getLogger(__name__)

Tell = Callable[[str | None], None]
CHANNEL = "coins_games"
SQLITE_POLL_SECONDS = 0.025  # how often a process looks whether an SQLite file changed
WAIT_SECONDS = 1.0  # a listener's longest wait for a message before it looks whether it should stop
RECONNECT_SECONDS = (0.1, 0.5, 1.0, 2.0, 5.0)  # waits between attempts to listen again, then the last
STILL_LOST_LOG_SECONDS = 60.0  # while a listener cannot listen again, it says so this often


class Channel(Protocol):
    """Signals the other processes that a feed changed, and hears when one did."""

    def signal(self, feed_ids: tuple[str, ...], connection: Any) -> None:
        """Say that each of ``feed_ids`` changed (their writes have committed), in one message to the
        database or broker; ``connection`` is the writer's driver connection, in autocommit, for a
        database that signals through it."""

    def listen(self, tell: Tell) -> None:
        """From now on call ``tell`` with each changed feed's id (on the listener's thread); once
        per process."""

    def close(self) -> None:
        """Stop listening."""

    @property
    def listening(self) -> bool:
        """Whether this process hears the changes now: it listens, and its listener is not lost
        (reconnecting). Reported by the roles that listen (/readyz's ``listeners``)."""


def channel_for(db: Database, *, listen_url: str = "", redis_url: str = "") -> Channel:
    """The channel for the processes that share ``db``: Redis with ``redis_url``, else the
    database's own (on PostgreSQL a listener connects to ``listen_url``, default the database)."""
    if redis_url:
        return RedisChannel(redis_url)
    url = db.engine.url
    if url.get_backend_name() == "postgresql":
        listen = make_url(listen_url) if listen_url else url
        return PostgresChannel(listen.set(drivername="postgresql").render_as_string(hide_password=False))
    if db.file is not None:
        return SqliteFileChannel(db.file)
    return InProcessChannel()


class _Listener:
    """The one thread of a process that hears a channel: ``run(tell, stopped)`` until ``stopped``
    is set; started by the first :meth:`start`."""

    def __init__(self, name: str, run: Callable[[Tell, threading.Event], None]) -> None:
        self._name = name
        self._run = run
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.stopped = threading.Event()
        self.tell: Tell | None = None
        self.lost_since: float | None = None  # monotonic time since when it cannot listen, None while it does
        self.clock = time.monotonic

    def start(self, tell: Tell) -> None:
        """Listen from now on (the first call; later ones change nothing). Each run tells ``None``
        once it listens: whatever changed while nobody listened is read again."""
        with self._lock:
            if self._thread is not None:
                return
            self.tell = tell
            self._thread = threading.Thread(target=self._guarded, args=(tell,), name=self._name, daemon=True)
            self._thread.start()

    def _guarded(self, tell: Tell) -> None:
        """Run, and run again when the connection is lost or cannot be made. Logs one WARNING as it
        is lost, another every :data:`STILL_LOST_LOG_SECONDS` while it cannot listen again (changes
        then reach the readers only at their heartbeats), and one INFO once it listens again."""
        failures = 0
        said = 0.0
        while not self.stopped.is_set():
            try:
                self._run(lambda feed_id: self._heard(tell, feed_id), self.stopped)
                failures = 0
            except Exception as error:  # the server went away, or refused us: listen again
                now = self.clock()
                if self.lost_since is None:
                    self.lost_since = said = now
                    failures = 0
                    log.warning("listener for game changes lost: %s", type(error).__name__)
                elif now - said >= STILL_LOST_LOG_SECONDS:
                    said = now
                    log.warning(
                        "listener for game changes still cannot listen after %.0f s (%s): changes reach "
                        "readers only at their heartbeats",
                        now - self.lost_since,
                        type(error).__name__,
                    )
                failures += 1
                self.stopped.wait(RECONNECT_SECONDS[min(failures, len(RECONNECT_SECONDS)) - 1])

    def _heard(self, tell: Tell, feed_id: str | None) -> None:
        """A signal; the first of each run (``None``: listening now) ends a loss."""
        if feed_id is None and self.lost_since is not None:
            log.info("listener for game changes listens again after %.0f s", self.clock() - self.lost_since)
            self.lost_since = None
        _call(tell, feed_id)

    @property
    def listening(self) -> bool:
        """Whether this process hears the changes: started, and not lost."""
        return self._thread is not None and self.lost_since is None


def _call(tell: Tell, feed_id: str | None) -> None:
    try:
        tell(feed_id)
    except Exception:  # one bad signal must not stop the listener
        log.exception("a game-change listener failed")


class InProcessChannel:
    """For a database only this process can see (in-memory SQLite): the writer tells its own process."""

    def __init__(self) -> None:
        self._tell: Tell | None = None

    def signal(self, feed_ids: tuple[str, ...], connection: Any) -> None:
        if self._tell is not None:
            for feed_id in feed_ids:
                _call(self._tell, feed_id)

    def listen(self, tell: Tell) -> None:
        self._tell = tell

    def close(self) -> None:
        self._tell = None

    @property
    def listening(self) -> bool:
        return self._tell is not None


class SqliteFileChannel:
    """The processes of one host on one SQLite file: each looks at ``PRAGMA data_version``."""

    def __init__(self, database: Path) -> None:
        self.database = database
        self._listener = _Listener("coins-sqlite-changes", self._watch)

    def signal(self, feed_ids: tuple[str, ...], connection: Any) -> None:
        if self._listener.tell is not None:  # this process hears at once; the others look
            for feed_id in feed_ids:
                _call(self._listener.tell, feed_id)

    def listen(self, tell: Tell) -> None:
        self._listener.start(tell)

    def close(self) -> None:
        self._listener.stopped.set()

    @property
    def listening(self) -> bool:
        return self._listener.listening

    def _watch(self, tell: Tell, stopped: threading.Event) -> None:
        connection = sqlite3.connect(self.database, timeout=1.0, check_same_thread=False)
        try:
            seen = connection.execute("PRAGMA data_version").fetchone()[0]
            tell(None)  # looking now: what was saved before is read again
            while not stopped.wait(SQLITE_POLL_SECONDS):
                version = connection.execute("PRAGMA data_version").fetchone()[0]
                if version != seen:
                    seen = version
                    tell(None)  # which game is not said: every watched game is read again
        finally:
            connection.close()


class PostgresChannel:
    """Between every process of every instance on one PostgreSQL: LISTEN/NOTIFY on one channel."""

    def __init__(self, conninfo: str) -> None:
        """``conninfo``: where this process's listener connects (a libpq URL)."""
        self.conninfo = conninfo
        self.backend_pid = 0  # the listener's server process, once it listens
        self._listener = _Listener("coins-postgres-changes", self._listen)

    def signal(self, feed_ids: tuple[str, ...], connection: Any) -> None:
        # One statement, so one round trip and one transaction, however many feeds: a notification each.
        connection.execute(
            "SELECT pg_notify(%s, feed_id) FROM unnest(%s::text[]) AS feed_id", (CHANNEL, list(feed_ids))
        )

    def listen(self, tell: Tell) -> None:
        self._listener.start(tell)

    def close(self) -> None:
        self._listener.stopped.set()

    @property
    def listening(self) -> bool:
        return self._listener.listening

    def _listen(self, tell: Tell, stopped: threading.Event) -> None:
        with psycopg.connect(self.conninfo, autocommit=True, connect_timeout=3) as connection:
            connection.execute(f"LISTEN {CHANNEL}")
            self.backend_pid = connection.info.backend_pid
            tell(None)  # listening now: anything saved before was not heard
            while not stopped.is_set():
                for notify in connection.notifies(timeout=WAIT_SECONDS):
                    tell(notify.payload)
                    if stopped.is_set():
                        break


class RedisChannel:
    """Between every process of every instance that shares one Redis: PUBLISH/SUBSCRIBE on one channel."""

    def __init__(self, url: str) -> None:
        self._client = redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3)
        self._url = url
        self._listener = _Listener("coins-redis-changes", self._listen)

    def signal(self, feed_ids: tuple[str, ...], connection: Any) -> None:
        with self._client.pipeline(transaction=False) as pipeline:  # one round trip
            for feed_id in feed_ids:
                pipeline.publish(CHANNEL, feed_id)
            pipeline.execute()

    def listen(self, tell: Tell) -> None:
        self._listener.start(tell)

    def close(self) -> None:
        self._listener.stopped.set()

    @property
    def listening(self) -> bool:
        return self._listener.listening

    def _listen(self, tell: Tell, stopped: threading.Event) -> None:
        client = redis.Redis.from_url(self._url, socket_connect_timeout=3, socket_timeout=WAIT_SECONDS + 5)
        subscription = client.pubsub(ignore_subscribe_messages=True)  # type: ignore[no-untyped-call]
        try:
            subscription.subscribe(CHANNEL)
            tell(None)
            while not stopped.is_set():
                message = subscription.get_message(timeout=WAIT_SECONDS)
                if message is not None and message["type"] == "message":
                    tell(message["data"].decode(errors="replace"))
        finally:
            subscription.close()
            client.close()
