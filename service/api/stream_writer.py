"""The events of every stream a process serves, written straight to the streams' sockets by the event hub's thread.

Why: with each stream's own thread writing its events, every event woke every thread streaming
its game (20 per play in the benchmark), and those wake-ups, not the writes, cost the plays more
than half their throughput (docs/benchmarks.md, "Live events"). Here a stream's socket, once its
headers and first events went out through the server, is given to this writer (in the stream
process, service.api.stream_process, which gunicorn's workers hand their streams to). The writer
lives on the hub's event loop (service.events.hub), the one thread that also hears the
notifications and reads the changed games: told which games' caches have news, it takes each of
their streams' events and sends them without blocking, keeping what a slow client has not yet
taken until its socket (then one of the loop's writers) can take more. No thread hands a change
on to another. It also does what an idle reader must: it has the game read now and then, on a
small pool of threads, which makes the moves a game of bots is owed (see
:meth:`.EventFeed.look_at`).

Only where it is safe: gunicorn's plain TCP socket (``environ["gunicorn.socket"]``) on HTTP/1.1,
whose response gunicorn frames in chunks, so the writer frames its writes the same way and the
worker ends the response through gunicorn when the writer is done. Anywhere else (TLS in
gunicorn, HTTP/1.0 or HTTP/2, another server, Flask's test client) the stream's thread writes its
events itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..events import Hub, Item, Reader

__all__ = ["StreamWriter", "writable_socket"]

log = logging.getLogger(__name__)

MAX_PENDING_BYTES = 1 << 20  # a client this far behind is cut off; it resumes with Last-Event-ID
SWEEP_SECONDS = 0.25  # how often the writer looks for streams owed a heartbeat, or games owed a read
LOOKERS = 2  # threads that read games for their idle streams (a read may make a bot's moves: it may wait)
KEEP_ALIVE = ": keep-alive\n\n"

#: An event's frame, as the stream sends it.
Frame = Callable[[Item], str]
#: Called once, on the writer's thread, when a stream has ended: ``cut`` if its connection was shut
#: (the client went, fell behind or must reconnect), else its events are all sent and the server
#: ends the response.
Ended = Callable[[bool], None]


def writable_socket(environ: Mapping[str, Any]) -> socket.socket | None:
    """The client's socket, when the writer may take the response over: see the module's docstring."""
    sock = environ.get("gunicorn.socket")
    plain = type(sock) is socket.socket and sock.type == socket.SOCK_STREAM
    return (
        sock
        if plain and environ.get("SERVER_PROTOCOL") == "HTTP/1.1" and environ.get("REQUEST_METHOD") == "GET"
        else None
    )


def _chunk(text: str) -> bytes:
    """``text`` as one HTTP/1.1 chunk, as gunicorn frames them."""
    data = text.encode()
    return b"%X\r\n%s\r\n" % (len(data), data)


_KEEP_ALIVE_CHUNK = _chunk(KEEP_ALIVE)


class _Stream:
    """One handed-over stream: its socket, its reader, and the bytes its client has not taken yet."""

    __slots__ = ("ended", "ending", "last_event", "last_write", "pending", "reader", "sock", "watched")

    def __init__(self, sock: socket.socket, reader: Reader, ended: Ended) -> None:
        self.sock = sock
        self.reader = reader
        self.ended: Ended | None = ended  # None once called
        self.pending = b""
        self.ending = False  # everything is sent once pending is: then the stream is done
        self.watched = False  # the writer waits for the socket to take more
        self.last_write = self.last_event = time.monotonic()


class StreamWriter:
    """The writer of one process: callbacks on its hub's event loop, which holds every stream's state."""

    def __init__(self, hub: Hub, frame: Frame, *, heartbeat: float) -> None:
        self._hub = hub
        self._frame = frame
        self.heartbeat = heartbeat
        self._by_game: dict[str, set[_Stream]] = {}  # the hub thread's own, as everything below serve
        self._closing = False
        self._sweeping = False  # a sweep is due on the loop
        self._looking: set[str] = set()  # games being read for their idle streams
        self._chunks: dict[tuple[str, int, int, int], bytes] = {}  # news framed once for all its streams
        self._lookers = ThreadPoolExecutor(LOOKERS, thread_name_prefix="coins-look")
        hub.subscribe(self._tell)

    def add(self, sock: socket.socket, reader: Reader, ended: Ended) -> _Stream:
        """On the hub's thread: send ``reader``'s events to ``sock`` from now on (its first events
        went out through the server) until the stream ends, then call ``ended``."""
        stream = _Stream(sock, reader, ended)
        if self._closing:
            self._end(stream, cut=True)
            return stream
        self._by_game.setdefault(reader.game_id, set()).add(stream)
        # A stream's client says nothing after its request: its socket turns readable when it goes
        # (or sends what no stream expects), and the stream ends then, not at its next write.
        asyncio.get_running_loop().add_reader(sock, self._client_spoke, stream)
        if not self._sweeping:
            self._sweeping = True
            asyncio.get_running_loop().call_later(SWEEP_SECONDS, self._sweep)
        self._turn(self._send_news, stream)
        return stream

    def end(self, stream: _Stream) -> None:
        """On the hub's thread: end ``stream`` now (its server is stopping): once what it was sent
        has gone out, or cut off if its client is behind."""
        if stream.ended is not None:
            self._end(stream, cut=bool(stream.pending))

    def _tell(self, game_ids: list[str] | None) -> None:
        """From the hub, on its thread: these games' caches have news (``None``: the hub is closing:
        every stream ends, and its client resumes at another worker)."""
        if game_ids is None:
            self._closing = True
            for stream in [stream for streams in self._by_game.values() for stream in streams]:
                self._end(stream, cut=True)
            return
        for game_id in game_ids:
            # Streams of the game at the same place with the same seat (every spectator, as a
            # rule) see the same news: one takes it and the others go where it went.
            taken: dict[tuple[int, int | None], Reader] = {}
            for stream in list(self._by_game.get(game_id, ())):
                reader = stream.reader
                place = (reader.position, reader.seat)
                if place in taken:
                    self._turn(self._send_news, stream, taken[place])
                elif self._turn(self._send_news, stream):
                    taken[place] = reader
        self._chunks.clear()  # an event's text never changes: this only bounds the memory

    def _turn(self, step: Callable[..., bool | None], stream: _Stream, *args: Any) -> bool:
        """``step(stream, *args)``; False if it failed (or said so)."""
        try:
            return step(stream, *args) is not False
        except Exception:  # a bug: log it and go on, rather than leave every stream hanging
            log.exception("the stream writer failed a turn")
            return False

    def _send_news(self, stream: _Stream, like: Reader | None = None) -> bool:
        """Send what ``stream``'s reader has not yet taken (``like``: what that reader, at the same
        place and seat, just took); False if it could not take it."""
        if stream.ending:
            return False
        try:
            items = stream.reader.take() if like is None else stream.reader.take_as(like)
        except Exception as error:  # the database is away (a reader far behind reads it): resume later
            log.warning("a stream could not take its events: %s", type(error).__name__)
            self._end(stream, cut=True)
            return False
        if items:
            stream.last_event = time.monotonic()
            key = (stream.reader.game_id, items[0].id, items[-1].id, len(items))  # the same events, the same bytes
            chunk = self._chunks.get(key)
            if chunk is None:
                chunk = self._chunks[key] = _chunk("".join(self._frame(item) for item in items))
            self._send(stream, chunk)
        if stream.reader.finished:
            stream.ending = True
            if not stream.pending:
                self._end(stream)
        return True

    def _sweep(self) -> None:
        """Every :data:`SWEEP_SECONDS` while there are streams: a comment on every stream quiet for a
        heartbeat (which also finds clients that left), and the hub asked to read its game again, in
        case a notification was lost; and each game whose streams are idle long enough (its reader's
        :attr:`~.Reader.pace`) read as a request would, on one of the writer's threads."""
        loop, now = asyncio.get_running_loop(), time.monotonic()
        quiet_since = now - self.heartbeat
        for game_id, streams in list(self._by_game.items()):
            idle = True
            for stream in list(streams):
                if not stream.ending and stream.last_write <= quiet_since:
                    stream.reader.ask()
                    self._turn(self._send_keep_alive, stream)
                idle = idle and now - stream.last_event >= stream.reader.pace
            if idle and streams and game_id not in self._looking:
                self._looking.add(game_id)
                reader = next(iter(streams)).reader
                self._lookers.submit(self._look_at, reader, loop)
        self._sweeping = bool(self._by_game) and not self._closing
        if self._sweeping:
            loop.call_later(SWEEP_SECONDS, self._sweep)

    def _look_at(self, reader: Reader, loop: asyncio.AbstractEventLoop) -> None:
        """On one of the writer's threads."""
        try:
            reader.look_at()
        except Exception as error:  # the database is away: the next sweep tries again
            log.warning("could not read a game for its idle streams: %s", type(error).__name__)
        finally:
            with contextlib.suppress(RuntimeError):  # the loop is closed: the process is stopping
                loop.call_soon_threadsafe(self._looking.discard, reader.game_id)

    def _client_spoke(self, stream: _Stream) -> None:
        """The client closed its end, or sent something: either way, the stream ends (cut)."""
        self._end(stream, cut=True)

    def _send_keep_alive(self, stream: _Stream) -> None:
        self._send(stream, _KEEP_ALIVE_CHUNK)

    def _send(self, stream: _Stream, chunk: bytes) -> None:
        stream.pending += chunk
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
        """The stream has ended: tell whoever handed it over (the response is theirs to end). ``cut``:
        the client went or must go; the connection is shut, so nothing more is written to it."""
        if stream.ended is None:  # ended already (its socket may be closed)
            return
        streams = self._by_game.get(stream.reader.game_id)
        if streams is not None:
            streams.discard(stream)
            if not streams:
                del self._by_game[stream.reader.game_id]
        loop = asyncio.get_running_loop()
        loop.remove_reader(stream.sock)
        if stream.watched:
            loop.remove_writer(stream.sock)
            stream.watched = False
        if cut:
            with contextlib.suppress(OSError):
                stream.sock.shutdown(socket.SHUT_RDWR)
        ended, stream.ended = stream.ended, None
        if ended is not None:
            ended(cut)
