""" "Game X changed", told to every process that serves the game's feed, after the change commits.

A notification carries only the game's id: the events themselves are read from the database.
Each process listens on one channel (one listener connection or socket per process, not per
stream) and hands each game id to a callback; ``None`` means "anything may have changed" (the
listener was cut off and is back), so every watched game is read again. The listener has no
thread of its own: its connection or socket is one of the readers of an event loop the caller
runs (the event hub's thread, service.events.hub), which reads whatever has come, without blocking,
when it can be read.

- PostgreSQL: ``LISTEN``/``NOTIFY`` on one channel. The ``NOTIFY`` is its own statement, sent
  in autocommit after the game's write has committed, never inside that write's transaction:
  a transaction that notifies takes a database-wide lock when it commits, which would make
  every writer wait for every other.
- SQLite (one host): a Unix datagram socket per process in a folder named for the database
  (under the temporary directory: a socket's path must stay short); a writer sends the id to
  each socket there. A socket whose process is gone refuses the datagram and is removed. A
  socket still full after a short wait (its process is busy) misses that one; the next datagram
  this process sends it is first "read everything" (``*``), so its streams are late, not stale.
- An in-memory SQLite database lives in one process: a callback list in memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import secrets
import socket
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import psycopg

__all__ = ["InProcessNotifications", "Notifications", "PostgresNotifications", "SocketNotifications"]

log = logging.getLogger(__name__)

Listener = Callable[[str | None], None]
CHANNEL = "coins_games"
EVERYTHING = b"*"  # a datagram for "anything may have changed": the listener missed one
SEND_WAIT_SECONDS = 0.05  # how long a writer waits for room in a listener's full socket
RECONNECT_SECONDS = (0.1, 0.5, 1.0, 2.0, 5.0)  # waits between attempts to listen again, then the last


class Notifications(Protocol):
    """Tells other processes that a game changed, and hears when one did."""

    def publish(self, game_id: str, connection: Any) -> None:
        """Say that ``game_id`` changed (its write has committed); ``connection`` is the writer's
        driver connection, in autocommit, for a database that notifies through it."""

    def listen(self, listener: Listener, loop: asyncio.AbstractEventLoop) -> None:
        """Call ``listener`` with each changed game's id from now on, on ``loop``'s thread (the loop
        of the first listener of the process also reads the notifications)."""

    def close(self) -> None:
        """Stop listening."""


class _Listeners:
    """The callbacks of one process, each with its loop; listening starts with the first, on its loop."""

    def __init__(self, start: Callable[[asyncio.AbstractEventLoop], None]) -> None:
        self._start = start
        self._callbacks: list[tuple[Listener, asyncio.AbstractEventLoop]] = []
        self._lock = threading.Lock()
        self._pid = 0
        self.loop: asyncio.AbstractEventLoop | None = None  # where the notifications are read

    def add(self, listener: Listener, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            if self._pid != os.getpid():  # first use in this process (a forked worker, say)
                self._callbacks, self._pid, self.loop = [], os.getpid(), loop
                self._start(loop)
            self._callbacks.append((listener, loop))

    def tell(self, game_id: str | None) -> None:
        """From the listening loop's thread (or, in process, any): each callback on its own loop."""
        for callback, loop in list(self._callbacks):
            if loop is not self.loop:
                loop.call_soon_threadsafe(_call, callback, game_id)
            else:
                _call(callback, game_id)


def _call(callback: Listener, game_id: str | None) -> None:
    try:
        callback(game_id)
    except Exception:  # one listener's bug must not stop the others hearing
        log.exception("event listener failed")


class InProcessNotifications:
    """For a database only this process can see (in-memory SQLite)."""

    def __init__(self) -> None:
        self._listeners = _Listeners(lambda loop: None)

    def publish(self, game_id: str, connection: Any) -> None:
        loop = self._listeners.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._listeners.tell, game_id)

    def listen(self, listener: Listener, loop: asyncio.AbstractEventLoop) -> None:
        self._listeners.add(listener, loop)

    def close(self) -> None:
        return None


