"""Rate limits: 429 too_many_requests with Retry-After, per address or per token, counted in the database
(every worker and instance; an accepted play by its own action) or in Redis; RATE_LIMITS=off turns them off."""

from __future__ import annotations

import dataclasses
import socket
import uuid
from collections.abc import Iterator

import pytest
from flask import Flask

from service import create_app
from service.api.hooks.limits import LIMITS, LINEAGE_GAMES_PER_MINUTE, SHARED_LIMITS
from service.config import Settings
from tests.api.test_record import play_to_end
from tests.conftest import Table


@pytest.fixture
def limited(settings: Settings) -> Iterator[Flask]:
    app = create_app(dataclasses.replace(settings, rate_limits="on"))
    yield app
    app.extensions["coins.db"].dispose()


def _create(app: Flask, address: str) -> int:
    client = app.test_client()
    return client.post("/v1/games", json={}, environ_base={"REMOTE_ADDR": address}).status_code


def test_creating_games_is_limited_per_address(limited: Flask):
    allowed = int(SHARED_LIMITS["create"][0].split("/")[0])
    statuses = [_create(limited, "10.0.0.1") for _ in range(allowed)]
    assert statuses == [201] * allowed
    refused = limited.test_client().post("/v1/games", json={}, environ_base={"REMOTE_ADDR": "10.0.0.1"})
    assert refused.status_code == 429
    assert refused.content_type == "application/problem+json"
    assert refused.json["code"] == "too_many_requests"
    assert 1 <= int(refused.headers["Retry-After"]) <= 61
    assert _create(limited, "10.0.0.2") == 201  # another address counts apart


def test_counts_are_shared_by_instances_of_one_database(limited: Flask, settings: Settings):
    other = create_app(dataclasses.replace(settings, rate_limits="on"))  # another worker or host
    try:
        allowed = int(SHARED_LIMITS["create"][0].split("/")[0])
        for index in range(allowed):
            assert _create(limited if index % 2 else other, "10.0.0.3") == 201
        assert _create(other, "10.0.0.3") == 429
        assert _create(limited, "10.0.0.3") == 429
    finally:
        other.extensions["coins.db"].dispose()


def test_hints_are_limited_per_token(limited: Flask):
    client = limited.test_client()
    created = client.post("/v1/games", json={"seats": [{"name": "A"}, {"name": "B"}, {"name": "C"}]}).json
    tokens = {c["seat"]: c["token"] for c in created["credentials"]}
    allowed = int(LIMITS["hints"][0].split("/")[0])
    url = f"/v1/games/{created['id']}/hint"
    for _ in range(allowed):
        assert client.get(url, headers={"Authorization": f"Bearer {tokens[0]}"}).status_code != 429
    assert client.get(url, headers={"Authorization": f"Bearer {tokens[0]}"}).status_code == 429
    assert client.get(url, headers={"Authorization": f"Bearer {tokens[1]}"}).status_code != 429  # its own count


def test_a_limited_request_claims_no_key(limited: Flask):
    allowed = int(SHARED_LIMITS["create"][0].split("/")[0])
    for _ in range(allowed):
        _create(limited, "10.0.0.4")
    headers = {"Idempotency-Key": str(uuid.uuid4())}
    client = limited.test_client()
    refused = client.post("/v1/games", json={}, headers=headers, environ_base={"REMOTE_ADDR": "10.0.0.4"})
    assert refused.status_code == 429
    keys = limited.extensions["coins.db"]
    with keys.engine.connect() as connection:
        from sqlalchemy import text

        assert connection.execute(text("SELECT count(*) FROM idempotency_keys")).scalar() == 0


def test_off_means_no_limit(client):
    allowed = int(SHARED_LIMITS["create"][0].split("/")[0])
    assert all(client.post("/v1/games", json={}).status_code == 201 for _ in range(allowed + 5))


def _redis_up() -> bool:
    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=0.5).close()
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _redis_up(), reason="no Redis on 127.0.0.1:6379")
def test_redis_keeps_the_counts_when_redis_url_is_set(settings: Settings):
    app = create_app(dataclasses.replace(settings, rate_limits="on", redis_url="redis://127.0.0.1:6379/15"))
    try:
        address = f"10.9.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}"
        allowed = int(SHARED_LIMITS["create"][0].split("/")[0])
        assert [_create(app, address) for _ in range(allowed)] == [201] * allowed
        assert _create(app, address) == 429
        db = app.extensions["coins.db"]
        with db.engine.connect() as connection:
            from sqlalchemy import text

            assert connection.execute(text("SELECT count(*) FROM rate_limits")).scalar() == 0
    finally:
        app.extensions["coins.db"].dispose()


def _table_of_three(app: Flask) -> tuple[str, list[dict[str, str]]]:
    client = app.test_client()
    seats = [{"name": name} for name in ("A", "B", "C")]
    created = client.post("/v1/games", json={"seats": seats, "first_dealer": 0}).json
    headers = [{"Authorization": f"Bearer {c['token']}"} for c in created["credentials"]]
    assert client.post(f"/v1/games/{created['id']}/hands", headers=headers[0]).status_code == 201
    return created["id"], headers


def _play(app: Flask, game_id: str, headers: dict[str, str]) -> int:
    client = app.test_client()
    card = client.get(f"/v1/games/{game_id}/hand", headers=headers).json["cards"][0]
    return client.post(f"/v1/games/{game_id}/plays", json={"card": card}, headers=headers).status_code


def _play_counters(app: Flask) -> int:
    from sqlalchemy import text

    with app.extensions["coins.db"].engine.connect() as connection:
        return connection.execute(text("SELECT count(*) FROM rate_limits WHERE key LIKE '%play:%'")).scalar()


