"""One thread per process writes the events of every stream it serves straight to the streams' sockets.

Why: with each stream's own thread writing its events, every event woke every thread streaming
its game (20 per play in the benchmark), and those wake-ups, not the writes, cost the plays more
than half their throughput (docs/benchmarks.md, "Live events"). Here a stream's thread sends the
headers and the first events through the server as usual, then hands its socket to this writer
and sleeps until the stream ends. The hub tells the writer which games' caches have news; the
writer takes each of their streams' events and sends them without blocking, one thread for all,
keeping what a slow client has not yet taken until its socket can take more.

Only where it is safe: gunicorn's plain TCP socket (``environ["gunicorn.socket"]``) on HTTP/1.1,
whose response gunicorn frames in chunks, so the writer frames its writes the same way and the
stream's thread ends the response through gunicorn. Anywhere else (TLS in gunicorn, HTTP/1.0 or
HTTP/2, another server, Flask's test client) the stream's thread writes its events itself.
"""

from __future__ import annotations

import contextlib
import logging
import os
import selectors
import socket
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..events import Hub, Item, Reader

__all__ = ["StreamWriter", "writable_socket"]

log = logging.getLogger(__name__)

MAX_PENDING_BYTES = 1 << 20  # a client this far behind is cut off; it resumes with Last-Event-ID
SWEEP_SECONDS = 1.0  # how often the writer looks for streams owed a heartbeat
KEEP_ALIVE = ": keep-alive\n\n"

#: An event's frame, as the stream sends it.
Frame = Callable[[Item], str]


def writable_socket(environ: Mapping[str, Any]) -> socket.socket | None:
    """The client's socket, when the writer may take the response over: see the module's docstring."""
    sock = environ.get("gunicorn.socket")
    plain = type(sock) is socket.socket and sock.type == socket.SOCK_STREAM
    return (
        sock
        if plain and environ.get("SERVER_PROTOCOL") == "HTTP/1.1" and environ.get("REQUEST_METHOD") == "GET"
        else None
    )


class _Stream:
    """One handed-over stream: its socket, its reader, and the bytes its client has not taken yet."""

    __slots__ = ("done", "ending", "last_event", "last_write", "pending", "reader", "sock", "watched")

    def __init__(self, sock: socket.socket, reader: Reader) -> None:
        self.sock = sock
        self.reader = reader
        self.pending = b""
        self.ending = False  # everything is sent once pending is: then the stream is done
        self.watched = False  # the writer waits for the socket to take more
        self.last_write = self.last_event = time.monotonic()
        self.done = threading.Event()


