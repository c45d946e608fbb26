"""Accounts on both databases: DELETE /v1/players/me (the key stops at once, the name goes, the leaderboard
forgets the player, tickets are cancelled, games in progress are left, the history stays), and a player an
operator barred from rated play (403 rated_play_barred wherever a rated seat is asked for)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import text

from service.config import Settings
from service.games.ids import BOT_PLAYER_IDS
from service.players import Operators
from tests.support.players import Player, new_player
from tests.support.rated_games import play_out, rated_game_played, rated_table
from tests.support.realtime import Realtime
from tests.support.working_client import NO_PACE

ME = {"player": "me"}


@pytest.fixture
def settings(database_url: str) -> Settings:
    """Rate limits off, and a one-second heartbeat (a stream's idle reader checks its key on each)."""
    return Settings(database_url=database_url, rate_limits="off", stream_heartbeat_seconds=1, **NO_PACE)


@pytest.fixture
def operators(app) -> Operators:
    return Operators(app.extensions["coins.games"], lambda: datetime.now(UTC))


def _sql(app, sql: str, **params):
    with app.extensions["coins.db"].engine.begin() as connection:
        result = connection.execute(text(sql), params)
        return result.all() if result.returns_rows else []


def _delete(client, player: Player):
    return client.delete("/v1/players/me", headers=player.auth)


def test_deleting_an_account_stops_its_key_and_its_name(client, realtime: Realtime):
    ana = new_player(client, "Ana")
    with realtime.stream("/v1/players/me/events", token=ana.key, timeout=30) as stream:
        assert stream.status == 200
        events = stream.events()
        assert next(events).type == "player"
        deleted = _delete(client, ana)
        assert deleted.status_code == 204 and deleted.data == b""
        rest = list(events)  # the stream its key opened ends (at its next heartbeat at the latest)
    assert rest == []
    for response in (client.get("/v1/players/me", headers=ana.auth), _delete(client, ana)):
        assert response.status_code == 401 and response.json["code"] == "invalid_key"
    profile = client.get(f"/v1/players/{ana.id}").json
    assert profile["name"] == "Deleted player" and profile["id"] == ana.id
    assert client.post("/v1/players", json={"name": "Deleted player"}).status_code == 422  # nobody takes the name


@pytest.mark.parametrize(
    ("headers", "code"), [({}, "missing_token"), ({"Authorization": "Bearer cpk_x"}, "invalid_key")]
)
def test_deleting_needs_the_key(client, headers, code):
    response = client.delete("/v1/players/me", headers=headers)
    assert response.status_code == 401 and response.json["code"] == code


def test_a_deleted_player_leaves_their_games_in_progress(client):
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    waiting = client.post("/v1/games", json={"seats": [ME, None, None]}, headers=ana.auth).json["id"]
    started = client.post(
        "/v1/games", json={"seats": [ME, {"bot": "random"}, None], "rated": True, "target_score": 3}, headers=ana.auth
    ).json["id"]
    client.post(f"/v1/games/{started}/players", json=ME, headers=bo.auth)
    assert _delete(client, ana).status_code == 204
    open_seat = client.get(f"/v1/games/{waiting}").json["seats"][0]
    assert open_seat["open"] is True and open_seat["player"] is None  # not started: the seat opens again
    game = client.get(f"/v1/games/{started}").json
    seat = game["seats"][0]
    assert seat["bot"] == "basic" and seat["player"] == ana.id and seat["name"] == "Deleted player"
    assert game["void"] is True  # Ana left before her first card
    final = play_out(client, started, {2: bo.auth})
    assert final["status"] == "finished"


def test_the_rating_history_stays_and_the_leaderboard_forgets(client, app):
    game_id, ana, bo, _ = rated_game_played(client)
    before = client.get(f"/v1/players/{ana.id}/ratings").json["items"]
    _sql(app, "UPDATE players SET listable = :yes, listed_until = :until, opponents = 3 WHERE id = :id",
         yes=True, until=datetime(2099, 1, 1, tzinfo=UTC), id=ana.id)  # fmt: skip
    assert ana.id in [item["player"]["id"] for item in client.get("/v1/leaderboard").json["items"]]
    assert _delete(client, ana).status_code == 204
    assert client.get(f"/v1/players/{ana.id}/ratings").json["items"] == before  # for the others' sake
    assert [item["game"] for item in client.get(f"/v1/players/{bo.id}/ratings").json["items"]] == [game_id]
    for query in ({}, {"provisional": "true"}):
        board = client.get("/v1/leaderboard", query_string=query).json["items"]
        assert ana.id not in [item["player"]["id"] for item in board]


def test_a_deleted_players_waiting_ticket_is_cancelled(client, app):
    ana = new_player(client, "Ana")
    ticket = client.post("/v1/queue", json={"bots_after": None}, headers=ana.auth).json["id"]
    assert _delete(client, ana).status_code == 204
    assert _sql(app, "SELECT status FROM queue_tickets WHERE id = :id", id=ticket) == [("cancelled",)]


# -- barred from rated play --------------------------------------------------------------------------


def test_a_barred_player_takes_no_rated_seat(client, app, operators):
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    ticket = client.post("/v1/queue", json={"bots_after": None}, headers=ana.auth).json["id"]
    operators.bar(ana.id, operator="ops", reason="farming")
    assert _sql(app, "SELECT status FROM queue_tickets WHERE id = :id", id=ticket) == [("cancelled",)]
    refusals = [
        client.post("/v1/games", json={"seats": [ME, {"bot": "random"}, None], "rated": True}, headers=ana.auth),
        client.post("/v1/queue", json={"rated": True}, headers=ana.auth),
    ]
    game_id = client.post("/v1/games", json={"seats": [ME, None, None], "rated": True}, headers=bo.auth).json["id"]
    refusals.append(client.post(f"/v1/games/{game_id}/players", json=ME, headers=ana.auth))
    for response in refusals:
        assert response.status_code == 403 and response.json["code"] == "rated_play_barred", response.json
    assert client.post("/v1/games", json={"seats": [ME, None, None]}, headers=ana.auth).status_code == 201
    assert client.post("/v1/queue", json={"rated": False}, headers=ana.auth).status_code == 201
    operators.lift_bar(ana.id, operator="ops", reason="appeal upheld")
    assert client.post(f"/v1/games/{game_id}/players", json=ME, headers=ana.auth).status_code == 201


def test_the_rematch_of_a_rated_game_with_a_barred_player_is_not_rated(client, operators):
    game_id, ana, bo = rated_table(client)
    play_out(client, game_id, {0: ana.auth, 1: bo.auth})
    operators.bar(ana.id, operator="ops", reason="farming")
    rematch = client.post(f"/v1/games/{game_id}/rematch", headers=bo.auth)
    assert rematch.status_code == 201 and rematch.json["game"]["rated"] is False


def test_a_barred_player_leaves_the_leaderboard_and_a_lifted_bar_lists_them_again(client, app, operators):
    ana = new_player(client, "Ana")
    _sql(app, "UPDATE players SET mu = 30, sigma = 2, rated_games = 20, rated_at = :at, opponents = 3,"
         " listable = :yes, listed_until = :until WHERE id = :id", at=datetime.now(UTC), yes=True,
         until=datetime(2099, 1, 1, tzinfo=UTC), id=ana.id)  # fmt: skip

    def ranked() -> bool:
        return ana.id in [item["player"]["id"] for item in client.get("/v1/leaderboard").json["items"]]

    assert ranked()
    operators.bar(ana.id, operator="ops", reason="farming")
    assert not ranked()
    operators.lift_bar(ana.id, operator="ops", reason="appeal upheld")
    assert ranked()
    assert client.get(f"/v1/players/{BOT_PLAYER_IDS['basic']}").status_code == 200