@pytest.fixture
def three_plays_a_minute(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[Flask]:
    monkeypatch.setitem(LIMITS, "plays", ("3/minute", *LIMITS["plays"][1:]))
    app = create_app(dataclasses.replace(settings, rate_limits="on"))
    yield app
    app.extensions["coins.db"].dispose()


def test_accepted_plays_are_limited_per_seat_without_writing_a_counter(three_plays_a_minute: Flask):
    app = three_plays_a_minute
    game_id, headers = _table_of_three(app)
    for _ in range(9):  # three tricks: each seat plays three times
        seat = app.test_client().get(f"/v1/games/{game_id}").json["turn"]
        assert _play(app, game_id, headers[seat]) == 201
    assert _play_counters(app) == 0  # counted from the plays' own actions
    seat = app.test_client().get(f"/v1/games/{game_id}").json["turn"]
    refused = app.test_client().post(f"/v1/games/{game_id}/plays", json={"card": "ace-coins"}, headers=headers[seat])
    assert refused.status_code == 429 and refused.json["code"] == "too_many_requests"
    assert 1 <= int(refused.headers["Retry-After"]) <= 61
    other_game, other_headers = _table_of_three(app)  # another seat counts apart
    first = app.test_client().get(f"/v1/games/{other_game}").json["turn"]
    assert _play(app, other_game, other_headers[first]) == 201


def test_refused_plays_count_against_the_seat(three_plays_a_minute: Flask):
    app = three_plays_a_minute
    game_id, headers = _table_of_three(app)
    seat = app.test_client().get(f"/v1/games/{game_id}").json["turn"]
    waiting = headers[(seat + 1) % 3]
    statuses = [
        app.test_client().post(f"/v1/games/{game_id}/plays", json={"card": "ace-coins"}, headers=waiting).status_code
        for _ in range(4)
    ]
    assert statuses == [409, 409, 409, 429]  # not_your_turn thrice, then over the limit
    assert _play_counters(app) == 1
    assert _play(app, game_id, headers[seat]) == 201  # the seat whose turn it is has its own count


def _finished_game(app: Flask, address: str) -> Table:
    """A finished game of three people (to 1 point), created from ``address``."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    seats = [{"name": "Ana", "age": 41}, {"name": "Bo"}, {"name": "Cy"}]
    created = client.post("/v1/games", json={"seats": seats, "target_score": 1, "seed": "limits"}).json
    table = Table(client, created["id"], {c["seat"]: c["token"] for c in created["credentials"]})
    assert play_to_end(table)["status"] == "finished"
    return table


def test_rematches_count_against_the_creation_limit_of_the_address(limited: Flask):
    table = _finished_game(limited, "10.0.0.7")  # one creation
    allowed = int(SHARED_LIMITS["create"][0].split("/")[0])
    url = f"/v1/games/{table.id}/rematch"
    answers = [table.client.post(url, headers=table.auth(index % 3)).status_code for index in range(allowed - 1)]
    assert answers == [201] + [200] * (allowed - 2)
    refused = table.client.post(url, headers=table.auth(0))
    assert refused.status_code == 429 and refused.json["code"] == "too_many_requests"
    assert 1 <= int(refused.headers["Retry-After"]) <= 61
    assert _create(limited, "10.0.0.7") == 429  # and createGame with it: one count
    anonymous = table.client.post(url)  # no token: refused for that, as if no limit were reached
    assert anonymous.status_code == 401 and anonymous.json["code"] == "missing_token"
    elsewhere = limited.test_client().post(url, headers=table.auth(1), environ_base={"REMOTE_ADDR": "10.0.0.8"})
    assert elsewhere.status_code == 200  # the same seat from another address counts there


def test_games_of_bots_only_have_a_smaller_limit_per_address(limited: Flask):
    client = limited.test_client()
    bots = {"seats": [{"bot": "random"}, {"bot": "basic"}, {"bot": "random"}], "target_score": 1}
    allowed = int(SHARED_LIMITS["bots-only"][0].split("/")[0])
    address = {"REMOTE_ADDR": "10.0.0.9"}
    assert [client.post("/v1/games", json=bots, environ_base=address).status_code for _ in range(allowed)] == [
        201
    ] * allowed
    refused = client.post("/v1/games", json=bots, environ_base=address)
    assert refused.status_code == 429 and refused.json["code"] == "too_many_requests"
    person = {"seats": [{"name": "Ana"}, {"bot": "basic"}, {"bot": "random"}]}
    assert client.post("/v1/games", json=person, environ_base=address).status_code == 201


def test_a_line_of_rematches_makes_a_limited_number_of_games_from_any_address(limited: Flask):
    table = _finished_game(limited, "10.0.1.0")
    for generation in range(1, LINEAGE_GAMES_PER_MINUTE):  # the first game and its rematches
        client = limited.test_client()
        client.environ_base["REMOTE_ADDR"] = f"10.0.1.{generation}"  # each from an address of its own
        taken = [client.post(f"/v1/games/{table.id}/rematch", headers=table.auth(seat)) for seat in range(3)]
        assert [answer.status_code for answer in taken] == [201, 200, 200]
        table = Table(
            client, taken[0].json["game"]["id"], {seat: answer.json["token"] for seat, answer in enumerate(taken)}
        )
        assert play_to_end(table)["status"] == "finished"
    elsewhere = {"REMOTE_ADDR": "10.0.1.200"}
    refused = limited.test_client().post(f"/v1/games/{table.id}/rematch", headers=table.auth(0), environ_base=elsewhere)
    assert refused.status_code == 429 and refused.json["code"] == "too_many_requests"
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert _create(limited, "10.0.1.200") == 201  # the address itself may still create
