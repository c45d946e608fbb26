"""The stream writer: on the hub's thread, it sends every handed-over stream's events, framed as
gunicorn frames chunks, and ends each stream when its game is over, its client goes or falls too
far behind, or the process stops. (tests/events/test_streams.py runs it inside gunicorn.)"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from service.api import stream_writer
from service.api.stream_writer import StreamWriter, writable_socket
from service.events import Item

WAIT_SECONDS = 10


class FakeHub:
    """What the writer needs of the hub: its event loop, running in a thread, on which the writer
    is told which games have news."""

    def __init__(self) -> None:
        self.subscriber: Callable[[list[str] | None], None] = lambda games: None
        self._loop = asyncio.new_event_loop()
        threading.Thread(target=self._loop.run_forever, daemon=True).start()

    def subscribe(self, subscriber: Callable[[list[str] | None], None]) -> None:
        self.subscriber = subscriber

    def loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    def settle(self) -> None:
        """Wait until the loop has run every callback given to it so far (they run in order)."""
        done = threading.Event()
        self._loop.call_soon_threadsafe(done.set)
        assert done.wait(WAIT_SECONDS)

    def tell(self, games: list[str] | None) -> None:
        """As the hub does after a read (``None``: as it does when it closes), on its thread."""
        self._loop.call_soon_threadsafe(self.subscriber, games)


class FakeReader:
    """A reader whose events the test gives; it records what the writer and the stream's thread ask."""

    def __init__(self, game_id: str = "g1", *, owed: bool = False, pace: float = 60.0, seat: int | None = None) -> None:
        self.game_id = game_id
        self.seat = seat
        self.position = 0
        self.last_taken: list[Item] = []
        self.owed = owed
        self.pace = pace
        self.finished = False
        self.waiting: list[Item] = []
        self.asked = 0
        self.looked = 0

    def take(self) -> list[Item]:
        items, self.waiting = self.waiting, []
        if any(item.type == "game_finished" for item in items):
            self.finished = True
        self.position = items[-1].id if items else self.position
        self.last_taken = items
        return items

    def take_as(self, other: FakeReader) -> list[Item]:
        self.took_as = other
        self.position, self.finished, self.waiting = other.position, other.finished, []
        return other.last_taken

    def ask(self) -> None:
        self.asked += 1

    def look_at(self) -> bool:
        self.looked += 1
        return True


def frame(item: Item) -> str:
    return f"id: {item.id}\ndata: {item.data}\n\n"


class Handed:
    """A stream handed to the writer, as the stream process's side sees it: ended (cut or not) once."""

    def __init__(self) -> None:
        self.ended = threading.Event()
        self.cuts: list[bool] = []

    def __call__(self, cut: bool) -> None:
        self.cuts.append(cut)
        self.ended.set()

    def join(self, timeout: float) -> None:
        self.ended.wait(timeout)

    def is_alive(self) -> bool:
        return not self.ended.is_set()


