"""Server-Sent Events from a real gunicorn: every change reaches every stream, across workers and
processes; Last-Event-ID resumes exactly; heartbeats; the stream limit; a killed worker loses nothing."""

from __future__ import annotations

import http.client
import json
import os
import signal
import sys
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
from tests.support.processes import gunicorn_workers
from tests.support.server import LiveServer, free_port, serve
from tests.support.sse import Comment, Event, EventStream

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


@contextmanager
def gunicorn(database_url: str, tmp_path: Path, **env: str) -> Iterator[LiveServer]:
    """The service as deployed (gunicorn.conf.py), on the test's database and a free loopback port."""
    port = free_port()
    environment = {
        **os.environ,
        "DATABASE_URL": database_url,
        "BIND": f"127.0.0.1:{port}",
        "WEB_CONCURRENCY": "2",
        "LOG_LEVEL": "WARNING",
        "STREAM_HEARTBEAT_SECONDS": "1",
        **env,
    }
    environment.pop("PROMETHEUS_MULTIPROC_DIR", None)
    command = [str(Path(sys.executable).with_name("gunicorn")), "-c", "gunicorn.conf.py", "wsgi:app"]
    log = tmp_path / f"gunicorn-{port}.log"
    with serve(command, port=port, env=environment, cwd=ROOT, log=log, start_seconds=60, stop_seconds=30) as live:
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
    client = create_app(Settings(database_url=database_url)).test_client()

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
    with gunicorn(database_url, tmp_path) as server:
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


def test_an_http_1_0_stream_sees_the_same(database_url, tmp_path):
    """HTTP/1.0 has no chunks: the stream's end is the connection's. The same events, then the end."""
    with gunicorn(database_url, tmp_path) as server:
        game_id, tokens = new_game(server.port, target_score=2, seed="http-1.0")
        seen: list[Event] = []
        with EventStream(server.port, game_id, token=tokens[2], timeout=30, http_1_0=True) as stream:
            assert stream.status == 200 and stream.response.version == 10
            reader = collect(stream, seen)
            play_to_the_end(in_another_process_of_ours(database_url), game_id, tokens)
            reader.join(60)
        assert seen[0].type == "game" and seen[-1].type == "game_finished"
        assert [event.data for event in seen[1:]] == all_events(server.port, game_id, tokens[2])


