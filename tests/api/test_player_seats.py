"""Seats for players: {"player": "me"} in createGame and joinGame, the key acting for the seat in every
seat operation, leaving, rematches, rated games' rules, and the problems of each."""

from __future__ import annotations

import pytest

from service.games.ids import BOT_PLAYER_IDS
from tests.support.players import new_player
from tests.support.rated_games import play_out as _play_out


def _create(client, seats, headers=None, **body):
    return client.post("/v1/games", json={"seats": seats, **body}, headers=headers or {})


def test_a_seat_for_me_is_the_players_with_no_token(client):
    ana = new_player(client, "Ana")
    response = _create(client, [{"player": "me"}, {"name": "Bo"}, None], ana.auth)
    assert response.status_code == 201, response.json
    game = response.json
    assert [c["seat"] for c in game["credentials"]] == [1]  # only the anonymous seat has a token
    assert ana.key not in response.text
    assert [(s["name"], s["player"], s["open"]) for s in game["seats"]] == [
        ("Ana", ana.id, False),
        ("Bo", None, False),
        (None, None, True),
    ]
    assert game["rated"] is False


def test_join_as_a_player_and_play_with_the_key(client):
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    game = _create(client, [{"player": "me"}, None, {"bot": "expert"}], ana.auth, first_dealer=0).json
    joined = client.post(f"/v1/games/{game['id']}/players", json={"player": "me"}, headers=bo.auth)
    assert joined.status_code == 201, joined.json
    assert joined.json["seat"] == 1 and joined.json["token"] is None
    assert joined.json["game"]["seats"][1]["player"] == bo.id and joined.json["game"]["seats"][1]["name"] == "Bo"
    assert joined.json["game"]["seats"][2]["player"] == BOT_PLAYER_IDS["expert"]
    dealt = client.post(f"/v1/games/{game['id']}/hands", headers=ana.auth)
    assert dealt.status_code == 201, dealt.json
    state = client.get(f"/v1/games/{game['id']}").json
    player = ana if state["turn"] == 0 else bo
    hand = client.get(f"/v1/games/{game['id']}/hand", headers=player.auth).json
    assert hand["seat"] == state["turn"] and len(hand["cards"]) == 16
    hint = client.get(f"/v1/games/{game['id']}/hint", headers=player.auth)
    assert hint.status_code == 200, hint.json
    played = client.post(f"/v1/games/{game['id']}/plays", json={"card": hint.json["card"]}, headers=player.auth)
    assert played.status_code == 201 and played.json["play"]["seat"] == state["turn"]


def test_a_key_acts_only_for_its_players_seat(client):
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    game = _create(client, [{"player": "me"}, {"name": "Cy"}, {"name": "Di"}], ana.auth, first_dealer=0).json
    stranger = client.get(f"/v1/games/{game['id']}/hand", headers=bo.auth)  # a valid key, no seat here
    assert stranger.status_code == 403 and stranger.json["code"] == "not_your_seat"
    deal = client.post(f"/v1/games/{game['id']}/hands", headers=bo.auth)
    assert deal.status_code == 403 and deal.json["code"] == "not_your_seat"
    other_seat = client.post(f"/v1/games/{game['id']}/players/1/leave", headers=ana.auth)
    assert other_seat.status_code == 403 and other_seat.json["code"] == "not_your_seat"
    unknown = client.get(f"/v1/games/{game['id']}/hand", headers={"Authorization": "Bearer cpk_unknown"})
    assert unknown.status_code == 401 and unknown.json["code"] == "invalid_key"
    assert client.get(f"/v1/games/{game['id']}").json["version"] == game["version"]  # nothing applied


def test_a_player_holds_one_seat_of_a_game(client):
    ana = new_player(client)
    twice = _create(client, [{"player": "me"}, {"player": "me"}, None], ana.auth)
    assert twice.status_code == 409 and twice.json["code"] == "already_seated"
    game = _create(client, [{"player": "me"}, None, None], ana.auth).json
    again = client.post(f"/v1/games/{game['id']}/players", json={"player": "me"}, headers=ana.auth)
    assert again.status_code == 409 and again.json["code"] == "already_seated"
    assert client.get(f"/v1/games/{game['id']}").json["seats"][1]["open"] is True  # nothing half-applied


def test_bots_may_hold_several_seats_of_an_unrated_game(client):
    game = _create(client, [{"bot": "basic"}, {"bot": "basic"}, None]).json
    assert [s["player"] for s in game["seats"]] == [BOT_PLAYER_IDS["basic"]] * 2 + [None]


@pytest.mark.parametrize(
    ("headers", "status", "code"),
    [({}, 401, "missing_token"), ({"Authorization": "Bearer cpk_nobody"}, 401, "invalid_key")],
)
def test_a_seat_for_me_needs_a_valid_key(client, headers, status, code):
    created = _create(client, [{"player": "me"}, None, None], headers)
    assert created.status_code == status and created.json["code"] == code
    game = _create(client, [None, None, None]).json
    joined = client.post(f"/v1/games/{game['id']}/players", json={"player": "me"}, headers=headers)
    assert joined.status_code == status and joined.json["code"] == code
    assert client.get("/v1/games").json["items"][0]["id"] == game["id"]  # no game made by the refused create


@pytest.mark.parametrize(
    "seat",
    [{"player": "you"}, {"player": "me", "name": "X"}, {"player": "me", "bot": "basic"}, {"player": "me", "age": 3}],
)
def test_a_player_seat_takes_nothing_else(client, seat):
    ana = new_player(client)
    response = _create(client, [seat, None, None], ana.auth)
    assert response.status_code == 422 and response.json["code"] == "validation_error"