@contextmanager
def served(writer: StreamWriter, hub: FakeHub, reader: FakeReader) -> Iterator[tuple[socket.socket, Handed]]:
    """A TCP connection on loopback whose server end the writer serves; yields the client's end and
    the stream as handed over (alive until the writer ends it), once the writer has it."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        client = socket.create_connection(listener.getsockname())
        server, _ = listener.accept()
    handed = Handed()
    hub.loop().call_soon_threadsafe(writer.add, server, reader, handed)
    hub.settle()  # the writer holds the stream (and took what was waiting) before the test goes on
    try:
        yield client, handed
    finally:
        client.close()
        handed.join(WAIT_SECONDS)
        server.close()


def read_until(client: socket.socket, end: bytes) -> bytes:
    client.settimeout(WAIT_SECONDS)
    data = b""
    while end not in data:
        chunk = client.recv(65536)
        assert chunk, f"the connection closed after {data!r}"
        data += chunk
    return data


def test_news_is_sent_as_chunks_and_a_finished_game_ends_the_stream() -> None:
    hub, reader = FakeHub(), FakeReader()
    writer = StreamWriter(hub, frame, heartbeat=60)  # type: ignore[arg-type]
    with served(writer, hub, reader) as (client, handed):  # type: ignore[arg-type]
        reader.waiting = [Item(2, "card_played", '{"n":2}'), Item(3, "trick_won", '{"n":3}')]
        hub.tell(["g1"])
        body = b'id: 2\ndata: {"n":2}\n\nid: 3\ndata: {"n":3}\n\n'  # the events of one change: one chunk
        assert read_until(client, body + b"\r\n") == b"%X\r\n" % len(body) + body + b"\r\n"
        hub.tell(["another game"])  # not this stream's: nothing is taken
        reader.waiting = [Item(4, "game_finished", "{}")]
        hub.tell(["g1"])
        assert read_until(client, b"id: 4\ndata: {}\n\n\r\n") == b"10\r\nid: 4\ndata: {}\n\n\r\n"
        handed.join(WAIT_SECONDS)
        assert not handed.is_alive() and handed.cuts == [False]  # the writer is done: the server ends the response


def test_a_quiet_stream_gets_a_heartbeat_and_the_hub_is_asked_to_look_again() -> None:
    hub, reader = FakeHub(), FakeReader()
    writer = StreamWriter(hub, frame, heartbeat=0.2)  # type: ignore[arg-type]
    with served(writer, hub, reader) as (client, handed):  # type: ignore[arg-type]
        assert read_until(client, b": keep-alive\n\n").startswith(b"E\r\n: keep-alive\n\n\r\n")
        assert reader.asked >= 1
        hub.tell(None)  # the process stops: every stream ends
        handed.join(WAIT_SECONDS)
        assert not handed.is_alive()


def test_a_client_that_went_ends_its_stream() -> None:
    hub, reader = FakeHub(), FakeReader()
    writer = StreamWriter(hub, frame, heartbeat=0.2)  # type: ignore[arg-type]
    with served(writer, hub, reader) as (client, handed):  # type: ignore[arg-type]
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        client.close()  # a reset: the next heartbeat's send fails
        handed.join(WAIT_SECONDS)
        assert not handed.is_alive()


def test_a_client_too_far_behind_is_cut_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream_writer, "MAX_PENDING_BYTES", 256 * 1024)
    hub, reader = FakeHub(), FakeReader()
    writer = StreamWriter(hub, frame, heartbeat=60)  # type: ignore[arg-type]
    with served(writer, hub, reader) as (client, handed):  # type: ignore[arg-type]
        big = "x" * 60_000
        for number in range(200):  # 12 MB the client never reads: more than the socket buffers hold
            reader.waiting = [Item(number, "card_played", big)]
            hub.tell(["g1"])
            if not handed.is_alive():
                break
            time.sleep(0.005)
        handed.join(WAIT_SECONDS)
        assert not handed.is_alive()
        client.settimeout(WAIT_SECONDS)
        received = 0
        while chunk := client.recv(1 << 20):  # what was sent, then the end: the writer shut the socket
            received += len(chunk)
        assert 0 < received < 200 * 60_000


def test_a_failed_turn_is_logged_and_the_writer_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    failures = [RuntimeError("a bug")]

    def frame_failing_once(item: Item) -> str:
        if failures:
            raise failures.pop()
        return frame(item)

    hub, reader = FakeHub(), FakeReader()
    writer = StreamWriter(hub, frame_failing_once, heartbeat=60)  # type: ignore[arg-type]
    with served(writer, hub, reader) as (client, handed):  # type: ignore[arg-type]
        reader.waiting = [Item(2, "card_played", "{}")]
        hub.tell(["g1"])  # this turn fails: logged, and the stream goes on
        deadline = time.monotonic() + WAIT_SECONDS
        while "the stream writer failed a turn" not in caplog.text and time.monotonic() < deadline:
            time.sleep(0.01)
        reader.waiting = [Item(3, "game_finished", "{}")]
        hub.tell(["g1"])
        assert read_until(client, b"id: 3\ndata: {}\n\n\r\n").endswith(b"10\r\nid: 3\ndata: {}\n\n\r\n")
        handed.join(WAIT_SECONDS)
        assert not handed.is_alive()
    assert "the stream writer failed a turn" in caplog.text


def test_the_writer_looks_at_a_game_owed_server_moves() -> None:
    hub, reader = FakeHub(), FakeReader(owed=True, pace=0.05)
    writer = StreamWriter(hub, frame, heartbeat=60)  # type: ignore[arg-type]
    with served(writer, hub, reader) as (_, handed):  # type: ignore[arg-type]
        deadline = time.monotonic() + WAIT_SECONDS
        while reader.looked < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert reader.looked >= 3  # the bots' moves are made by these reads, at the reader's pace
        hub.tell(None)
        handed.join(WAIT_SECONDS)


def _tcp_socket() -> socket.socket:
    return socket.socket(socket.AF_INET, socket.SOCK_STREAM)


@pytest.mark.parametrize(
    ("protocol", "method", "expected"),
    [("HTTP/1.1", "GET", True), ("HTTP/1.0", "GET", False), ("HTTP/2", "GET", False), ("HTTP/1.1", "HEAD", False)],
)
def test_the_writer_takes_only_gunicorns_plain_socket_on_http_1_1(protocol: str, method: str, expected: bool) -> None:
    with _tcp_socket() as sock:
        environ = {"gunicorn.socket": sock, "SERVER_PROTOCOL": protocol, "REQUEST_METHOD": method}
        assert (writable_socket(environ) is sock) is expected


def test_no_socket_and_tls_sockets_are_left_to_the_streams_thread() -> None:
    assert writable_socket({"SERVER_PROTOCOL": "HTTP/1.1", "REQUEST_METHOD": "GET"}) is None  # test client, dev server
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    with _tcp_socket() as plain, context.wrap_socket(plain, server_side=True, do_handshake_on_connect=False) as tls:
        environ = {"gunicorn.socket": tls, "SERVER_PROTOCOL": "HTTP/1.1", "REQUEST_METHOD": "GET"}
        assert writable_socket(environ) is None


def test_the_same_news_is_framed_once_for_every_stream_of_the_game(monkeypatch: pytest.MonkeyPatch) -> None:
    framed: list[int] = []

    def counting_frame(item: Item) -> str:
        framed.append(item.id)
        return frame(item)

    hub = FakeHub()
    writer = StreamWriter(hub, counting_frame, heartbeat=60)  # type: ignore[arg-type]
    readers = [FakeReader(), FakeReader(), FakeReader(seat=2)]
    with contextlib.ExitStack() as streams:
        clients = [streams.enter_context(served(writer, hub, reader))[0] for reader in readers]  # type: ignore[arg-type]
        for reader in readers[:2]:  # two spectators
            reader.waiting = [Item(5, "card_played", '{"n":5}')]
        readers[2].waiting = [Item(5, "card_played", '{"n":5}'), Item(6, "hand_dealt", '{"mine":1}')]  # a seat
        hub.tell(["g1"])
        spectators = b'id: 5\ndata: {"n":5}\n\n'
        for client in clients[:2]:
            assert read_until(client, spectators + b"\r\n") == b"%X\r\n" % len(spectators) + spectators + b"\r\n"
        assert read_until(clients[2], b'{"mine":1}\n\n\r\n').endswith(b'id: 6\ndata: {"mine":1}\n\n\r\n')
        assert sorted(framed) == [5, 5, 6]  # once for the spectators, once for the seat's own news
        assert [hasattr(reader, "took_as") for reader in readers].count(True) == 1  # one spectator took for both
        hub.tell(None)


def test_a_stream_ended_from_outside_ends_cleanly_once_its_news_is_sent() -> None:
    hub, reader = FakeHub(), FakeReader()
    writer = StreamWriter(hub, frame, heartbeat=60)  # type: ignore[arg-type]
    with socket.create_server(("127.0.0.1", 0)) as listener:
        client = socket.create_connection(listener.getsockname())
        server, _ = listener.accept()
    handed = Handed()
    streams: list[Any] = []
    hub.loop().call_soon_threadsafe(lambda: streams.append(writer.add(server, reader, handed)))
    deadline = time.monotonic() + WAIT_SECONDS
    while not streams and time.monotonic() < deadline:
        time.sleep(0.01)
    hub.loop().call_soon_threadsafe(writer.end, streams[0])
    handed.join(WAIT_SECONDS)
    assert handed.cuts == [False]  # nothing was pending: the server may end the response itself
    client.close()
    server.close()


def test_a_client_that_closes_its_end_ends_its_stream_at_once() -> None:
    hub, reader = FakeHub(), FakeReader()
    writer = StreamWriter(hub, frame, heartbeat=60)  # type: ignore[arg-type]  # no write for a minute
    with served(writer, hub, reader) as (client, handed):  # type: ignore[arg-type]
        client.close()  # a FIN: the server's end turns readable
        handed.join(WAIT_SECONDS)
        assert handed.cuts == [True]