def test_last_event_id_resumes_with_exactly_the_rest(database_url, tmp_path):
    with gunicorn(database_url, tmp_path) as server:
        game_id, tokens = new_game(server.port, target_score=2, seed="resume")
        play_to_the_end(over_http(server.port), game_id, tokens)
        everything = all_events(server.port, game_id, tokens[0])
        middle = everything[len(everything) // 2]["id"]
        with EventStream(server.port, game_id, token=tokens[0], last_event_id=middle) as resumed:
            rest = [event.data for event in resumed.events()]  # the game is over: the stream ends
        assert rest == [event for event in everything if event["id"] > middle]


def test_an_idle_stream_gets_heartbeats(database_url, tmp_path):
    with gunicorn(database_url, tmp_path) as server:
        game_id, _ = new_game(server.port)
        with EventStream(server.port, game_id, timeout=10) as stream:
            items = iter(stream)
            assert isinstance(next(items), Event)
            started = time.monotonic()
            assert isinstance(next(items), Comment)
            assert time.monotonic() - started < 5  # STREAM_HEARTBEAT_SECONDS=1 here
            assert stream.headers["X-Accel-Buffering"] == "no" and stream.headers["Cache-Control"] == "no-cache"


def test_a_full_worker_answers_503_with_retry_after(database_url, tmp_path):
    with gunicorn(database_url, tmp_path, WEB_CONCURRENCY="1", STREAMS_PER_WORKER="1") as server:
        game_id, _ = new_game(server.port)
        with EventStream(server.port, game_id) as first:
            assert first.status == 200
            with EventStream(server.port, game_id) as second:
                assert second.status == 503 and int(second.headers["Retry-After"]) > 0
                assert json.loads(second.body)["code"] == "too_many_streams"
            assert call(server.port, "GET", f"/v1/games/{game_id}")["id"] == game_id  # requests still served


def test_an_address_over_its_share_gets_429_while_the_worker_serves_on(database_url, tmp_path):
    env = {"WEB_CONCURRENCY": "1", "RATE_LIMITS": "on", "STREAMS_PER_ADDRESS": "2"}
    with gunicorn(database_url, tmp_path, **env) as server:
        game_id, _ = new_game(server.port)
        with EventStream(server.port, game_id) as first, EventStream(server.port, game_id) as second:
            assert first.status == second.status == 200
            with EventStream(server.port, game_id) as third:
                assert third.status == 429 and int(third.headers["Retry-After"]) > 0
                assert json.loads(third.body)["code"] == "too_many_requests"
            assert call(server.port, "GET", f"/v1/games/{game_id}")["id"] == game_id  # requests still served


def test_a_chunked_body_over_the_limit_is_413_under_gunicorn(database_url, tmp_path):
    with gunicorn(database_url, tmp_path, WEB_CONCURRENCY="1", MAX_REQUEST_BYTES="1024") as server:
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


def test_a_killed_worker_loses_no_event_its_clients_resume(database_url, tmp_path):
    """A stream open; mid-game, every worker is killed (SIGKILL); the client reconnects with
    Last-Event-ID and, in the end, has every event once, in order (gunicorn starts new workers)."""
    with gunicorn(database_url, tmp_path) as server:
        game_id, tokens = new_game(server.port, target_score=4, seed="killed")
        got: list[Event] = []
        connections: list[EventStream] = []
        done = threading.Event()

        def follow() -> None:
            last = None
            for _ in range(50):  # reconnects, bounded
                try:
                    with EventStream(server.port, game_id, last_event_id=last, timeout=10) as stream:
                        if stream.status != 200:
                            time.sleep(0.2)
                            continue
                        connections.append(stream)
                        for event in stream.events():
                            got.append(event)
                            last = event.id
                            if event.type == "game_finished":
                                done.set()
                                return
                except OSError:
                    time.sleep(0.2)  # the worker died under us: reconnect, as EventSource does

        reader = threading.Thread(target=follow, daemon=True)
        reader.start()
        act = in_another_process_of_ours(database_url)
        state = act("GET", f"/v1/games/{game_id}", None, None)
        act("POST", f"/v1/games/{game_id}/hands", None, tokens[state["dealer"]])
        time.sleep(0.5)
        workers = gunicorn_workers(server.process.pid)
        assert len(workers) == 2
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
        play_to_the_end(act, game_id, tokens)
        assert done.wait(60), "the stream never reached the end of the game"
        reader.join(5)
    assert len(connections) >= 2  # killing the worker ended the stream: the client reconnected
    replayed = [event.data for event in got if event.type != "game"]
    assert replayed == all_events_in_process(database_url, game_id)


def all_events_in_process(database_url: str, game_id: str) -> list[dict[str, Any]]:
    app = create_app(Settings(database_url=database_url))
    return app.test_client().get(f"/v1/games/{game_id}/events?after=0").json["items"]


def test_sigterm_ends_open_streams_and_the_server_stops_promptly(database_url, tmp_path):
    with gunicorn(database_url, tmp_path, GUNICORN_GRACEFUL_TIMEOUT="20") as server:
        game_id, _ = new_game(server.port)
        with EventStream(server.port, game_id, timeout=15) as stream:
            items = iter(stream)
            next(items)
            started = time.monotonic()
            server.process.send_signal(signal.SIGTERM)
            for _ in items:  # heartbeats, then the end of the stream
                pass
            ended = time.monotonic() - started
        assert server.process.wait(20) == 0
        assert ended < 10  # not the 20 s graceful timeout: the stream was ended, not waited out


def test_a_stand_in_plays_at_the_turns_deadline_with_no_request(database_url, tmp_path):
    """A stream open, nobody playing: the server's own timer has the stand-in play when the turn
    runs out (here 5 s), not at a later request or heartbeat."""
    with gunicorn(database_url, tmp_path, STREAM_HEARTBEAT_SECONDS="15") as server:
        game_id, tokens = new_game(server.port, turn_timeout_seconds=5, seed="deadline")
        state = call(server.port, "GET", f"/v1/games/{game_id}")
        call(server.port, "POST", f"/v1/games/{game_id}/hands", token=tokens[state["dealer"]])
        dealt = time.monotonic()
        with EventStream(server.port, game_id, timeout=30) as stream:
            for event in stream.events():
                if event.type == "card_played":
                    break
            waited = time.monotonic() - dealt
        assert event.data["cause"] == "timeout"
        assert 4 < waited < 9  # at the deadline (5 s), give or take a loaded machine
