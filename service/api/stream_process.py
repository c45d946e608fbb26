"""The stream process: one per instance, it serves every open stream's events after the first ones.

gunicorn runs it as a "dirty" worker (``dirty_apps`` in gunicorn.conf.py): the master starts it
with the workers, starts it again if it dies, and stops it on SIGTERM. It builds the application
as a worker does (the same settings, store and feed), listens on a Unix socket
(``STREAM_PROCESS_SOCKET``) for the streams the workers hand over (:mod:`.stream_relay` has the
exchange) and serves them with the :class:`.StreamWriter` on its event hub's thread: every change
of a game costs one notification, one read and one write per stream, here, whichever worker took
the stream. Nothing of a game is kept here that the database does not hold: a stream process that
restarts loses only its connections, whose clients resume with ``Last-Event-ID``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import resource
import socket
import threading
from typing import Any

from gunicorn.dirty.app import DirtyApp

from ..events import EventFeed, StreamsFull
from .stream_relay import Answer
from .stream_writer import StreamWriter

__all__ = ["StreamProcess", "StreamServer"]

log = logging.getLogger(__name__)

BACKLOG = 1024  # streams handed over at once (a burst of reconnects) before workers wait
CLOSE_SECONDS = 5.0  # on SIGTERM, how long the streams get to be told they end
PARENT_CHECK_SECONDS = 1.0


class StreamServer:
    """Takes the streams handed over at ``path`` and has ``writer`` serve them, on the loop of ``feed``'s hub."""

    def __init__(self, path: str, feed: EventFeed, writer: StreamWriter) -> None:
        self._path = path
        self._parent = 0  # see watch_parent
        self._feed = feed
        self._writer = writer
        self._listener: socket.socket | None = None
        self._inode = 0  # of the socket's file, once bound

    def start(self) -> None:
        """Listen (from any thread): the streams are taken on the hub's thread from now on."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._path)  # a stream process that died left it
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        listener.bind(self._path)
        os.chmod(self._path, 0o600)  # a stream handed over names its seat, and is believed: this user only
        self._inode = os.stat(self._path).st_ino
        listener.listen(BACKLOG)
        listener.setblocking(False)
        self._listener = listener
        loop = self._feed.hub.loop()
        loop.call_soon_threadsafe(loop.add_reader, listener, self._accept)

    def watch_parent(self, parent: int) -> None:
        """From now on, stop if ``parent`` (gunicorn's dirty arbiter, which stops this process) is gone."""
        self._parent = parent
        self._feed.hub.loop().call_soon_threadsafe(self._watch_parent)

    def _watch_parent(self) -> None:
        """gunicorn's dirty arbiter, this process's parent, stops it; if the arbiter was killed
        instead, nothing would: this process ends its streams and exits rather than outlive its
        instance (the master starts another arbiter, and that another stream process)."""
        if os.getppid() != self._parent:
            log.warning("the stream process's parent is gone: it stops")
            threading.Thread(target=self._exit, name="coins-stream-process-exit").start()
            return
        if self._listener is not None:
            asyncio.get_running_loop().call_later(PARENT_CHECK_SECONDS, self._watch_parent)

    def _exit(self) -> None:
        self.stop()
        os._exit(0)  # no parent to tell: gunicorn's way out goes through the arbiter

    def stop(self) -> None:
        """Stop taking streams and end those being served (their workers are told ``cut``)."""
        listener, self._listener = self._listener, None
        if listener is None:
            return
        done = threading.Event()
        loop = self._feed.hub.loop()

        def stop_on_loop() -> None:
            loop.remove_reader(listener)
            listener.close()
            done.set()

        loop.call_soon_threadsafe(stop_on_loop)
        done.wait(CLOSE_SECONDS)
        self._feed.close()  # the writer ends every stream on the hub's thread
        ended = threading.Event()
        loop.call_soon_threadsafe(ended.set)  # after the writer's turn
        ended.wait(CLOSE_SECONDS)
        with contextlib.suppress(FileNotFoundError):
            if os.stat(self._path).st_ino == self._inode:  # not yet the socket of the process that replaces this one
                os.unlink(self._path)

    def _accept(self) -> None:
        loop = asyncio.get_running_loop()
        while self._listener is not None:
            try:
                link, _ = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:  # out of descriptors, say: the workers stream themselves
                log.warning("the stream process could not take a stream: %s", type(error).__name__)
                return
            link.setblocking(False)
            loop.add_reader(link, self._take, link)

    def _take(self, link: socket.socket) -> None:
        """A worker's message: the stream's place and its socket."""
        loop = asyncio.get_running_loop()
        loop.remove_reader(link)
        try:
            message, fds, _, _ = socket.recv_fds(link, Answer.MAX_MESSAGE, 1)
        except (BlockingIOError, InterruptedError):
            loop.add_reader(link, self._take, link)
            return
        except OSError:
            link.close()
            return
        if not fds:  # the worker went before it said anything
            link.close()
            return
        sock = socket.socket(fileno=fds[0])
        opened = contextlib.ExitStack()
        try:
            place = json.loads(message)
            reader = opened.enter_context(
                self._feed.follow(place["game"], place["seat"], after=int(place["after"]), owed=bool(place["owed"]))
            )
        except (StreamsFull, ValueError, KeyError, TypeError) as error:
            log.warning("the stream process gave a stream back: %s", type(error).__name__)
            opened.close()
            sock.close()  # this process's copy only: the worker's goes on
            _answer(link, Answer.BACK)
            return

        def ended(cut: bool) -> None:
            loop.remove_reader(link)
            opened.close()
            sock.close()  # this process's copy: the worker's ends the response (or is shut, if cut)
            _answer(link, Answer.CUT if cut else Answer.DONE)

        stream = self._writer.add(sock, reader, ended)
        if stream.ended is not None:  # still being served: the worker may end it (it is stopping, or gone)
            loop.add_reader(link, self._writer.end, stream)


def _answer(link: socket.socket, word: bytes) -> None:
    with contextlib.suppress(OSError):
        link.send(word, socket.MSG_DONTWAIT)  # the link's buffer is empty: one small message fits
    link.close()


class StreamProcess(DirtyApp):  # type: ignore[misc]  # gunicorn is not typed
    """The stream process as gunicorn's dirty worker runs it (``dirty_apps`` in gunicorn.conf.py,
    which asks for one per instance: every stream of the instance in one place)."""

    def __init__(self) -> None:
        self._server: StreamServer | None = None

    def init(self) -> None:
        from .. import create_app  # the whole application, as a worker builds it
        from .events import FEED_EXTENSION, frame

        app = create_app()
        settings = app.config["COINS_SETTINGS"]
        if not settings.stream_process_socket:
            log.warning("STREAM_PROCESS_SOCKET is not set: the workers stream themselves")
            return
        _allow_descriptors()
        feed: EventFeed = app.extensions[FEED_EXTENSION]
        feed.hub.max_streams = 1 << 30  # each worker bounds its own (STREAMS_PER_WORKER)
        writer = StreamWriter(feed.hub, frame, heartbeat=feed.idle_seconds)
        self._server = StreamServer(settings.stream_process_socket, feed, writer)
        self._server.start()
        log.info("the stream process serves streams at %s", settings.stream_process_socket)

    def __call__(self, action: str, *args: Any, **kwargs: Any) -> Any:
        raise ValueError("the stream process takes no calls: workers hand streams over on its own socket")

    def watch_parent(self, parent: int) -> None:
        """Called by gunicorn.conf.py's ``dirty_worker_init`` with the arbiter's pid as gunicorn
        noted it before the fork (it may have been killed since)."""
        if self._server is not None:
            self._server.watch_parent(parent)

    def close(self) -> None:
        if self._server is not None:
            self._server.stop()


def _allow_descriptors() -> None:
    """Two descriptors per stream (its socket and its worker's link): as many as the hard limit allows."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
