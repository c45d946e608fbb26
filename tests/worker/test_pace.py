"""The bots' pace on both databases (contract 1.3, issue 34): a request makes no server move; the
next one falls due a pace after the move before it (the trick pause after a trick), and the worker
makes it then, not before, once across two workers, and sleeps until then. The service's clock is
moved by hand: nothing here sleeps."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import text

from service.config import ConfigError, Settings
from service.games import GameService
from service.worker import Worker
from tests.support.every_event import Clock
from tests.support.players import new_player
from tests.support.working_client import bare_client

PACE = timedelta(seconds=1)
TRICK_PAUSE = timedelta(milliseconds=1500)
JUST_BEFORE = timedelta(milliseconds=1)


@pytest.fixture
def settings(database_url: str) -> Settings:
    return Settings(database_url=database_url, rate_limits="off", bot_pace_ms=1000, trick_pause_ms=1500)


@pytest.fixture
def clock(app: Flask) -> Clock:
    clock = Clock()
    app.extensions["coins.games"].clock = clock
    return clock


@pytest.fixture
def worker(app: Flask, clock: Clock) -> Worker:
    games: GameService = app.extensions["coins.games"]
    return Worker(games, games.store.due, clock, poll=10, instance="pace:1")


@pytest.fixture
def http(app: Flask) -> FlaskClient:
    """Requests alone: the worker's passes are the test's, at the times it chooses."""
    return bare_client(app)


def _actions(app: Flask, game_id: str) -> int:
    """The game's count of actions, read from its row."""
    with app.extensions["coins.db"].engine.connect() as connection:
        return int(connection.execute(text("SELECT action_count FROM games WHERE id = :id"), {"id": game_id}).scalar())


def _ana_against_two_bots(http: FlaskClient, seed: str = "pace") -> tuple[str, dict[str, str]]:
    """A game of Ana (seat 0, the first dealer) and two bots, dealt by Ana: seats 1 and 2 play next."""
    seats = [{"name": "Ana", "age": 40}, {"bot": "random"}, {"bot": "random"}]
    created = http.post("/v1/games", json={"seats": seats, "seed": seed, "first_dealer": 0, "auto_deal": False})
    assert created.status_code == 201, created.json
    auth = {"Authorization": f"Bearer {created.json['credentials'][0]['token']}"}
    dealt = http.post(f"/v1/games/{created.json['id']}/hands", headers=auth)
    assert dealt.status_code == 201, dealt.json
    assert dealt.json["game"]["turn"] == 1  # the request made no bot move
    return created.json["id"], auth


def _play_any(http: FlaskClient, game_id: str, auth: dict[str, str]) -> Any:
    """Ana plays the first of her cards the rules allow."""
    for card in http.get(f"/v1/games/{game_id}/hand", headers=auth).json["cards"]:
        played = http.post(f"/v1/games/{game_id}/plays", json={"card": card}, headers=auth)
        if played.status_code == 201:
            return played.json
    raise AssertionError("no card of Ana's could be played")


def test_a_bots_move_is_made_a_pace_after_the_move_before_it_and_not_before(app, http, clock, worker):
    dealt_at = clock.now
    game_id, _auth = _ana_against_two_bots(http)
    actions = _actions(app, game_id)
    assert worker.run_due(dealt_at + PACE - JUST_BEFORE) == 0 and _actions(app, game_id) == actions
    clock.now = dealt_at + PACE
    assert worker.run_due(clock.now) == 1 and _actions(app, game_id) == actions + 1  # one move: seat 1's
    assert worker.run_due(clock.now) == 0  # seat 2's is a pace later
    clock.now += PACE
    assert worker.run_due(clock.now) == 1 and _actions(app, game_id) == actions + 2
    assert http.get(f"/v1/games/{game_id}").json["turn"] == 0  # Ana's: no deadline in this game


def test_the_worker_sleeps_until_the_next_move_falls_due(app, http, clock, worker):
    assert worker.pause() == worker.poll  # nothing due: a whole pause
    _ana_against_two_bots(http)
    assert worker.pause() == pytest.approx(PACE.total_seconds())
    clock.now += PACE / 4
    assert worker.pause() == pytest.approx(0.75 * PACE.total_seconds())


