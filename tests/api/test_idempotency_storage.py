"""No storage without a reason: a keyed POST whose caller or game is not known, or whose body is
refused before its use case runs, stores no key (counted from outside, on both databases)."""

from __future__ import annotations

import uuid
from typing import Any

from flask import Flask
from sqlalchemy import text

from service.games.ids import new_game_id

SEATS = [{"name": "Ana", "age": 41}, {"name": "Bo", "age": 35}, {"name": "Cy", "age": 29}]
BOGUS = {"Authorization": "Bearer not-a-token-of-this-game"}


def kept_keys(app: Flask) -> int:
    with app.extensions["coins.db"].engine.connect() as connection:
        return int(connection.execute(text("SELECT count(*) FROM idempotency_keys")).scalar_one())


def keyed(headers: dict[str, str] | None = None) -> dict[str, str]:
    return {"Idempotency-Key": str(uuid.uuid4()), **(headers or {})}


def bogus_requests(game_id: str, card: str) -> list[tuple[str, dict[str, str], Any]]:
    """(path, headers, JSON body) of requests nobody is allowed to make; ``game_id`` exists."""
    unknown = new_game_id()
    return [
        (f"/v1/games/{game_id}/hands", BOGUS, None),
        (f"/v1/games/{game_id}/hands", {}, None),  # no token at all
        (f"/v1/games/{unknown}/hands", BOGUS, None),
        (f"/v1/games/{game_id}/plays", BOGUS, {"card": card}),
        (f"/v1/games/{game_id}/plays", BOGUS, {"card": "not-a-card"}),
        (f"/v1/games/{unknown}/plays", BOGUS, {"card": card}),
        (f"/v1/games/{game_id}/players/0/leave", BOGUS, {}),
        (f"/v1/games/{unknown}/players/0/leave", BOGUS, {}),
        (f"/v1/games/{game_id}/rematch", BOGUS, None),
        (f"/v1/games/{unknown}/rematch", BOGUS, None),
        (f"/v1/games/{unknown}/players", {}, {"name": "Dee"}),
        (f"/v1/games/{game_id}/players", {}, {"name": "", "seat": 7}),  # join with bad input
        (f"/v1/games/{game_id}/players", {}, {"name": "Dee", "extra": 1}),
        ("/v1/games", {}, {"target_score": 0}),  # create with bad input
        ("/v1/games", {}, {"seats": "three"}),
    ]


def test_bogus_requests_store_no_key(app: Flask, client, new_table):
    table = new_table(seed="bogus", first_dealer=0)
    table.deal(0)
    card = table.hand(table.state()["turn"])[0]
    before = kept_keys(app)
    for path, headers, body in bogus_requests(table.id, card):
        for _ in range(2):  # a retry with the same key gets the same refusal, and stores nothing either
            response = client.post(path, json=body, headers=keyed(headers))
            assert 400 <= response.status_code < 500, (path, response.json)
            assert response.status_code not in (409, 429), (path, response.json)
            assert "Idempotent-Replayed" not in response.headers, path
    assert kept_keys(app) == before


def test_a_refusal_without_a_row_is_the_same_on_retry(client):
    headers = keyed(BOGUS)
    unknown = new_game_id()
    answers = [client.post(f"/v1/games/{unknown}/hands", headers=headers) for _ in range(2)]
    assert {answer.status_code for answer in answers} == {404}
    assert {answer.json["code"] for answer in answers} == {"game_not_found"}


def test_an_allowed_request_and_its_refusals_are_still_kept(app: Flask, client, new_table):
    table = new_table(seed="kept", first_dealer=0)
    assert kept_keys(app) == 0
    not_dealer = client.post(f"/v1/games/{table.id}/hands", headers=keyed(table.auth(1)))
    assert not_dealer.status_code == 403 and not_dealer.json["code"] == "not_dealer"
    assert kept_keys(app) == 1  # the caller is a seat of this game: its refusal is replayed
    created = client.post("/v1/games", json={"seats": SEATS}, headers=keyed())
    assert created.status_code == 201
    assert kept_keys(app) == 2
