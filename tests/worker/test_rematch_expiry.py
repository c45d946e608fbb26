"""A rematch offer's expiry is the worker's due work, on both databases: not complete within the longer
of 10 minutes and the game's clock, the offer is cancelled (reason ``expired``) with nobody reading it,
its players told; after that any seat may ask again, which makes a new offer."""

from __future__ import annotations

from datetime import timedelta

from flask import Flask

from service.games import GameService
from tests.api.test_record import play_to_end
from tests.support.players import new_player
from tests.support.rated_games import play_out

TEN_MINUTES = 600


def _status(app: Flask, game_id: str) -> str:
    games: GameService = app.extensions["coins.games"]
    return games.get(game_id).status


def _ask(client, game_id, headers):
    return client.post(f"/v1/games/{game_id}/rematch", headers=headers)


def test_an_offer_not_taken_in_ten_minutes_is_cancelled_and_a_new_one_follows(app, client, clock, worker, new_table):
    table = new_table(target_score=3, seed="expiry", first_dealer=0, turn_timeout_seconds=30)
    assert play_to_end(table)["status"] == "finished"
    offer = _ask(client, table.id, table.auth(0)).json["game"]["id"]
    worker.run_due(clock.now + timedelta(seconds=TEN_MINUTES - 1))
    assert _status(app, offer) == "waiting_for_players"  # the game's 30 s clock is shorter: ten minutes
    clock.now += timedelta(seconds=TEN_MINUTES + 1)
    assert worker.run_due(clock.now) >= 1
    assert _status(app, offer) == "cancelled"
    assert worker.run_due(clock.now) == 0  # once
    events = client.get(f"/v1/games/{offer}/events?after=0").json["items"]
    assert [e["reason"] for e in events if e["type"] == "game_cancelled"] == ["expired"]
    late = _ask(client, table.id, table.auth(1))  # a late accept is a new offer, by that seat
    assert late.status_code == 201, late.json
    assert late.json["game"]["id"] != offer and [s["open"] for s in late.json["game"]["seats"]] == [True, False, True]


def test_an_offer_waits_for_a_longer_clock(app, client, clock, worker):
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    day = 86400
    seats = [{"player": "me"}, {"player": bo.id}, {"bot": "basic"}]
    game = client.post(
        "/v1/games", json={"seats": seats, "target_score": 1, "turn_timeout_seconds": day}, headers=ana.auth
    )
    assert game.status_code == 201, game.json
    game_id = game.json["id"]
    assert client.post(f"/v1/games/{game_id}/players", json={"player": "me"}, headers=bo.auth).status_code == 201
    play_out(client, game_id, {0: ana.auth, 1: bo.auth})
    offer = _ask(client, game_id, bo.auth).json["game"]
    assert offer["seats"][0]["reserved_for"] == ana.id
    clock.now += timedelta(seconds=day - 10)
    worker.run_due(clock.now)
    assert _status(app, offer["id"]) == "waiting_for_players"
    clock.now += timedelta(seconds=20)
    worker.run_due(clock.now)
    assert _status(app, offer["id"]) == "cancelled"
    for player in (ana, bo):
        items = client.get("/v1/players/me/events?after=0", headers=player.auth).json["items"]
        assert [(e["game"], e["reason"]) for e in items if e["type"] == "game_cancelled"] == [(offer["id"], "expired")]


def test_an_offer_taken_in_time_is_dealt_and_not_cancelled(app, client, clock, worker, new_table):
    table = new_table(target_score=3, seed="in-time", first_dealer=0)
    assert play_to_end(table)["status"] == "finished"
    offer = _ask(client, table.id, table.auth(0)).json["game"]["id"]
    clock.now += timedelta(seconds=TEN_MINUTES - 10)
    for seat in (1, 2):
        assert _ask(client, table.id, table.auth(seat)).status_code == 200
    clock.now += timedelta(seconds=20)
    worker.run_due(clock.now)
    assert _status(app, offer) == "waiting_for_deal"  # no clock on this table: the dealer takes their time


def test_an_ask_after_the_offer_ran_out_finds_it_cancelled_without_a_worker(app, client, clock, new_table):
    table = new_table(target_score=3, seed="no-worker", first_dealer=0)
    assert play_to_end(table)["status"] == "finished"
    offer = _ask(client, table.id, table.auth(0)).json["game"]["id"]
    clock.now += timedelta(seconds=TEN_MINUTES + 1)
    again = _ask(client, table.id, table.auth(2))
    assert again.status_code == 201 and again.json["game"]["id"] != offer
    assert _status(app, offer) == "cancelled"
    events = client.get(f"/v1/games/{offer}/events?after=0").json["items"]
    assert [e["reason"] for e in events if e["type"] == "game_cancelled"] == ["expired"]
