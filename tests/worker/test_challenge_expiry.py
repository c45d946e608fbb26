"""A challenge's expiry is the worker's due work, on both databases: a pass after ``challenge_seconds``
cancels the game (reason ``expired``) with nobody reading it, once across two workers; a challenge
accepted in time is not cancelled; a change that comes after the expiry finds the game cancelled."""

from __future__ import annotations

import threading
from datetime import timedelta

from flask import Flask

from service.games import GameService
from service.worker import Worker
from tests.support.players import new_player

WAIT = 120  # seconds a challenge waits


def _challenge(client, seats=None):
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    seats = seats or [{"player": "me"}, {"player": bo.id}, {"bot": "basic"}]
    created = client.post("/v1/games", json={"seats": seats, "challenge_seconds": WAIT}, headers=ana.auth)
    assert created.status_code == 201, created.json
    return ana, bo, created.json["id"]


def _status(app: Flask, game_id: str) -> str:
    games: GameService = app.extensions["coins.games"]
    return games.get(game_id).status


def test_a_pass_after_the_wait_cancels_the_challenge(app, client, clock, worker):
    ana, bo, game_id = _challenge(client)
    worker.run_due(clock.now + timedelta(seconds=WAIT - 1))
    assert _status(app, game_id) == "waiting_for_players"  # not yet due
    clock.now += timedelta(seconds=WAIT + 1)
    assert worker.run_due(clock.now) >= 1
    assert _status(app, game_id) == "cancelled"
    assert worker.run_due(clock.now) == 0  # once: nothing is due any more
    events = client.get(f"/v1/games/{game_id}/events?after=0").json["items"]
    assert [e["reason"] for e in events if e["type"] == "game_cancelled"] == ["expired"]
    for player in (ana, bo):
        items = client.get("/v1/players/me/events?after=0", headers=player.auth).json["items"]
        assert [e["reason"] for e in items if e["type"] == "game_cancelled"] == ["expired"]
    late = client.post(f"/v1/games/{game_id}/players", json={"player": "me"}, headers=bo.auth)
    assert late.status_code == 409 and late.json["code"] == "game_cancelled"


def test_two_workers_cancel_an_expired_challenge_once(app, client, clock, worker):
    games: GameService = app.extensions["coins.games"]
    other = Worker(games, games.store.due, clock, poll=0.01, instance="test:2")
    _ana, _bo, game_id = _challenge(client)
    clock.now += timedelta(seconds=WAIT + 1)
    barrier = threading.Barrier(2)

    def run(each: Worker) -> None:
        barrier.wait(10)
        each.run_due(clock.now)

    threads = [threading.Thread(target=run, args=(each,)) for each in (worker, other)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    events = client.get(f"/v1/games/{game_id}/events?after=0").json["items"]
    assert [e["type"] for e in events].count("game_cancelled") == 1


def test_a_challenge_accepted_in_time_is_not_cancelled(app, client, clock, worker):
    _ana, bo, game_id = _challenge(client)
    clock.now += timedelta(seconds=WAIT - 10)
    joined = client.post(f"/v1/games/{game_id}/players", json={"player": "me"}, headers=bo.auth)
    assert joined.status_code == 201, joined.json
    clock.now += timedelta(seconds=20)
    worker.run_due(clock.now)
    assert _status(app, game_id) != "cancelled"


def test_a_join_after_the_wait_finds_the_game_cancelled_without_a_worker(app, client, clock):
    _ana, bo, game_id = _challenge(client)
    clock.now += timedelta(seconds=WAIT + 1)
    late = client.post(f"/v1/games/{game_id}/players", json={"player": "me"}, headers=bo.auth)
    assert late.status_code == 409 and late.json["code"] == "game_cancelled"
    assert _status(app, game_id) == "cancelled"


def test_a_game_with_an_open_seat_left_after_acceptance_has_no_deadline(app, client, clock, worker):
    ana = new_player(client, "Ana")
    bo = new_player(client, "Bo")
    seats = [{"player": "me"}, {"player": bo.id}, None]
    game_id = client.post("/v1/games", json={"seats": seats, "challenge_seconds": WAIT}, headers=ana.auth).json["id"]
    assert client.post(f"/v1/games/{game_id}/players", json={"player": "me"}, headers=bo.auth).status_code == 201
    clock.now += timedelta(seconds=WAIT + 1)
    assert worker.run_due(clock.now) == 0  # nothing reserved is left to run out
    assert _status(app, game_id) == "waiting_for_players"
