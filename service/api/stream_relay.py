"""A worker's side of the stream process: each stream's socket handed over once its first events are sent.

gunicorn's workers serve the requests; one process of the instance, the stream process
(:mod:`.stream_process`, a gunicorn "dirty" worker), serves every open stream's events after the
first ones. Why: every change of a game then costs one notification, one read and one write per
stream in that one process, instead of a notification and a read in every worker that holds one
of the game's streams, each taking the GIL from that worker's requests (docs/benchmarks.md, "Live
events", "A process for the streams").

A stream's thread, after the headers and the first events went out through gunicorn, connects to
the stream process's Unix socket (``STREAM_PROCESS_SOCKET``, one connection per stream, of type
``SOCK_SEQPACKET``), sends one message, the stream's place (game, seat, last event id sent, whether
the game waits on the server's moves) with the client's socket attached (``SCM_RIGHTS``), and sleeps
until the stream process answers with one word: ``done`` (the game is over and its events are
sent: the worker ends the response), ``cut`` (the client went, fell behind, or the stream process
is stopping: the connection is shut and the client reconnects with ``Last-Event-ID``) or ``back``
(not taken, nothing sent: the thread streams itself). No answer (the stream process died) counts as
``cut``. A stream process that does not listen (it is starting, or starting again after it died)
is waited for up to :data:`WAIT_FOR_PROCESS_SECONDS`, then the thread streams itself. A worker that
stops shuts its side of each connection (:meth:`StreamRelay.close`): the stream process then ends
those streams. The stream's slot in the worker (``STREAMS_PER_WORKER``) is held
until the answer, and the worker stops watching the game: it reads nothing for it meanwhile.
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import threading
import time

from ..events import Reader

__all__ = ["Answer", "StreamRelay"]

log = logging.getLogger(__name__)

# How long a stream waits for the stream process to listen (it is starting, or starting again after
# it died) before its thread streams itself; and between attempts.
WAIT_FOR_PROCESS_SECONDS = 5.0
ATTEMPT_EVERY_SECONDS = 0.1


class Answer:
    """The stream process's one-word answers, and what a stream's place looks like on the way there."""

    DONE = b"done"
    CUT = b"cut"
    BACK = b"back"
    MAX_MESSAGE = 4096

    @staticmethod
    def place(reader: Reader) -> bytes:
        return json.dumps(
            {"game": reader.game_id, "seat": reader.seat, "after": reader.position, "owed": reader.owed}
        ).encode()


class StreamRelay:
    """Hands this worker's streams to the stream process listening at ``path``."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._links: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._closing = False

    def hand_over(self, sock: socket.socket, reader: Reader) -> bool:
        """Have the stream process send ``reader``'s next events to ``sock``; return when the stream
        has ended (True: then the server ends the response), or at once with False if the stream
        process did not take it (not running, restarting, or said ``back``): this thread then
        streams itself."""
        link = self._connect()
        if link is None:
            return False
        try:
            socket.send_fds(link, [Answer.place(reader)], [sock.fileno()])
        except OSError as error:
            link.close()
            log.warning("could not hand a stream to the stream process: %s", type(error).__name__)
            return False
        with self._lock:
            self._links.add(link)
            closing = self._closing
        try:
            if closing:
                link.shutdown(socket.SHUT_WR)
            link.settimeout(None)
            answer = link.recv(16)  # until the stream ends: nothing is said before
        except OSError:
            answer = b""
        finally:
            with self._lock:
                self._links.discard(link)
            link.close()
        if answer == Answer.BACK:
            return False
        if answer != Answer.DONE:  # cut, or the stream process is gone: this end shuts too
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        return True

    def _connect(self) -> socket.socket | None:
        deadline = time.monotonic() + WAIT_FOR_PROCESS_SECONDS
        while True:
            link = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            link.settimeout(WAIT_FOR_PROCESS_SECONDS)
            try:
                link.connect(self._path)
                return link
            except (FileNotFoundError, ConnectionRefusedError) as error:  # not listening (yet, or again)
                link.close()
                if self._closing or time.monotonic() + ATTEMPT_EVERY_SECONDS > deadline:
                    log.warning("the stream process is not there: this worker streams (%s)", type(error).__name__)
                    return None
                time.sleep(ATTEMPT_EVERY_SECONDS)
            except OSError as error:  # its backlog stayed full
                link.close()
                log.warning("the stream process did not take a stream: %s", type(error).__name__)
                return None

    def close(self) -> None:
        """This worker is stopping: the stream process ends every stream it serves for it."""
        with self._lock:
            self._closing = True
            links = list(self._links)
        for link in links:
            with contextlib.suppress(OSError):
                link.shutdown(socket.SHUT_WR)
