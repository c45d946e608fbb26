"""Server-Sent Events from the real-time role as deployed (``coins-realtime``, on one port as the README
serves it): every change reaches every stream, across processes; Last-Event-ID resumes exactly;
heartbeats; the stream limit; a killed process loses nothing; SIGTERM ends the streams at once."""

from __future__ import annotations

import http.client
import json
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.request import Request, urlopen

import pytest

from service import create_app
from service.config import Settings
from tests.support.server import LiveServer
from tests.support.sse import Comment, Event, EventStream
from tests.support.topology import realtime, service
from tests.support.working_client import NO_PACE

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


@contextmanager
def realtime_process(database_url: str, tmp_path: Path, **env: str) -> Iterator[LiveServer]:
    """The real-time role as deployed (``coins-realtime``), a one-second heartbeat unless ``env`` says otherwise."""
    with realtime(database_url, tmp_path, **{"STREAM_HEARTBEAT_SECONDS": "1", **env}) as live:
        yield live


@contextmanager
def gunicorn(database_url: str, tmp_path: Path, **env: str) -> Iterator[LiveServer]:
    """The web role as deployed (gunicorn.conf.py, two workers unless ``env`` says otherwise)."""
    with service(database_url, tmp_path, **{"WEB_CONCURRENCY": "2", **env}) as live:
        yield live


