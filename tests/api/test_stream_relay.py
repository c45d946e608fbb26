"""A worker's side of the stream process: the stream's place and socket go over, and the one-word
answer decides how the response ends. Here a fake stream process stands in for the real one
(tests/events/test_streams.py runs the real one inside gunicorn, and kills it)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from service.api import stream_relay
from service.api.stream_relay import Answer, StreamRelay

WAIT_SECONDS = 10


class FakeReader:
    game_id, seat, position, owed = "g1", 2, 41, True


class FakeStreamProcess:
    """Listens where the stream process would; records what each handed-over stream brought."""

    def __init__(self, path: Path) -> None:
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.listener.bind(str(path))
        self.listener.listen(8)
        self.listener.settimeout(WAIT_SECONDS)

    def take(self) -> tuple[socket.socket, dict[str, Any], socket.socket]:
        """The next stream: its link, its place, this process's copy of the client's socket."""
        link, _ = self.listener.accept()
        link.settimeout(WAIT_SECONDS)
        message, fds, _, _ = socket.recv_fds(link, Answer.MAX_MESSAGE, 1)
        assert len(fds) == 1
        return link, json.loads(message), socket.socket(fileno=fds[0])

    def take_link(self) -> socket.socket:
        """The next stream's link only: this process's copy of the client's socket is closed unused."""
        link, _, copy = self.take()
        copy.close()
        return link


@contextmanager
def connection() -> Iterator[tuple[socket.socket, socket.socket]]:
    """A loopback TCP connection: (the client's end, the server's end, as a worker holds it)."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        client = socket.create_connection(listener.getsockname())
        server, _ = listener.accept()
    client.settimeout(WAIT_SECONDS)
    with client, server:
        yield client, server


def hand_over_in_a_thread(relay: StreamRelay, sock: socket.socket) -> tuple[threading.Thread, list[bool]]:
    result: list[bool] = []
    thread = threading.Thread(target=lambda: result.append(relay.hand_over(sock, FakeReader())), daemon=True)  # type: ignore[arg-type]
    thread.start()
    return thread, result


@pytest.mark.parametrize(("word", "kept"), [(Answer.DONE, True), (Answer.CUT, False), (b"", False)])
def test_the_stream_goes_over_and_its_answer_ends_it(tmp_path: Path, word: bytes, kept: bool) -> None:
    process = FakeStreamProcess(tmp_path / "streams.sock")
    relay = StreamRelay(str(tmp_path / "streams.sock"))
    with connection() as (client, server):
        thread, result = hand_over_in_a_thread(relay, server)
        link, place, copy = process.take()
        assert place == {"game": "g1", "seat": 2, "after": 41, "owed": True}
        copy.sendall(b"5\r\nhello\r\n")  # the stream process writes to the client's socket
        copy.close()
        assert client.recv(100) == b"5\r\nhello\r\n"
        assert thread.is_alive()  # the worker's thread waits for the stream to end
        if word:
            link.send(word)
        link.close()  # no word: the stream process died
        thread.join(WAIT_SECONDS)
        assert result == [True]  # the stream is over: the server ends the response
        if kept:  # done: the connection is the server's again (it ends the chunked response)
            server.sendall(b"0\r\n\r\n")
            assert client.recv(100) == b"0\r\n\r\n"
        else:  # cut: the worker shut the connection too, so the client reconnects
            assert client.recv(100) == b""


def test_a_stream_given_back_is_streamed_by_the_workers_thread(tmp_path: Path) -> None:
    process = FakeStreamProcess(tmp_path / "streams.sock")
    relay = StreamRelay(str(tmp_path / "streams.sock"))
    with connection() as (client, server):
        thread, result = hand_over_in_a_thread(relay, server)
        link = process.take_link()
        link.send(Answer.BACK)
        thread.join(WAIT_SECONDS)
        assert result == [False]
        server.sendall(b"still mine")
        assert client.recv(100) == b"still mine"


def test_without_a_stream_process_the_worker_waits_a_little_then_streams_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stream_relay, "WAIT_FOR_PROCESS_SECONDS", 0.3)
    relay = StreamRelay(str(tmp_path / "nobody.sock"))
    with connection() as (_, server):
        assert relay.hand_over(server, FakeReader()) is False  # type: ignore[arg-type]


def test_a_stream_process_that_starts_late_still_gets_the_stream(tmp_path: Path) -> None:
    relay = StreamRelay(str(tmp_path / "streams.sock"))
    with connection() as (_, server):
        thread, result = hand_over_in_a_thread(relay, server)
        thread.join(0.3)
        process = FakeStreamProcess(tmp_path / "streams.sock")  # listening only now
        link, place, copy = process.take()
        assert place["game"] == "g1"
        copy.close()
        link.send(Answer.DONE)
        thread.join(WAIT_SECONDS)
        assert result == [True]


def test_a_stopping_worker_has_the_stream_process_end_its_streams(tmp_path: Path) -> None:
    process = FakeStreamProcess(tmp_path / "streams.sock")
    relay = StreamRelay(str(tmp_path / "streams.sock"))
    with connection() as (_, server):
        thread, result = hand_over_in_a_thread(relay, server)
        link = process.take_link()
        relay.close()  # SIGTERM in the worker
        assert link.recv(16) == b""  # the stream process hears it: it ends the stream...
        link.send(Answer.DONE)  # ...and says so
        thread.join(WAIT_SECONDS)
        assert result == [True]
