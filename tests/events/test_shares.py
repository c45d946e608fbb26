"""Fair shares of the streams: one address or one token holds only so many streams and long polls
of a worker (429 too_many_requests with Retry-After), while other callers still get theirs."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service import create_app
from service.config import Settings
from service.events import ShareTaken, StreamShares

STREAM = {"Accept": "text/event-stream"}


@pytest.fixture
def shared(settings: Settings) -> Iterator[Flask]:
    app = create_app(dataclasses.replace(settings, rate_limits="on", streams_per_address=3, streams_per_token=2))
    yield app
    app.extensions["coins.feed"].close()
    app.extensions["coins.db"].dispose()


def _open(client: FlaskClient, game_id: str, address: str, headers: dict[str, str] | None = None) -> object:
    """An open stream's response (its reader holds a share until it is closed), or the refusal."""
    return client.get(
        f"/v1/games/{game_id}/events",
        headers={**STREAM, **(headers or {})},
        environ_base={"REMOTE_ADDR": address},
        buffered=False,
    )


def test_an_address_holds_its_share_of_streams_and_no_more(shared: Flask):
    client = shared.test_client()
    game_id = client.post("/v1/games", json={}).json["id"]
    held = [_open(client, game_id, "10.1.0.1") for _ in range(3)]
    assert [response.status_code for response in held] == [200, 200, 200]
    refused = _open(client, game_id, "10.1.0.1")
    assert refused.status_code == 429 and refused.json["code"] == "too_many_requests"
    assert int(refused.headers["Retry-After"]) > 0
    poll = client.get(f"/v1/games/{game_id}/events", environ_base={"REMOTE_ADDR": "10.1.0.1"})
    assert poll.status_code == 429  # a long poll takes a share too
    other = _open(client, game_id, "10.1.0.2")
    assert other.status_code == 200  # another address has its own
    held[0].close()  # a stream that ends gives its share back
    again = _open(client, game_id, "10.1.0.1")
    assert again.status_code == 200
    for response in (*held[1:], other, again):
        response.close()


def test_a_token_holds_its_share_of_streams_from_any_address(shared: Flask):
    client = shared.test_client()
    created = client.post("/v1/games", json={"seats": [{"name": "Ana"}, None, None]}).json
    auth = {"Authorization": f"Bearer {created['credentials'][0]['token']}"}
    held = [_open(client, created["id"], f"10.2.0.{n}", auth) for n in (1, 2)]
    assert [response.status_code for response in held] == [200, 200]
    refused = _open(client, created["id"], "10.2.0.3", auth)
    assert refused.status_code == 429 and refused.json["code"] == "too_many_requests"
    spectator = _open(client, created["id"], "10.2.0.3")
    assert spectator.status_code == 200
    for response in (*held, spectator):
        response.close()


def test_without_rate_limits_there_is_no_share(settings: Settings):
    app = create_app(dataclasses.replace(settings, rate_limits="off", streams_per_address=1))
    client = app.test_client()
    game_id = client.post("/v1/games", json={}).json["id"]
    opened = [_open(client, game_id, "10.3.0.1") for _ in range(3)]
    assert [response.status_code for response in opened] == [200, 200, 200]
    for response in opened:
        response.close()
    app.extensions["coins.feed"].close()
    app.extensions["coins.db"].dispose()


def test_a_share_is_given_back_when_its_reader_fails():
    shares = StreamShares(per_address=1, per_credential=1)
    with pytest.raises(RuntimeError), shares.hold("a", "t"):
        raise RuntimeError("the reader failed")
    with shares.hold("a", "t"), pytest.raises(ShareTaken), shares.hold("a", None):
        pass