def call(port: int, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    request = Request(f"http://127.0.0.1:{port}{path}", method=method)
    request.add_header("Accept", "application/json")
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urlopen(request, data=data, timeout=10) as response:
        return json.loads(response.read())


def new_game(port: int, **body: Any) -> tuple[str, list[str]]:
    body.setdefault("seats", [{"name": "Ana", "age": 41}, {"name": "Bo", "age": 35}, {"name": "Cy", "age": 29}])
    created = call(port, "POST", "/v1/games", body)
    return created["id"], [credential["token"] for credential in created["credentials"]]


def play_to_the_end(act: Callable[[str, str, Any, str | None], Any], game_id: str, tokens: list[str]) -> None:
    """Whoever's turn it is deals or plays their first card, until the game is over (bounded)."""
    for _ in range(2000):
        state = act("GET", f"/v1/games/{game_id}", None, None)
        if state["status"] == "finished":
            return
        token = tokens[state["turn"]]
        if state["status"] == "waiting_for_deal":
            act("POST", f"/v1/games/{game_id}/hands", None, token)
        else:
            card = act("GET", f"/v1/games/{game_id}/hand", None, token)["cards"][0]
            act("POST", f"/v1/games/{game_id}/plays", {"card": card}, token)
    raise AssertionError("the game did not finish")


def over_http(port: int) -> Callable[[str, str, Any, str | None], Any]:
    return lambda method, path, body, token: call(port, method, path, body, token)


def in_another_process_of_ours(database_url: str) -> Callable[[str, str, Any, str | None], Any]:
    """Requests served by an app of this test process: its changes reach the server's workers only
    through the notifications between processes."""
    client = create_app(Settings(database_url=database_url, **NO_PACE)).test_client()

    def act(method: str, path: str, body: Any, token: str | None) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = client.open(path, method=method, json=body, headers=headers)
        assert response.status_code < 300, response.json
        return response.json

    return act


def collect(stream: EventStream, into: list[Event], seconds: float = 120) -> threading.Thread:
    """Read the stream's events in a thread until it ends (bounded in time by the socket timeout)."""

    def read() -> None:
        deadline = time.monotonic() + seconds
        for event in stream.events():
            into.append(event)
            if time.monotonic() > deadline:
                return

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def all_events(port: int, game_id: str, token: str | None = None) -> list[dict[str, Any]]:
    return call(port, "GET", f"/v1/games/{game_id}/events?after=0", token=token)["items"]


def test_streams_see_every_change_made_anywhere_in_order_and_end_with_the_game(database_url, tmp_path):
    with realtime_process(database_url, tmp_path) as server:
        game_id, tokens = new_game(server.port, target_score=3, seed="streams")
        spectator, seat = [], []
        with (
            EventStream(server.port, game_id, timeout=30) as public,
            EventStream(server.port, game_id, token=tokens[1], timeout=30) as own,
        ):
            readers = [collect(public, spectator), collect(own, seat)]
            play_to_the_end(in_another_process_of_ours(database_url), game_id, tokens)
            for reader in readers:
                reader.join(60)
        assert spectator[0].type == "game" and spectator[-1].type == "game_finished"
        assert [event.data for event in spectator[1:]] == all_events(server.port, game_id)
        assert [event.data for event in seat[1:]] == all_events(server.port, game_id, tokens[1])
        assert {event.data["seat"] for event in seat if event.type == "hand"} == {1}
        assert [event.id for event in spectator] == [event.data["id"] for event in spectator]


def test_an_http_1_0_stream_gets_what_there_is_and_ends(database_url, tmp_path):
    """HTTP/1.0 has no chunks, so no stream can be held open over it: it gets the events there are
    now and ends (with its length), and resumes after them with Last-Event-ID, as after any close."""
    with realtime_process(database_url, tmp_path) as server:
        game_id, tokens = new_game(server.port, target_score=2, seed="http-1.0")
        with EventStream(server.port, game_id, token=tokens[2], timeout=30, http_1_0=True) as stream:
            assert stream.status == 200 and stream.response.getheader("Transfer-Encoding") is None
            assert [event.type for event in stream.events()] == ["game"]
        play_to_the_end(in_another_process_of_ours(database_url), game_id, tokens)
        with EventStream(server.port, game_id, token=tokens[2], last_event_id=0, timeout=30, http_1_0=True) as stream:
            seen = list(stream.events())
        assert seen[-1].type == "game_finished"
        assert [event.data for event in seen] == all_events(server.port, game_id, tokens[2])


def test_last_event_id_resumes_with_exactly_the_rest(database_url, tmp_path):
    with realtime_process(database_url, tmp_path) as server:
        game_id, tokens = new_game(server.port, target_score=2, seed="resume")
        play_to_the_end(over_http(server.port), game_id, tokens)
        everything = all_events(server.port, game_id, tokens[0])
        middle = everything[len(everything) // 2]["id"]
        with EventStream(server.port, game_id, token=tokens[0], last_event_id=middle) as resumed:
            rest = [event.data for event in resumed.events()]  # the game is over: the stream ends
        assert rest == [event for event in everything if event["id"] > middle]


def test_an_idle_stream_gets_heartbeats(database_url, tmp_path):
    with realtime_process(database_url, tmp_path) as server:
        game_id, _ = new_game(server.port)
        with EventStream(server.port, game_id, timeout=10) as stream:
            items = iter(stream)
            assert isinstance(next(items), Event)
            started = time.monotonic()
            assert isinstance(next(items), Comment)
            assert time.monotonic() - started < 5  # STREAM_HEARTBEAT_SECONDS=1 here
            assert stream.response.getheader("X-Accel-Buffering") == "no"
            assert stream.response.getheader("Cache-Control") == "no-cache"


def test_a_full_process_answers_503_with_retry_after(database_url, tmp_path):
    with realtime_process(database_url, tmp_path, STREAMS_PER_PROCESS="1") as server:
        game_id, _ = new_game(server.port)
        with EventStream(server.port, game_id) as first:
            assert first.status == 200
            with EventStream(server.port, game_id) as second:
                assert second.status == 503 and int(second.response.getheader("Retry-After")) > 0
                assert json.loads(second.body)["code"] == "too_many_streams"
            assert call(server.port, "GET", f"/v1/games/{game_id}")["id"] == game_id  # requests still served


def test_an_address_over_its_share_gets_429_while_the_process_serves_on(database_url, tmp_path):
    with realtime_process(database_url, tmp_path, RATE_LIMITS="on", STREAMS_PER_ADDRESS="2") as server:
        game_id, _ = new_game(server.port)
        with EventStream(server.port, game_id) as first, EventStream(server.port, game_id) as second:
            assert first.status == second.status == 200
            with EventStream(server.port, game_id) as third:
                assert third.status == 429 and int(third.response.getheader("Retry-After")) > 0
                assert json.loads(third.body)["code"] == "too_many_requests"
            assert call(server.port, "GET", f"/v1/games/{game_id}")["id"] == game_id  # requests still served


@pytest.mark.parametrize("role", [gunicorn, realtime_process])
def test_a_chunked_body_over_the_limit_is_413_under_either_server(database_url, tmp_path, role):
    with role(database_url, tmp_path, WEB_CONCURRENCY="1", MAX_REQUEST_BYTES="1024") as server:
        for size, status in ((100, 201), (2048, 413)):
            connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            body = b'{"seed": "' + b"s" * (size - 12) + b'"}' if size > 100 else b'{"target_score": 10}'
            connection.request(
                "POST",
                "/v1/games",
                body=iter([body]),
                headers={"Content-Type": "application/json"},
                encode_chunked=True,
            )
            response = connection.getresponse()
            answer = json.loads(response.read())
            connection.close()
            assert response.status == status, answer
            assert status == 201 or answer["code"] == "payload_too_large"


@pytest.mark.parametrize("body", [b"zz\r\n\r\n", b"3\r\n{}}XX0\r\n\r\n", b"1;\r\r\n{\r\n0\r\n\r\n"])
def test_a_malformed_chunked_body_is_400_bad_request_under_gunicorn(database_url, tmp_path, body):
    """A chunk size that is no number, a chunk without its CRLF, a bare CR in an extension: gunicorn
    fails while the app reads the body, after the head was taken; the answer is the problem of a
    malformed request, as gunicorn's own for a malformed head, not a 500."""
    head = b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    with gunicorn(database_url, tmp_path, WEB_CONCURRENCY="1") as server:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as connection:
            connection.sendall(head + body)
            response = http.client.HTTPResponse(connection)
            response.begin()
            answer = json.loads(response.read())
        assert response.status == 400, answer
        assert response.getheader("Content-Type") == "application/problem+json"
        assert answer["code"] == "bad_request"


def test_a_killed_process_loses_no_event_its_clients_resume_on_another(database_url, tmp_path):
    """Two real-time processes; a stream open on the first; mid-game it is killed (SIGKILL); the client
    reconnects to the second with Last-Event-ID and, in the end, has every event once, in order."""
    with realtime_process(database_url, tmp_path) as first, realtime_process(database_url, tmp_path) as second:
        game_id, tokens = new_game(first.port, target_score=4, seed="killed")
        got: list[Event] = []
        connections: list[int] = []
        done = threading.Event()

        def follow() -> None:
            last = None
            for _attempt in range(50):  # reconnects, bounded: to the first while it lives, then the second
                port = first.port if first.process.poll() is None else second.port
                try:
                    with EventStream(port, game_id, last_event_id=last, timeout=10) as stream:
                        if stream.status != 200:
                            time.sleep(0.2)
                            continue
                        connections.append(port)
                        for event in stream.events():
                            got.append(event)
                            last = event.id
                            if event.type == "game_finished":
                                done.set()
                                return
                except OSError:
                    time.sleep(0.2)  # the process died under us: reconnect, as EventSource does

        reader = threading.Thread(target=follow, daemon=True)
        reader.start()
        act = in_another_process_of_ours(database_url)
        state = act("GET", f"/v1/games/{game_id}", None, None)
        act("POST", f"/v1/games/{game_id}/hands", None, tokens[state["dealer"]])
        time.sleep(0.5)
        first.process.kill()
        play_to_the_end(act, game_id, tokens)
        assert done.wait(60), "the stream never reached the end of the game"
        reader.join(5)
    assert connections[0] == first.port and second.port in connections  # the client moved over
    replayed = [event.data for event in got if event.type != "game"]
    assert replayed == all_events_in_process(database_url, game_id)


def all_events_in_process(database_url: str, game_id: str) -> list[dict[str, Any]]:
    app = create_app(Settings(database_url=database_url, **NO_PACE))
    return app.test_client().get(f"/v1/games/{game_id}/events?after=0").json["items"]


def test_sigterm_ends_open_streams_and_the_server_stops_promptly(database_url, tmp_path):
    with realtime_process(database_url, tmp_path, REALTIME_GRACEFUL_SECONDS="20") as server:
        game_id, _ = new_game(server.port)
        with EventStream(server.port, game_id, timeout=15) as stream:
            items = iter(stream)
            next(items)
            started = time.monotonic()
            server.process.send_signal(signal.SIGTERM)
            for _ in items:  # heartbeats, then the end of the stream
                pass
            ended = time.monotonic() - started
        assert server.process.wait(20) in (0, -signal.SIGTERM)  # uvicorn stops, then re-raises the signal
        assert ended < 10  # not the 20 s graceful timeout: the stream was ended, not waited out