def test_join_needs_a_name_or_a_player(client):
    game = _create(client, [None, None, None]).json
    for body in ({}, {"seat": 1}, {"player": "me", "name": "X"}):
        response = client.post(f"/v1/games/{game['id']}/players", json=body)
        assert response.status_code == 422 and response.json["code"] == "validation_error", body


def test_leaving_keeps_the_player_on_the_seat(client):
    ana = new_player(client)
    game = _create(client, [{"player": "me"}, {"name": "Bo"}, {"name": "Cy"}], ana.auth, first_dealer=1).json
    left = client.post(f"/v1/games/{game['id']}/players/0/leave", json={"bot": "expert"}, headers=ana.auth)
    assert left.status_code == 200, left.json
    assert left.json["seats"][0]["bot"] == "expert" and left.json["seats"][0]["player"] == ana.id
    gone = client.get(f"/v1/games/{game['id']}/hand", headers=ana.auth)
    assert gone.status_code == 403 and gone.json["code"] == "not_your_seat"
    item = client.get(f"/v1/players/{ana.id}/games").json["items"][0]
    assert item["left"] is True and item["your_turn"] is False


def test_leaving_before_the_start_opens_the_seat(client):
    ana = new_player(client)
    game = _create(client, [{"player": "me"}, None, None], ana.auth).json
    left = client.post(f"/v1/games/{game['id']}/players/0/leave", headers=ana.auth)
    assert left.json["seats"][0] == {**left.json["seats"][0], "open": True, "player": None, "name": None}
    assert client.get(f"/v1/players/{ana.id}/games").json["items"] == []


def test_the_rematch_seats_the_same_players_and_stays_rated(client):
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    game = _create(client, [{"player": "me"}, None, {"bot": "basic"}], ana.auth, target_score=1, rated=True).json
    client.post(f"/v1/games/{game['id']}/players", json={"player": "me"}, headers=bo.auth)
    _play_out(client, game["id"], {0: ana.auth, 1: bo.auth})
    rematch = client.post(f"/v1/games/{game['id']}/rematch", headers=bo.auth)
    assert rematch.status_code == 201, rematch.json
    assert rematch.json["token"] is None and rematch.json["seat"] == 1
    new = rematch.json["game"]
    assert new["rated"] is True and [s["player"] for s in new["seats"]] == [None, bo.id, BOT_PLAYER_IDS["basic"]]
    assert [s["reserved_for"] for s in new["seats"]] == [ana.id, None, None]  # kept for Ana until she asks
    assert client.get(f"/v1/games/{new['id']}/hand", headers=ana.auth).status_code == 403  # not seated yet
    joined = client.post(f"/v1/games/{new['id']}/players", json={"player": "me"}, headers=ana.auth)
    assert joined.status_code == 409 and joined.json["code"] == "seat_reserved"  # an offer is taken by asking
    accepted = client.post(f"/v1/games/{game['id']}/rematch", headers=ana.auth)
    assert accepted.status_code == 200 and accepted.json["seat"] == 0 and accepted.json["token"] is None
    assert (
        accepted.json["game"]["seats"][0]["player"] == ana.id
        and accepted.json["game"]["status"] != "waiting_for_players"
    )
    assert client.get(f"/v1/games/{new['id']}/hand", headers=ana.auth).status_code == 200


def test_rated_games_seat_players_and_bots_only(client):
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    anonymous = _create(client, [{"player": "me"}, {"name": "Anon"}, None], ana.auth, rated=True)
    assert anonymous.status_code == 409 and anonymous.json["code"] == "player_required"
    seeded = _create(client, [{"player": "me"}, None, None], ana.auth, rated=True, seed="x")
    assert seeded.status_code == 422 and seeded.json["code"] == "seeded_game_unrated"
    same_bots = _create(client, [{"player": "me"}, {"bot": "basic"}, {"bot": "basic"}], ana.auth, rated=True)
    assert same_bots.status_code == 422 and same_bots.json["code"] == "bot_seated_twice"
    game = _create(client, [{"player": "me"}, None, None], ana.auth, rated=True).json
    assert game["rated"] is True
    anon_join = client.post(f"/v1/games/{game['id']}/players", json={"name": "Anon"})
    assert anon_join.status_code == 409 and anon_join.json["code"] == "player_required"
    assert client.post(f"/v1/games/{game['id']}/players", json={"player": "me"}, headers=bo.auth).status_code == 201
    assert len(client.get("/v1/games").json["items"]) == 1  # the refused creations made nothing


def test_the_key_is_in_no_game_answer_or_event(client):
    ana = new_player(client)
    game = _create(client, [{"player": "me"}, {"bot": "basic"}, {"bot": "random"}], ana.auth, auto_deal=True).json
    for path in ("", "/hand", "/actions", "/events?after=0", "/record"):
        response = client.get(f"/v1/games/{game['id']}{path}", headers=ana.auth)
        assert response.status_code == 200, (path, response.json)
        assert ana.key not in response.get_data(as_text=True), path
    private = client.get(f"/v1/games/{game['id']}/events", query_string={"after": 0}, headers=ana.auth).json
    assert any(item["type"] == "hand" and item["seat"] == 0 for item in private["items"])  # the player's own cards
    public = client.get(f"/v1/games/{game['id']}/events", query_string={"after": 0}).json
    assert not any(item["type"] == "hand" for item in public["items"])
