"""Rate limits and refusals: a leave is not a join, a credential no seat holds stores no counter of
its own (refusals are counted per address), and leaving a game to bots alone counts as a game of bots."""

from __future__ import annotations

import dataclasses
import secrets
import threading
from collections.abc import Iterator

import pytest
from flask import Flask
from sqlalchemy import text

from service import create_app
from service.api.hooks.limits import LIMITS, SHARED_LIMITS
from service.config import Settings
from service.games import hash_token

BOTS = [{"bot": "random"}, {"bot": "random"}]


def _app(settings: Settings) -> Iterator[Flask]:
    app = create_app(dataclasses.replace(settings, rate_limits="on"))
    yield app
    app.extensions["coins.db"].dispose()


@pytest.fixture
def two_joins_a_minute(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[Flask]:
    monkeypatch.setitem(LIMITS, "players", ("2/minute", *LIMITS["players"][1:]))
    yield from _app(settings)


@pytest.fixture
def two_bot_games_a_minute(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[Flask]:
    monkeypatch.setitem(SHARED_LIMITS, "bots-only", ("2/minute", *SHARED_LIMITS["bots-only"][1:]))
    yield from _app(settings)


@pytest.fixture
def limited(settings: Settings) -> Iterator[Flask]:
    yield from _app(settings)


def _counters(app: Flask) -> list[str]:
    with app.extensions["coins.db"].engine.connect() as connection:
        return list(connection.execute(text("SELECT key FROM rate_limits")).scalars())


def test_a_leave_is_not_counted_as_a_join(two_joins_a_minute: Flask):
    client = two_joins_a_minute.test_client()
    game = client.post("/v1/games", json={"seats": [{"name": "Ana"}, None, None]}).json
    joins = [client.post(f"/v1/games/{game['id']}/players", json={"name": name}) for name in ("Bo", "Cy", "Di")]
    assert [join.status_code for join in joins] == [201, 201, 429]
    leave = f"/v1/games/{game['id']}/players/0/leave"
    for _ in range(3):  # refused for that, as if no limit were reached
        anonymous = client.post(leave, json={})
        assert anonymous.status_code == 401 and anonymous.json["code"] == "missing_token"
    token = game["credentials"][0]["token"]
    assert client.post(leave, json={}, headers={"Authorization": f"Bearer {token}"}).status_code == 200


def test_made_up_tokens_store_no_counter_of_their_own(limited: Flask):
    client = limited.test_client()
    game = client.post("/v1/games", json={"seats": [{"name": "Ana"}, {"name": "Bo"}, {"name": "Cy"}]}).json
    tokens = [secrets.token_urlsafe(32) for _ in range(150)]  # past every per-token allowance
    requests = [
        (client.post, f"/v1/games/{game['id']}/plays", {"json": {"card": "ace-coins"}}),
        (client.get, f"/v1/games/{game['id']}/hint", {}),
        (client.post, f"/v1/games/{game['id']}/players/0/leave", {"json": {}}),
    ]
    statuses = []
    for index, token in enumerate(tokens):
        send, url, body = requests[index % 3]
        statuses.append(send(url, headers={"Authorization": f"Bearer {token}"}, **body).status_code)
    assert statuses == [401] * len(tokens)  # each told what is wrong with it, never to wait
    keys = sorted(_counters(limited))
    assert not [key for key in keys if any(hash_token(token) in key for token in tokens)]
    assert [key.split("/")[3] for key in keys] == ["create"]  # the game's creation: nothing of the refusals
    for _ in range(3):  # and a request without any credential is refused for that, counted nowhere
        assert client.post(f"/v1/games/{game['id']}/plays", json={"card": "ace-coins"}).status_code == 401
    assert sorted(_counters(limited)) == keys
    elsewhere = limited.test_client()
    elsewhere.environ_base["REMOTE_ADDR"] = "10.0.5.1"
    owner = {"Authorization": f"Bearer {game['credentials'][0]['token']}"}
    assert elsewhere.get(f"/v1/games/{game['id']}/hand", headers=owner).status_code == 200


def _alone_with_bots(app: Flask, address: str) -> tuple[str, dict[str, str]]:
    client = app.test_client()
    created = client.post(
        "/v1/games",
        json={"seats": [{"name": "Ana"}, *BOTS], "target_score": 100},
        environ_base={"REMOTE_ADDR": address},
    ).json
    return created["id"], {"Authorization": f"Bearer {created['credentials'][0]['token']}"}


def test_leaving_a_game_to_bots_alone_counts_as_a_game_of_bots(two_bot_games_a_minute: Flask):
    app, address = two_bot_games_a_minute, {"REMOTE_ADDR": "10.0.6.1"}
    client = app.test_client()
    bots_only = {"seats": [{"bot": "basic"}, *BOTS], "target_score": 100}
    assert client.post("/v1/games", json=bots_only, environ_base=address).status_code == 201  # one of two
    first, first_auth = _alone_with_bots(app, "10.0.6.1")
    second, second_auth = _alone_with_bots(app, "10.0.6.1")
    left = client.post(f"/v1/games/{first}/players/0/leave", json={}, headers=first_auth, environ_base=address)
    assert left.status_code == 200 and all(seat["bot"] for seat in left.json["seats"])  # two of two
    before = client.get(f"/v1/games/{second}").json
    refused = client.post(f"/v1/games/{second}/players/0/leave", json={}, headers=second_auth, environ_base=address)
    assert refused.status_code == 429 and refused.json["code"] == "too_many_requests"
    assert 1 <= int(refused.headers["Retry-After"]) <= 61
    after = client.get(f"/v1/games/{second}").json
    assert after["seats"][0]["bot"] is None and after["version"] == before["version"]  # nothing changed
    assert client.get(f"/v1/games/{second}/hand", headers=second_auth).status_code == 200  # still Ana's
    assert client.post("/v1/games", json=bots_only, environ_base=address).status_code == 429  # one count
    elsewhere = client.post(
        f"/v1/games/{second}/players/0/leave", json={}, headers=second_auth, environ_base={"REMOTE_ADDR": "10.0.6.2"}
    )
    assert elsewhere.status_code == 200  # another address counts apart


def test_leaving_a_game_with_another_person_is_not_a_game_of_bots(two_bot_games_a_minute: Flask):
    app, address = two_bot_games_a_minute, {"REMOTE_ADDR": "10.0.7.1"}
    client = app.test_client()
    bots_only = {"seats": [{"bot": "basic"}, *BOTS], "target_score": 100}
    assert [client.post("/v1/games", json=bots_only, environ_base=address).status_code for _ in range(2)] == [201] * 2
    seats = [{"name": "Ana"}, {"name": "Bo"}, {"bot": "basic"}]
    created = client.post("/v1/games", json={"seats": seats, "target_score": 100}, environ_base=address).json
    auth = {"Authorization": f"Bearer {created['credentials'][0]['token']}"}
    left = client.post(f"/v1/games/{created['id']}/players/0/leave", json={}, headers=auth, environ_base=address)
    assert left.status_code == 200  # Bo still plays: not a game of bots alone


def test_a_replayed_leave_to_bots_alone_counts_once(limited: Flask):
    game_id, auth = _alone_with_bots(limited, "10.0.8.1")
    keyed = {**auth, "Idempotency-Key": "leave-once"}
    client = limited.test_client()
    answers = [
        client.post(
            f"/v1/games/{game_id}/players/0/leave", json={}, headers=keyed, environ_base={"REMOTE_ADDR": "10.0.8.1"}
        )
        for _ in range(2)
    ]
    assert [answer.status_code for answer in answers] == [200, 200]
    assert answers[1].headers["Idempotent-Replayed"] == "true"
    with limited.extensions["coins.db"].engine.connect() as connection:
        counts = dict(connection.execute(text("SELECT key, count FROM rate_limits")).all())
    assert [count for key, count in counts.items() if "/bots-only/" in key] == [1]


def test_rematches_with_made_up_tokens_count_as_the_address_creations(limited: Flask):
    """createGame and rematchGame share the address's count of creations, counted as each request
    arrives: a flood of rematches with made-up tokens is told 401 until the count is used up, then
    429, as the address's own creations are (a count after the answer let a burst through)."""
    client = limited.test_client()
    game = client.post("/v1/games", json={"seats": [{"name": "Ana"}, {"name": "Bo"}, {"name": "Cy"}]}).json
    allowed = int(SHARED_LIMITS["create"][0].split("/")[0])
    made_up = {"Authorization": f"Bearer {secrets.token_urlsafe(32)}"}
    answers = [client.post(f"/v1/games/{game['id']}/rematch", headers=made_up) for _ in range(allowed)]
    assert [a.json["code"] for a in answers] == ["invalid_token"] * (allowed - 1) + ["too_many_requests"]
    assert client.post("/v1/games", json={}).json["code"] == "too_many_requests"
    assert all("127.0.0.1" not in key for key in _counters(limited))  # an address only as its keyed hash


def test_requests_sent_at_once_cannot_all_pass_an_address_limit(limited: Flask):
    """Twenty games of three bots asked for at the same moment from one address: the count is taken
    as each arrives, in one atomic increment, so no more than the limit are made."""
    allowed = int(SHARED_LIMITS["bots-only"][0].split("/")[0])
    start = threading.Barrier(20)
    answers: list[int] = []

    def create() -> None:
        client = limited.test_client()
        start.wait(timeout=10)
        body = {"seats": [{"bot": "random"}] * 3, "target_score": 1}
        answers.append(client.post("/v1/games", json=body).status_code)

    threads = [threading.Thread(target=create) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(answers) == 20 and answers.count(201) == allowed and answers.count(429) == 20 - allowed


@pytest.mark.parametrize(
    "body",
    [b"[" * 5000 + b"]" * 5000, b'{"seats": ' + b"[" * 5000 + b"]" * 5000 + b"}", b"{not json"],
    ids=["nested-deep", "seats-nested-deep", "garbage"],
)
def test_a_body_the_bot_games_limit_cannot_read_is_the_views_malformed_json(limited: Flask, body: bytes):
    """The bots-only limit reads createGame's body to know whether its seats are all bots: it reads it
    as the view does, and one the view refuses is the view's 400, not an error of the limit's."""
    response = limited.test_client().post("/v1/games", data=body, content_type="application/json")
    assert response.status_code == 400 and response.json["code"] == "malformed_json", response.json