class SocketNotifications:
    """Between the processes of one host that use the SQLite file ``database``, through datagram sockets."""

    def __init__(self, database: Path) -> None:
        key = hashlib.sha256(str(database.resolve()).encode()).hexdigest()[:16]
        self.folder = Path(tempfile.gettempdir()) / f"coins-events-{key}"
        self._listeners = _Listeners(self._start)
        self._socket: socket.socket | None = None
        self._path: Path | None = None
        self._sender: socket.socket | None = None
        self._sender_pid = 0
        self._missed: set[str] = set()  # sockets that missed a datagram of this process's

    def publish(self, game_id: str, connection: Any) -> None:
        message = game_id.encode()
        sender = self._sending_socket()
        try:
            paths = list(self.folder.iterdir())
        except FileNotFoundError:  # nobody has listened yet
            return
        for path in paths:
            address = str(path)
            try:
                if address in self._missed:  # it missed one: first have it read everything
                    sender.sendto(EVERYTHING, address)
                    self._missed.discard(address)
                sender.sendto(message, address)
            except (ConnectionRefusedError, FileNotFoundError):  # its process is gone
                path.unlink(missing_ok=True)
                self._missed.discard(address)
            except (BlockingIOError, TimeoutError):  # still full after the wait
                if address not in self._missed:
                    log.warning("event socket %s is full; it will be told to read every game again", path.name)
                self._missed.add(address)
            except OSError as error:
                log.warning("event socket %s: %s", path.name, error)

    def listen(self, listener: Listener, loop: asyncio.AbstractEventLoop) -> None:
        self._listeners.add(listener, loop)

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None
        if self._path is not None:
            self._path.unlink(missing_ok=True)

    def _sending_socket(self) -> socket.socket:
        if self._sender is None or self._sender_pid != os.getpid():
            self._sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            # A Unix datagram socket queues a few datagrams only (net.unix.max_dgram_qlen, often 10),
            # whatever its buffer: a busy listener may lag behind a burst of writes. Wait a little
            # for room rather than drop at once (bench/events.py saw drops with 2,000 streams).
            self._sender.settimeout(SEND_WAIT_SECONDS)
            self._sender_pid, self._missed = os.getpid(), set()
        return self._sender

    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Bound at once (a write from now on reaches this process); read on ``loop``."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{os.getpid()}-{secrets.token_hex(4)}.sock"
        receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        # Room for bursts (every play of every game on the host): a full socket drops notifications.
        receiver.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        receiver.setblocking(False)
        receiver.bind(str(path))
        self._socket, self._path = receiver, path
        loop.call_soon_threadsafe(loop.add_reader, receiver, self._receive, receiver)

    def _receive(self, receiver: socket.socket) -> None:
        """Every datagram waiting, without blocking."""
        while True:
            try:
                message = receiver.recv(256)
            except BlockingIOError:
                return
            except OSError:  # closed
                with contextlib.suppress(Exception):
                    asyncio.get_running_loop().remove_reader(receiver)
                return
            self._listeners.tell(None if message == EVERYTHING else message.decode(errors="replace"))


class PostgresNotifications:
    """Between every process of every instance on one PostgreSQL: LISTEN/NOTIFY on one channel."""

    def __init__(self, conninfo: str) -> None:
        """``conninfo``: where this process's listener connects (a libpq URL)."""
        self.conninfo = conninfo
        self._listeners = _Listeners(self._start)
        self._closed = threading.Event()
        self._connection: psycopg.Connection[Any] | None = None
        self._socket = -1  # the connection's, as the loop knows it (libpq may close it when the connection fails)
        self._failures = 0

    def publish(self, game_id: str, connection: Any) -> None:
        connection.execute("SELECT pg_notify(%s, %s)", (CHANNEL, game_id))

    def listen(self, listener: Listener, loop: asyncio.AbstractEventLoop) -> None:
        self._listeners.add(listener, loop)

    def close(self) -> None:
        self._closed.set()
        loop = self._listeners.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._drop, None)

    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._connection, self._failures = None, 0  # a forked worker's own
        loop.call_soon_threadsafe(self._connect, loop)

    def _connect(self, loop: asyncio.AbstractEventLoop) -> None:
        """One connection that LISTENs, read by ``loop`` when its socket has data; after it dropped,
        tell every listener that anything may have changed while nobody heard."""
        if self._closed.is_set():
            return
        try:
            connection = psycopg.connect(self.conninfo, autocommit=True, connect_timeout=3)
            try:
                connection.execute(f"LISTEN {CHANNEL}")
                self._socket = connection.pgconn.socket
                loop.add_reader(self._socket, self._receive, connection)
            except BaseException:
                connection.close()
                raise
        except Exception as error:  # the server is away, or refused us: try again
            self._lost(loop, error)
            return
        self._connection = connection
        if self._failures:
            log.info("listening for game changes again")
            self._failures = 0
            self._listeners.tell(None)

    def _receive(self, connection: psycopg.Connection[Any]) -> None:
        """Every notification that has come, without blocking."""
        pgconn = connection.pgconn
        try:
            pgconn.consume_input()
            while (notify := pgconn.notifies()) is not None:
                self._listeners.tell(notify.extra.decode())
            if pgconn.status != psycopg.pq.ConnStatus.OK:
                raise psycopg.OperationalError("the listener's connection is lost")
        except Exception as error:  # the connection went
            self._drop(error)

    def _drop(self, error: Exception | None) -> None:
        """Close the connection (``error``: it failed, and a new one follows)."""
        connection, self._connection = self._connection, None
        loop = asyncio.get_running_loop()
        if connection is not None:
            loop.remove_reader(self._socket)
            with contextlib.suppress(Exception):
                connection.close()
        if error is not None:
            self._lost(loop, error)

    def _lost(self, loop: asyncio.AbstractEventLoop, error: Exception) -> None:
        if self._failures == 0:
            log.warning("listener for game changes lost: %s", type(error).__name__)
        self._failures += 1
        loop.call_later(RECONNECT_SECONDS[min(self._failures, len(RECONNECT_SECONDS)) - 1], self._connect, loop)
