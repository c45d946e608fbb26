"""The events of every stream a process serves, written straight to the streams' sockets by the event hub's thread.

Why: with each stream's own thread writing its events, every event woke every thread streaming
its game (20 per play in the benchmark), and those wake-ups, not the writes, cost the plays more
than half their throughput (docs/benchmarks.md, "Live events"). Here a stream's thread sends the
headers and the first events through the server as usual, then hands its socket to this writer
and sleeps until the stream ends. The writer lives on the hub's event loop (service.events.hub),
the one thread that also hears the notifications and reads the changed games: told which games'
caches have news, it takes each of their streams' events and sends them without blocking, keeping
what a slow client has not yet taken until its socket (then one of the loop's writers) can take
more. No thread hands a change on to another.

Only where it is safe: gunicorn's plain TCP socket (``environ["gunicorn.socket"]``) on HTTP/1.1,
whose response gunicorn frames in chunks, so the writer frames its writes the same way and the
stream's thread ends the response through gunicorn. Anywhere else (TLS in gunicorn, HTTP/1.0 or
HTTP/2, another server, Flask's test client) the stream's thread writes its events itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
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
    """The writer of one process: callbacks on its hub's event loop, which holds every stream's state."""

    def __init__(self, hub: Hub, frame: Frame, *, heartbeat: float) -> None:
        self._hub = hub
        self._frame = frame
        self.heartbeat = heartbeat
        self._by_game: dict[str, set[_Stream]] = {}  # the hub thread's own, as everything below serve
        self._closing = False
        self._sweeping = False  # a sweep is due on the loop
        hub.subscribe(self._tell)

    def serve(self, sock: socket.socket, reader: Reader) -> None:
        """Have the writer send ``reader``'s events to ``sock`` from now on; return when the stream
        has ended (the game finished and was sent, the client went, or the process is stopping).
        Meanwhile this thread does what an idle reader must: it reads the game now and then, which
        makes the moves a game of bots is owed (see :meth:`.EventFeed.look_at`)."""
        stream = _Stream(sock, reader)
        self._hub.loop().call_soon_threadsafe(self._add, stream)
        while not stream.done.wait(reader.pace):
            if reader.owed or time.monotonic() - stream.last_event >= self.heartbeat:
                reader.look_at()

    def _add(self, stream: _Stream) -> None:
        """A stream handed over: its first events went out through the server; send what followed."""
        loop = asyncio.get_running_loop()
        if self._closing:
            stream.done.set()
            return
        self._by_game.setdefault(stream.reader.game_id, set()).add(stream)
        if not self._sweeping:
            self._sweeping = True
            loop.call_later(SWEEP_SECONDS, self._sweep)
        self._turn(self._send_news, stream)

    def _tell(self, game_ids: list[str] | None) -> None:
        """From the hub, on its thread: these games' caches have news (``None``: the hub is closing:
        every stream ends, and its client resumes at another worker)."""
        if game_ids is None:
            self._closing = True
            for stream in [stream for streams in self._by_game.values() for stream in streams]:
                self._end(stream, cut=True)
            return
        for game_id in game_ids:
            for stream in list(self._by_game.get(game_id, ())):
                self._turn(self._send_news, stream)

    def _turn(self, step: Callable[[_Stream], None], stream: _Stream) -> None:
        try:
            step(stream)
        except Exception:  # a bug: log it and go on, rather than leave every stream hanging
            log.exception("the stream writer failed a turn")

    def _send_news(self, stream: _Stream) -> None:
        if stream.ending:
            return
        try:
            items = stream.reader.take()
        except Exception as error:  # the database is away (a reader far behind reads it): resume later
            log.warning("a stream could not take its events: %s", type(error).__name__)
            self._end(stream, cut=True)
            return
        if items:
            stream.last_event = time.monotonic()
            self._send(stream, "".join(self._frame(item) for item in items))
        if stream.reader.finished:
            stream.ending = True
            if not stream.pending:
                self._end(stream)

    def _sweep(self) -> None:
        """Every :data:`SWEEP_SECONDS` while there are streams: a comment on every stream quiet for a
        heartbeat (which also finds clients that left), and the hub asked to read its game again, in
        case a notification was lost."""
        quiet_since = time.monotonic() - self.heartbeat
        for stream in [stream for streams in self._by_game.values() for stream in streams]:
            if not stream.ending and stream.last_write <= quiet_since:
                stream.reader.ask()
                self._turn(self._send_keep_alive, stream)
        self._sweeping = bool(self._by_game) and not self._closing
        if self._sweeping:
            asyncio.get_running_loop().call_later(SWEEP_SECONDS, self._sweep)

    def _send_keep_alive(self, stream: _Stream) -> None:
        self._send(stream, KEEP_ALIVE)

    def _send(self, stream: _Stream, text: str) -> None:
        data = text.encode()
        stream.pending += b"%X\r\n%s\r\n" % (len(data), data)  # one HTTP/1.1 chunk, as gunicorn frames them
        stream.last_write = time.monotonic()
        self._flush(stream)

    def _flush(self, stream: _Stream) -> None:
        """Send what the client can take now; the rest when its socket can take more (the loop says)."""
        try:
            sent = stream.sock.send(stream.pending, socket.MSG_DONTWAIT)
        except BlockingIOError:
            sent = 0
        except OSError:  # the client went
            self._end(stream, cut=True)
            return
        stream.pending = stream.pending[sent:]
        if len(stream.pending) > MAX_PENDING_BYTES:
            log.info("cut off a stream whose client fell %d bytes behind", len(stream.pending))
            self._end(stream, cut=True)
        elif stream.pending and not stream.watched:
            asyncio.get_running_loop().add_writer(stream.sock, self._turn, self._flush, stream)
            stream.watched = True
        elif not stream.pending:
            if stream.watched:
                asyncio.get_running_loop().remove_writer(stream.sock)
                stream.watched = False
            if stream.ending:
                self._end(stream)

    def _end(self, stream: _Stream, *, cut: bool = False) -> None:
        """Give the stream back to its thread, which ends the response. ``cut``: the client went or
        must go; the connection is shut, so nothing more is written to it."""
        streams = self._by_game.get(stream.reader.game_id)
        if streams is not None:
            streams.discard(stream)
            if not streams:
                del self._by_game[stream.reader.game_id]
        if stream.watched:
            asyncio.get_running_loop().remove_writer(stream.sock)
            stream.watched = False
        if cut:
            with contextlib.suppress(OSError):
                stream.sock.shutdown(socket.SHUT_RDWR)
        stream.done.set()
