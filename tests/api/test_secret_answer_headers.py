"""Caching of answers a credential shapes: an answer showing a secret once (createPlayer's and
replacePlayerKey's key, a seat's token from createGame, joinGame and rematchGame) says
``Cache-Control: no-store``, an Idempotency-Key replay too; getTicket, read with the player's key,
is private as getHand is (``Cache-Control: private``, ``Vary: Authorization``). The webhooks' own
(createWebhook, listWebhooks): tests/webhooks/test_webhooks.py."""

from __future__ import annotations

import uuid
from typing import Any

from flask.testing import FlaskClient

from service.api.context import PRIVATE
from tests.api.test_record import play_to_end
from tests.support.players import new_player


def no_store(response: Any) -> bool:
    return response.headers.get("Cache-Control") == "no-store"


def private(response: Any) -> bool:
    varies = [name.strip().lower() for name in response.headers.get("Vary", "").split(",")]
    return response.headers.get("Cache-Control") == PRIVATE["Cache-Control"] and "authorization" in varies


def test_a_new_or_replaced_key_is_not_stored(client: FlaskClient) -> None:
    made = client.post("/v1/players", json={"name": "Ana"})
    assert made.status_code == 201 and "key" in made.json and no_store(made)
    replaced = client.post("/v1/players/me/key", headers={"Authorization": f"Bearer {made.json['key']}"})
    assert replaced.status_code == 200 and replaced.json["key"] != made.json["key"] and no_store(replaced)


def test_a_replayed_answer_with_a_key_is_not_stored_either(client: FlaskClient) -> None:
    headers = {"Idempotency-Key": str(uuid.uuid4())}
    first = client.post("/v1/players", json={"name": "Ana"}, headers=headers)
    again = client.post("/v1/players", json={"name": "Ana"}, headers=headers)
    assert again.headers["Idempotent-Replayed"] == "true" and again.json["key"] == first.json["key"]
    assert no_store(first) and no_store(again)


def test_seat_tokens_are_not_stored(client: FlaskClient, new_table: Any) -> None:
    created = client.post("/v1/games", json={"seats": [{"name": "Ana"}, None, None]})
    assert created.status_code == 201 and created.json["credentials"] and no_store(created)
    joined = client.post(f"/v1/games/{created.json['id']}/players", json={"name": "Bo"})
    assert joined.status_code == 201 and joined.json["token"] and no_store(joined)
    table = new_table(seats=[{"name": "Ana"}, {"name": "Bo"}, {"name": "Cy"}], target_score=3, seed="s", first_dealer=0)
    assert play_to_end(table)["status"] == "finished"
    rematch = client.post(f"/v1/games/{table.id}/rematch", headers={"Authorization": f"Bearer {table.tokens[0]}"})
    assert rematch.status_code == 201 and rematch.json["token"] and no_store(rematch)


def test_a_ticket_is_read_privately(client: FlaskClient) -> None:
    ana = new_player(client)
    ticket = client.post("/v1/queue", json={"target_score": 15}, headers=ana.auth)
    assert ticket.status_code == 201, ticket.json
    read = client.get(f"/v1/queue/{ticket.json['id']}", headers=ana.auth)
    assert read.status_code == 200 and private(read)
