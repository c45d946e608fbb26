"""The lapse rule (contract 1.3, "Clocks"), on both databases: each deadline a seat lets pass gets a
stand-in's move; the second in a row in a live game, the first in a correspondence game (a clock of an
hour or more), is a leave: a bot takes the seat for good, the seat's token retires, and a rated game
whose seat had not played yet is void. The seat's own move starts the count again."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from service.games import GameService
from service.games.leaving import CORRESPONDENCE_SECONDS
from service.games.server_moves import STAND_IN
from tests.support.every_event import Clock
from tests.support.rated_games import rated_table

LIVE = 30  # seconds a turn


@pytest.fixture
def clock(app) -> Clock:
    clock = Clock()
    service: GameService = app.extensions["coins.games"]
    service.clock = clock
    return clock


def _until_turn_of(table: Any, seat: int) -> dict[str, Any]:
    """The other seats play their first card at once until it is ``seat``'s turn to play."""
    for _ in range(6):
        state = table.state()
        if state["turn"] == seat:
            return state
        assert state["status"] == "playing", state
        turn = state["turn"]
        played = table.play(turn, table.hand(turn)[0])
        assert played.status_code == 201, played.json
    raise AssertionError(f"seat {seat} never got the turn")


def _lapse(table: Any, clock: Clock, seconds: int) -> dict[str, Any]:
    clock.now += timedelta(seconds=seconds + 1)
    return table.state()  # a read finds the deadline passed: the move it owes is made first


def _actions(client, game_id: str) -> list[dict[str, Any]]:
    return client.get(f"/v1/games/{game_id}/actions?limit=500").json["items"]


def test_two_deadlines_in_a_row_in_a_live_game_are_a_leave(client, new_table, clock):
    table = new_table(seed="lapses", first_dealer=0, turn_timeout_seconds=LIVE)
    assert table.deal(0).status_code == 201
    _until_turn_of(table, 1)
    state = _lapse(table, clock, LIVE)
    assert state["seats"][1]["bot"] is None  # one lapse: a stand-in played, the seat is still Bo's
    assert _actions(client, table.id)[-1]["cause"] == "timeout"
    assert client.get(f"/v1/games/{table.id}/hand", headers=table.auth(1)).status_code == 200
    _until_turn_of(table, 1)
    state = _lapse(table, clock, LIVE)
    assert state["seats"][1]["bot"] == STAND_IN  # the second in a row: Bo has left, a bot plays on
    last = _actions(client, table.id)[-1]
    assert last["seat"] == 1 and last["cause"] == "bot"
    assert client.get(f"/v1/games/{table.id}/hand", headers=table.auth(1)).status_code == 401  # token retired
    left = [
        e
        for e in client.get(f"/v1/games/{table.id}/events?after=0&limit=200").json["items"]
        if e["type"] == "seat_left"
    ]
    assert [(e["seat"], e["bot"]) for e in left] == [(1, STAND_IN)]


def test_the_seats_own_move_starts_the_count_again(client, new_table, clock):
    table = new_table(seed="lapses-reset", first_dealer=0, turn_timeout_seconds=LIVE)
    table.deal(0)
    _until_turn_of(table, 1)
    _lapse(table, clock, LIVE)
    state = _until_turn_of(table, 1)
    assert table.play(1, table.hand(1)[0]).status_code == 201  # in time: the lapse before no longer counts
    _until_turn_of(table, 1)
    state = _lapse(table, clock, LIVE)
    assert state["seats"][1]["bot"] is None
    assert client.get(f"/v1/games/{table.id}/hand", headers=table.auth(1)).status_code == 200


def test_one_deadline_in_a_correspondence_game_is_a_leave(client, new_table, clock):
    table = new_table(seed="lapses-post", first_dealer=0, turn_timeout_seconds=CORRESPONDENCE_SECONDS)
    table.deal(0)
    _until_turn_of(table, 1)
    state = _lapse(table, clock, CORRESPONDENCE_SECONDS)
    assert state["seats"][1]["bot"] == STAND_IN
    assert client.get(f"/v1/games/{table.id}/hand", headers=table.auth(1)).status_code == 401


def test_a_dealer_who_lets_two_deadlines_pass_leaves_too(client, new_table, clock):
    table = new_table(seed="lapses-deal", first_dealer=0, turn_timeout_seconds=10)
    state = _lapse(table, clock, 10)  # the dealer's first deadline: a stand-in deals
    assert state["status"] == "playing" and state["seats"][0]["bot"] is None
    _until_turn_of(table, 0)
    state = _lapse(table, clock, 10)
    assert state["seats"][0]["bot"] == STAND_IN


def test_a_rated_seat_that_lapses_out_before_its_first_card_makes_the_game_void(client, clock):
    game_id, ana, bo = rated_table(client, target_score=10)  # rated: a clock of 60 s by default
    auth = {0: ana.auth, 1: bo.auth}
    for _ in range(2):  # Bo never plays: each of their turns lapses, the second is a leave
        for _ in range(6):
            state = client.get(f"/v1/games/{game_id}").json
            if state["turn"] == 1 or state["seats"][1]["bot"] is not None:
                break
            turn = state["turn"]
            assert turn in auth, state
            if state["status"] == "waiting_for_deal":
                assert client.post(f"/v1/games/{game_id}/hands", headers=auth[turn]).status_code == 201
            else:
                card = client.get(f"/v1/games/{game_id}/hand", headers=auth[turn]).json["cards"][0]
                assert (
                    client.post(f"/v1/games/{game_id}/plays", json={"card": card}, headers=auth[turn]).status_code
                    == 201
                )
        clock.now += timedelta(seconds=61)
    state = client.get(f"/v1/games/{game_id}").json
    assert state["seats"][1]["bot"] == STAND_IN and state["void"] is True


@pytest.mark.parametrize(("seconds", "status"), [(4, 422), (5, 201), (14 * 24 * 3600, 201), (14 * 24 * 3600 + 1, 422)])
def test_a_turn_clock_takes_5_seconds_to_14_days(client, seconds, status):
    response = client.post("/v1/games", json={"turn_timeout_seconds": seconds})
    assert response.status_code == status, response.json
    if status == 422:
        assert response.json["code"] == "validation_error" and "turn_timeout_seconds" in response.json["errors"]
    else:
        assert response.json["turn_timeout_seconds"] == seconds


def test_a_correspondence_deadline_days_away_passes_with_a_stand_ins_move(client, new_table, clock):
    days = 3 * 24 * 3600
    table = new_table(seed="lapses-days", first_dealer=0, turn_timeout_seconds=days)
    table.deal(0)
    state = _until_turn_of(table, 1)
    deadline = datetime.fromisoformat(state["turn_deadline"])
    assert deadline == clock.now + timedelta(seconds=days)
    state = _lapse(table, clock, days)
    assert state["seats"][1]["bot"] == STAND_IN  # one lapse in a correspondence game is a leave