def test_after_a_trick_the_next_server_move_waits_the_trick_pause(app, http, clock, worker):
    game_id, auth = _ana_against_two_bots(http, seed="pace-1")  # seat 1 wins the first trick
    for _ in range(2):
        clock.now += PACE
        assert worker.run_due(clock.now) == 1
    played = _play_any(http, game_id, auth)  # completes the first trick
    assert played["trick"]["complete"] and played["trick"]["winner"] == 1
    actions = _actions(app, game_id)
    assert worker.run_due(clock.now + PACE) == 0  # not a pace: the trick pause, longer
    assert worker.run_due(clock.now + TRICK_PAUSE - JUST_BEFORE) == 0 and _actions(app, game_id) == actions
    clock.now += TRICK_PAUSE
    assert worker.run_due(clock.now) == 1 and _actions(app, game_id) == actions + 1  # seat 1 leads


def test_two_workers_make_a_paced_move_once(app, http, clock, worker):
    games: GameService = app.extensions["coins.games"]
    other = Worker(games, games.store.due, clock, poll=10, instance="pace:2")
    game_id, _auth = _ana_against_two_bots(http)
    actions = _actions(app, game_id)
    clock.now += PACE
    barrier = threading.Barrier(2)
    made: list[int] = []

    def run(each: Worker) -> None:
        barrier.wait(10)
        made.append(each.run_due(clock.now))

    threads = [threading.Thread(target=run, args=(each,)) for each in (worker, other)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(made) == [0, 1] and _actions(app, game_id) == actions + 1


def test_a_game_of_bots_alone_moves_a_pace_at_a_time_only_while_followed(app, http, clock, worker):
    created = clock.now
    game_id = http.post("/v1/games", json={"seats": [{"bot": "random"}] * 3, "seed": "alone"}).json["id"]
    assert _actions(app, game_id) == 0  # the request made no move: the deal is a pace away
    clock.now = created + 10 * PACE
    assert worker.run_due(clock.now) == 0 and _actions(app, game_id) == 0  # nobody follows it: paused
    assert worker.pause() == worker.poll  # and the worker does not wake for it
    app.extensions["coins.games"].store.due.mark_followed([game_id], clock.now + 3 * PACE)
    assert worker.run_due(clock.now) == 1 and _actions(app, game_id) == 1  # the deal, overdue: made now
    for moves in (2, 3):
        clock.now += PACE
        assert worker.run_due(clock.now) == 1 and _actions(app, game_id) == moves
    clock.now += 2 * PACE  # the mark has lapsed: nobody follows it any more
    assert worker.run_due(clock.now) == 0 and _actions(app, game_id) == 3


def test_the_pace_settings_are_read_from_the_environment_and_bounded():
    assert (Settings().bot_pace_ms, Settings().trick_pause_ms) == (1000, 1500)  # the web client pauses 1200 ms
    read = Settings.from_env({"BOT_PACE_MS": " 0 ", "TRICK_PAUSE_MS": "2000"})
    assert (read.bot_pace_ms, read.trick_pause_ms) == (0, 2000)
    for name in ("BOT_PACE_MS", "TRICK_PAUSE_MS"):
        for raw in ("-1", "10001", "fast"):
            with pytest.raises(ConfigError, match=name):
                Settings.from_env({name: raw})


def test_a_game_a_player_left_to_bots_plays_on_unfollowed(app, http, clock, worker):
    ana = new_player(http, "Ana")
    seats = [{"player": "me"}, {"bot": "basic"}, {"bot": "random"}]
    game_id = http.post("/v1/games", json={"seats": seats, "seed": "left"}, headers=ana.auth).json["id"]
    assert http.post(f"/v1/games/{game_id}/players/0/leave", headers=ana.auth).status_code == 200
    for moves in (1, 2, 3):  # a pace apart, with nobody following: Ana's seat still names her
        assert worker.run_due(clock.now + PACE - JUST_BEFORE) == 0 or _actions(app, game_id) == moves - 1
        clock.now += PACE
        worker.run_due(clock.now)  # its moves, and Ana's feed's events
        assert _actions(app, game_id) == moves
