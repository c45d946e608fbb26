"""Limits for players: creating players per address; a key's plays counted per game, from their actions."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest
from flask import Flask
from sqlalchemy import text

from service import create_app
from service.api.hooks.limits import LIMITS
from service.config import Settings
from tests.support.players import Player, new_player


@pytest.fixture
def limited(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[Flask]:
    monkeypatch.setitem(LIMITS, "plays", ("3/minute", *LIMITS["plays"][1:]))
    app = create_app(dataclasses.replace(settings, rate_limits="on"))
    yield app
    app.extensions["coins.db"].dispose()


def test_creating_players_is_limited_per_address(limited: Flask) -> None:
    client = limited.test_client()
    statuses = [
        client.post("/v1/players", json={"name": "P"}, environ_base={"REMOTE_ADDR": "127.0.0.2"}).status_code
        for _ in range(11)
    ]
    assert statuses == [201] * 10 + [429]
    assert client.post("/v1/players", json={"name": "Q"}, environ_base={"REMOTE_ADDR": "127.0.0.3"}).status_code == 201


def _table(app: Flask, players: list[Player]) -> str:
    client = app.test_client()
    body = {"seats": [{"player": "me"}, None, None], "first_dealer": 0}
    game_id: str = client.post("/v1/games", json=body, headers=players[0].auth).json["id"]
    for seat in (1, 2):
        joined = client.post(f"/v1/games/{game_id}/players", json={"player": "me"}, headers=players[seat].auth)
        assert joined.status_code == 201, joined.json
    assert client.post(f"/v1/games/{game_id}/hands", headers=players[0].auth).status_code == 201
    return game_id


def _play(app: Flask, game_id: str, player: Player) -> int:
    client = app.test_client()
    card = client.get(f"/v1/games/{game_id}/hand", headers=player.auth).json["cards"][0]
    return client.post(f"/v1/games/{game_id}/plays", json={"card": card}, headers=player.auth).status_code


def test_a_keys_plays_are_counted_per_game_from_their_actions(limited: Flask) -> None:
    client = limited.test_client()
    players = [new_player(client, name, REMOTE_ADDR=f"127.0.0.{n + 2}") for n, name in enumerate("ABC")]
    game_id, other_game = _table(limited, players), _table(limited, players)
    by_seat = dict(enumerate(players))
    for _ in range(9):  # three tricks: each key plays three times in this game
        seat = client.get(f"/v1/games/{game_id}").json["turn"]
        assert _play(limited, game_id, by_seat[seat]) == 201
    with limited.extensions["coins.db"].engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM rate_limits WHERE key LIKE '%play:%'")).scalar() == 0
    seat = client.get(f"/v1/games/{game_id}").json["turn"]
    refused = client.post(f"/v1/games/{game_id}/plays", json={"card": "ace-coins"}, headers=by_seat[seat].auth)
    assert refused.status_code == 429 and refused.json["code"] == "too_many_requests"
    first = client.get(f"/v1/games/{other_game}").json["turn"]
    assert _play(limited, other_game, by_seat[first]) == 201  # the same key in another game counts apart