class StreamWriter:
    """The writer of one process (started with its first stream, anew in a forked worker)."""

    def __init__(self, hub: Hub, frame: Frame, *, heartbeat: float) -> None:
        self._frame = frame
        self.heartbeat = heartbeat
        self._lock = threading.Lock()
        self._added: list[_Stream] = []  # handed over, not yet seen by the writer
        self._changed: set[str] = set()  # games whose caches have news
        self._closing = False
        self._pid = 0
        self._wake_out: socket.socket | None = None
        self._by_game: dict[str, set[_Stream]] = {}  # the writer thread's own
        hub.subscribe(self._tell)

    def serve(self, sock: socket.socket, reader: Reader) -> None:
        """Have the writer send ``reader``'s events to ``sock`` from now on; return when the stream
        has ended (the game finished and was sent, the client went, or the process is stopping).
        Meanwhile this thread does what an idle reader must: it reads the game now and then, which
        makes the moves a game of bots is owed (see :meth:`.EventFeed.look_at`)."""
        stream = _Stream(sock, reader)
        with self._lock:
            if self._closing:
                return
            self._start()
            self._added.append(stream)
        self._wake()
        while not stream.done.wait(reader.pace):
            if reader.owed or time.monotonic() - stream.last_event >= self.heartbeat:
                reader.look_at()

    def _tell(self, game_ids: list[str] | None) -> None:
        """From the hub's reader: these games' caches have news (``None``: the hub is closing)."""
        with self._lock:
            if self._pid != os.getpid():
                return  # no stream handed over in this process
            if game_ids is None:
                self._closing = True
            else:
                self._changed.update(game_ids)
        self._wake()

    def _start(self) -> None:
        if self._pid == os.getpid():
            return
        self._pid = os.getpid()
        wake_in, self._wake_out = socket.socketpair()
        wake_in.setblocking(False)
        self._by_game = {}
        threading.Thread(target=self._run, args=(wake_in,), name="coins-stream-writer", daemon=True).start()

    def _wake(self) -> None:
        with contextlib.suppress(BlockingIOError):  # full: the writer has a wake-up waiting already
            if self._wake_out is not None:
                self._wake_out.send(b"!", socket.MSG_DONTWAIT)

    def _run(self, wake_in: socket.socket) -> None:
        selector = selectors.DefaultSelector()
        selector.register(wake_in, selectors.EVENT_READ)
        next_sweep = time.monotonic() + SWEEP_SECONDS
        while True:
            try:
                if not self._turn(selector, wake_in, max(next_sweep - time.monotonic(), 0.0)):
                    return  # the process is stopping
                if time.monotonic() >= next_sweep:
                    self._sweep(selector)
                    next_sweep = time.monotonic() + SWEEP_SECONDS
            except Exception:  # a bug: log it and go on, rather than leave every stream hanging
                log.exception("the stream writer failed a turn")

    def _turn(self, selector: selectors.BaseSelector, wake_in: socket.socket, timeout: float) -> bool:
        """Wait up to ``timeout`` for news or for sockets that can take more, then send; False once
        the process is stopping (every stream then ended)."""
        for key, _ in selector.select(timeout):
            if key.fileobj is wake_in:
                _drain(wake_in)
            else:
                self._flush(key.data, selector)
        with self._lock:
            added, self._added = self._added, []
            changed, self._changed = self._changed, set()
            closing = self._closing
        for stream in added:  # its first events went out through the server; take what followed
            self._by_game.setdefault(stream.reader.game_id, set()).add(stream)
            changed.add(stream.reader.game_id)
        if closing:
            for stream in [stream for streams in self._by_game.values() for stream in streams]:
                self._end(stream, selector, cut=True)  # the clients resume at another worker
            return False
        for game_id in changed:
            for stream in list(self._by_game.get(game_id, ())):
                self._send_news(stream, selector)
        return True

    def _send_news(self, stream: _Stream, selector: selectors.BaseSelector) -> None:
        if stream.ending:
            return
        try:
            items = stream.reader.take()
        except Exception as error:  # the database is away (a reader far behind reads it): resume later
            log.warning("a stream could not take its events: %s", type(error).__name__)
            self._end(stream, selector, cut=True)
            return
        if items:
            stream.last_event = time.monotonic()
            self._send(stream, "".join(self._frame(item) for item in items), selector)
        if stream.reader.finished:
            stream.ending = True
            if not stream.pending:
                self._end(stream, selector)

    def _sweep(self, selector: selectors.BaseSelector) -> None:
        """A comment on every stream quiet for a heartbeat (which also finds clients that left), and
        the hub asked to read its game again, in case a notification was lost."""
        quiet_since = time.monotonic() - self.heartbeat
        for stream in [stream for streams in self._by_game.values() for stream in streams]:
            if not stream.ending and stream.last_write <= quiet_since:
                stream.reader.ask()
                self._send(stream, KEEP_ALIVE, selector)

    def _send(self, stream: _Stream, text: str, selector: selectors.BaseSelector) -> None:
        data = text.encode()
        stream.pending += b"%X\r\n%s\r\n" % (len(data), data)  # one HTTP/1.1 chunk, as gunicorn frames them
        stream.last_write = time.monotonic()
        self._flush(stream, selector)

    def _flush(self, stream: _Stream, selector: selectors.BaseSelector) -> None:
        try:
            sent = stream.sock.send(stream.pending, socket.MSG_DONTWAIT)
        except BlockingIOError:
            sent = 0
        except OSError:  # the client went
            self._end(stream, selector, cut=True)
            return
        stream.pending = stream.pending[sent:]
        if len(stream.pending) > MAX_PENDING_BYTES:
            log.info("cut off a stream whose client fell %d bytes behind", len(stream.pending))
            self._end(stream, selector, cut=True)
        elif stream.pending and not stream.watched:
            selector.register(stream.sock, selectors.EVENT_WRITE, stream)
            stream.watched = True
        elif not stream.pending:
            if stream.watched:
                selector.unregister(stream.sock)
                stream.watched = False
            if stream.ending:
                self._end(stream, selector)

    def _end(self, stream: _Stream, selector: selectors.BaseSelector, *, cut: bool = False) -> None:
        """Give the stream back to its thread, which ends the response. ``cut``: the client went or
        must go; the connection is shut, so nothing more is written to it."""
        streams = self._by_game.get(stream.reader.game_id)
        if streams is not None:
            streams.discard(stream)
            if not streams:
                del self._by_game[stream.reader.game_id]
        if stream.watched:
            selector.unregister(stream.sock)
            stream.watched = False
        if cut:
            with contextlib.suppress(OSError):
                stream.sock.shutdown(socket.SHUT_RDWR)
        stream.done.set()


def _drain(wake_in: socket.socket) -> None:
    with contextlib.suppress(BlockingIOError):
        while wake_in.recv(4096):
            pass
