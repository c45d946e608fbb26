"""Fair shares of the streams: one address or one token holds only so many streams and long polls
of a real-time process (429 too_many_requests with Retry-After), while other callers still get
theirs; a share is given back as soon as its connection closes."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator

import pytest
from flask import Flask

from service import create_app
from service.config import Settings
from service.events import ShareTaken, StreamShares
from tests.support.realtime import Realtime, realtime_role
from tests.support.sse import EventStream


@pytest.fixture
def shared(settings: Settings) -> Iterator[tuple[Flask, Realtime]]:
    """Shares of 3 streams an address and 2 a token; the client's address from X-Forwarded-For."""
    settings = dataclasses.replace(
        settings, rate_limits="on", streams_per_address=3, streams_per_token=2, trusted_proxy_hops=1
    )
    app = create_app(settings)
    with realtime_role(app, settings) as realtime:
        yield app, realtime
    app.extensions["coins.feed"].close()
    app.extensions["coins.db"].dispose()


def _open(realtime: Realtime, game_id: str, address: str, token: str | None = None) -> EventStream:
    """An open stream (its reader holds a share until it is closed), or the refusal."""
    path = f"/v1/games/{game_id}/events"
    return realtime.stream(path, token=token, headers={"X-Forwarded-For": address})


def _poll(realtime: Realtime, game_id: str, address: str) -> int:
    return realtime.get(f"/v1/games/{game_id}/events", {"X-Forwarded-For": address})[0]


def _eventually(check: object, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return True
        time.sleep(0.02)
    return False


def test_an_address_holds_its_share_of_streams_and_no_more(shared: tuple[Flask, Realtime]):
    app, realtime = shared
    game_id = app.test_client().post("/v1/games", json={}, headers={"X-Forwarded-For": "10.1.9.9"}).json["id"]
    held = [_open(realtime, game_id, "10.1.0.1") for _ in range(3)]
    assert [stream.status for stream in held] == [200, 200, 200]
    refused = _open(realtime, game_id, "10.1.0.1")
    problem = refused.response.headers
    assert refused.status == 429 and b'"too_many_requests"' in refused.body
    assert int(problem["Retry-After"]) > 0 and problem["Content-Type"] == "application/problem+json"
    assert _poll(realtime, game_id, "10.1.0.1") == 429  # a long poll takes a share too
    other = _open(realtime, game_id, "10.1.0.2")
    assert other.status == 200  # another address has its own
    held[0].close()  # a closed connection gives its share back at once, before any heartbeat
    assert _eventually(lambda: _poll(realtime, game_id, "10.1.0.1") == 200)
    for stream in (*held[1:], other, refused):
        stream.close()


def test_a_token_holds_its_share_of_streams_from_any_address(shared: tuple[Flask, Realtime]):
    app, realtime = shared
    created = app.test_client().post("/v1/games", json={"seats": [{"name": "Ana"}, None, None]}).json
    token = created["credentials"][0]["token"]
    held = [_open(realtime, created["id"], f"10.2.0.{n}", token) for n in (1, 2)]
    assert [stream.status for stream in held] == [200, 200]
    refused = _open(realtime, created["id"], "10.2.0.3", token)
    assert refused.status == 429 and b'"too_many_requests"' in refused.body
    spectator = _open(realtime, created["id"], "10.2.0.3")
    assert spectator.status == 200
    for stream in (*held, spectator, refused):
        stream.close()


def test_without_rate_limits_there_is_no_share(settings: Settings, realtime: Realtime, app: Flask):
    assert settings.rate_limits == "off"
    game_id = app.test_client().post("/v1/games", json={}).json["id"]
    opened = [_open(realtime, game_id, "10.3.0.1") for _ in range(3)]
    assert [stream.status for stream in opened] == [200, 200, 200]
    for stream in opened:
        stream.close()


def test_a_share_is_given_back_when_its_reader_fails():
    shares = StreamShares(per_address=1, per_credential=1)
    with pytest.raises(RuntimeError), shares.hold("a", "t"):
        raise RuntimeError("the reader failed")
    with shares.hold("a", "t"), pytest.raises(ShareTaken), shares.hold("a", None):
        pass
    give_back = shares.take("a", None)
    give_back()
    give_back()  # once, however often it is called
    with shares.hold("a", None), pytest.raises(ShareTaken), shares.hold("a", None):
        pass
