"""The stream process's server: what it does with a message it cannot use, and with the socket's file
when another stream process has taken its place. (tests/events/test_streams.py runs the whole
process inside gunicorn.)"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from pathlib import Path
from typing import Any

from service.api.stream_process import StreamServer
from service.api.stream_relay import Answer

WAIT_SECONDS = 10


class FakeHub:
    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        threading.Thread(target=self._loop.run_forever, daemon=True).start()

    def loop(self) -> asyncio.AbstractEventLoop:
        return self._loop


class FakeFeed:
    """A feed that follows no game: every stream handed over is refused (as a malformed one is)."""

    def __init__(self) -> None:
        self.hub = FakeHub()
        self.closed = False

    def follow(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("not reached: the place is malformed")

    def close(self) -> None:
        self.closed = True


def served(path: Path) -> tuple[StreamServer, FakeFeed]:
    feed = FakeFeed()
    server = StreamServer(str(path), feed, writer=None)  # type: ignore[arg-type]  # its parent not watched
    server.start()
    return server, feed


def test_a_malformed_place_is_given_back_and_the_socket_stays_the_workers(tmp_path: Path) -> None:
    server, feed = served(tmp_path / "streams.sock")
    client, worker_end = socket.socketpair()
    with client, worker_end:
        link = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        link.settimeout(WAIT_SECONDS)
        link.connect(str(tmp_path / "streams.sock"))
        socket.send_fds(link, [json.dumps({"game": "g1"}).encode()], [worker_end.fileno()])  # no seat, no after
        assert link.recv(16) == Answer.BACK
        worker_end.sendall(b"still mine")  # the stream process closed only its own copy
        client.settimeout(WAIT_SECONDS)
        assert client.recv(100) == b"still mine"
        link.close()
    server.stop()
    assert feed.closed and not (tmp_path / "streams.sock").exists()


def test_stopping_leaves_the_socket_of_the_process_that_replaced_it(tmp_path: Path) -> None:
    path = tmp_path / "streams.sock"
    old, _ = served(path)
    path.unlink()  # a new stream process starts (this one's parent was killed): it binds the path anew
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as new:
        new.bind(str(path))
        old.stop()
        assert path.exists()
