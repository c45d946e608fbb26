"""The RateLimit and RateLimit-Policy fields (draft-ietf-httpapi-ratelimit-headers-10) on the answers of
limited operations, and the spec stating each operation's limits, on both databases."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from service import create_app
from service.api.hooks.limits import LIMITED_OPERATIONS, LIMITS, POLICIES, SHARED_LIMITS
from service.config import Settings
from tests.support.players import new_player

ITEM = re.compile(r'^"(?P<name>[a-z-]+)"((;[a-z]+=\d+)+)$')  # a structured field's item: a string, integer parameters


@pytest.fixture
def limited(settings: Settings) -> Iterator[Flask]:
    app = create_app(dataclasses.replace(settings, rate_limits="on"))
    yield app
    app.extensions["coins.db"].dispose()


def fields(value: str) -> dict[str, dict[str, int]]:
    """A RateLimit or RateLimit-Policy field's items: each policy's name and its parameters."""
    items = {}
    for item in value.split(", "):
        match = ITEM.match(item)
        assert match, value
        items[match["name"]] = {k: int(v) for k, v in (p.split("=") for p in match[2].strip(";").split(";"))}
    return items


def test_each_answer_says_what_is_left(limited: Flask) -> None:
    client = limited.test_client()
    address = {"REMOTE_ADDR": "10.0.0.7"}
    answers = [client.post("/v1/games", json={}, environ_base=address) for _ in range(3)]
    assert [a.status_code for a in answers] == [201] * 3
    quota = int(SHARED_LIMITS["create"][0].split("/")[0])
    for count, answer in enumerate(answers, 1):
        assert fields(answer.headers["RateLimit-Policy"]) == {"create": {"q": quota, "w": 60}}
        left = fields(answer.headers["RateLimit"])["create"]
        assert left["r"] == quota - count and 0 < left["t"] <= 60
    bots = client.post("/v1/games", json={"seats": [{"bot": "random"}] * 3}, environ_base=address)
    assert set(fields(bots.headers["RateLimit"])) == {"create", "bots-only"}
    elsewhere = client.post("/v1/games", json={}, environ_base={"REMOTE_ADDR": "10.0.0.8"})
    assert fields(elsewhere.headers["RateLimit"])["create"]["r"] == quota - 1  # its own count


def test_the_refusal_over_a_limit_says_nothing_is_left(limited: Flask) -> None:
    client = limited.test_client()
    quota = int(LIMITS["profiles"][0].split("/")[0])
    for _ in range(quota):
        assert client.post("/v1/players", json={"name": "Ana"}).status_code == 201
    refused = client.post("/v1/players", json={"name": "Ana"})
    assert refused.status_code == 429 and refused.json["code"] == "too_many_requests"
    left = fields(refused.headers["RateLimit"])["players"]
    # One figure, within the window: Flask-Limiter's reset_at, a second late, made Retry-After 61.
    assert left["r"] == 0 and left["t"] == int(refused.headers["Retry-After"]) <= 60


def test_a_players_plays_per_key_and_game(limited: Flask) -> None:
    client = limited.test_client()
    ana = new_player(client)
    game = client.post("/v1/games", json={"seats": [{"player": "me"}, {"bot": "random"}, {"bot": "random"}],
                                            "first_dealer": 1, "auto_deal": True}, headers=ana.auth).json  # fmt: skip
    state = client.get(f"/v1/games/{game['id']}").json
    assert state["turn"] == 0, state
    card = client.get(f"/v1/games/{game['id']}/hand", headers=ana.auth).json["cards"][0]
    played = client.post(f"/v1/games/{game['id']}/plays", json={"card": card}, headers=ana.auth)
    assert played.status_code == 201, played.json
    assert fields(played.headers["RateLimit"])["plays"]["r"] == int(LIMITS["plays"][0].split("/")[0]) - 1


def test_no_fields_where_no_limit_counts(limited: Flask, client: Any) -> None:
    assert "RateLimit" not in limited.test_client().get("/v1/games").headers  # a read no limit counts
    assert "RateLimit" not in client.post("/v1/games", json={}).headers  # RATE_LIMITS=off


def test_the_spec_states_each_limited_operations_limits(client: Any) -> None:
    spec = client.get("/openapi.json").json
    counted = set()
    shared = {name for _, blueprints, _ in SHARED_LIMITS.values() for name in blueprints}
    for item in spec["paths"].values():
        for method, operation in item.items():
            if method == "parameters":
                continue
            tag = operation["tags"][0]  # the blueprint's name
            if (method == "post" and tag in shared) or (tag in LIMITS and LIMITS[tag][1].lower() == method):
                counted.add(operation["operationId"])
    assert counted - {"leaveGame"} == set(LIMITED_OPERATIONS)  # leaveGame: exempt from the join limit
    for item in spec["paths"].values():
        for operation in item.values():
            names = LIMITED_OPERATIONS.get(operation.get("operationId")) if isinstance(operation, dict) else None
            if not names:
                continue
            for name in names:
                assert f"`{name}`: {POLICIES[name][0]}" in operation["description"]
            for status, response in operation["responses"].items():
                if status != "default":
                    assert {"RateLimit", "RateLimit-Policy"} <= set(response["headers"]), (
                        operation["operationId"],
                        status,
                    )
    assert set(spec["components"]["headers"]) >= {"RateLimit", "RateLimit-Policy"}
