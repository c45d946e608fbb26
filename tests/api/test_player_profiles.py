"""Players: createPlayer (the key shown once), profiles, replacing a key, a player's games, bad input."""

from __future__ import annotations

import logging

import pytest

from service.bots import STRENGTHS
from service.games.ids import BOT_PLAYER_IDS
from tests.support.players import new_player

NEW_PROFILE = {
    "bot": None,
    "rating": {"value": 1500, "provisional": True, "games": 0},
    "games": {"played": 0, "won": 0},
}


def test_create_a_player_shows_the_key_once(client):
    response = client.post("/v1/players", json={"name": "  Ana  "})
    assert response.status_code == 201
    created = response.json
    assert created["name"] == "Ana"  # trimmed
    assert created["key"].startswith("cpk_") and len(created["key"]) >= 4 + 43
    assert response.headers["Location"] == f"/v1/players/{created['id']}"
    assert {name: created[name] for name in NEW_PROFILE} == NEW_PROFILE
    public = client.get(response.headers["Location"]).json
    assert public == {name: value for name, value in created.items() if name != "key"}
    me = client.get("/v1/players/me", headers={"Authorization": f"Bearer {created['key']}"})
    assert me.status_code == 200 and me.json == public
    assert created["key"] not in me.text and created["key"] not in client.get(response.headers["Location"]).text


def test_the_key_is_not_logged(client, caplog):
    with caplog.at_level(logging.DEBUG):
        key = client.post("/v1/players", json={"name": "Bo"}).json["key"]
        client.get("/v1/players/me", headers={"Authorization": f"Bearer {key}"})
        client.post("/v1/players/me/key", headers={"Authorization": f"Bearer {key}"})
    assert key not in caplog.text and key.removeprefix("cpk_") not in caplog.text


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("x" * 41, "at most 40"),
        ("Ana\x07", "U+0007: a control character"),
        ("A\u200eB", "U+200E (LEFT-TO-RIGHT MARK): an invisible"),  # a format character
        ("A\u0085B", "U+0085"),  # a C1 control (inside: at an end it is white space, trimmed)
        ("A\x00", "U+0000"),
        (5, "Not a valid string"),
        (None, "Field may not be null"),
    ],
)
def test_bad_names_are_422_validation_error(client, name, message):
    response = client.post("/v1/players", json={"name": name})
    assert response.status_code == 422 and response.json["code"] == "validation_error"
    assert message in response.json["errors"]["name"][0]


def test_forty_characters_after_trimming_are_a_name(client):
    assert client.post("/v1/players", json={"name": f"  {'é' * 40}  "}).json["name"] == "é" * 40


def test_every_bot_strength_is_a_player(client):
    for strength in STRENGTHS:
        profile = client.get(f"/v1/players/{BOT_PLAYER_IDS[strength]}").json
        assert profile["bot"] == strength and profile["name"] == f"{strength.capitalize()} bot"
        assert profile["rating"] == NEW_PROFILE["rating"]


@pytest.mark.parametrize(
    ("headers", "code"),
    [
        ({}, "missing_token"),
        ({"Authorization": "Bearer cpk_nobody"}, "invalid_key"),
        ({"Authorization": "Bearer a-seat-token"}, "invalid_key"),
        ({"Authorization": "Basic cpk_x"}, "missing_token"),
    ],
)
def test_me_needs_a_valid_key(client, headers, code):
    response = client.get("/v1/players/me", headers=headers)
    assert response.status_code == 401 and response.json["code"] == code
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize("player_id", ["nope", "0" * 25, "0" * 26 + "0", "0000000000000000000000000u", "ME"])
def test_malformed_player_ids_are_404(client, player_id):
    for path in (f"/v1/players/{player_id}", f"/v1/players/{player_id}/games"):
        response = client.get(path)
        assert response.status_code == 404 and response.json["code"] == "player_not_found"


def test_an_unknown_player_is_404(client):
    for path in ("/v1/players/01jf3v9k2m8q4r6t0w5x7y9z1b", "/v1/players/01jf3v9k2m8q4r6t0w5x7y9z1b/games"):
        response = client.get(path)
        assert response.status_code == 404 and response.json["code"] == "player_not_found"


def test_replacing_the_key_stops_the_old_one_at_once(client):
    player = new_player(client)
    game = client.post("/v1/games", json={"seats": [{"player": "me"}, None, None]}, headers=player.auth).json
    response = client.post("/v1/players/me/key", headers=player.auth)
    assert response.status_code == 200
    new_key = response.json["key"]
    assert new_key != player.key and new_key.startswith("cpk_") and response.json["id"] == player.id
    for path in ("/v1/players/me", f"/v1/games/{game['id']}/hand"):
        old = client.get(path, headers=player.auth)
        assert old.status_code == 401 and old.json["code"] == "invalid_key", path
        assert client.get(path, headers={"Authorization": f"Bearer {new_key}"}).status_code == 200, path
    again = client.post("/v1/players/me/key", headers=player.auth)
    assert again.status_code == 401 and again.json["code"] == "invalid_key"


def test_a_retried_key_replacement_answers_the_same_key(client):
    player = new_player(client)
    headers = {**player.auth, "Idempotency-Key": "replace-1"}
    first = client.post("/v1/players/me/key", headers=headers)
    retry = client.post("/v1/players/me/key", headers=headers)
    assert retry.headers.get("Idempotent-Replayed") == "true" and retry.json == first.json
    assert client.get("/v1/players/me", headers={"Authorization": f"Bearer {first.json['key']}"}).status_code == 200


def test_a_players_games_newest_first_with_their_seat_and_turn(client):
    ana = new_player(client)
    first = client.post("/v1/games", json={"seats": [{"bot": "basic"}, {"player": "me"}, None]}, headers=ana.auth).json
    second = client.post(
        "/v1/games",
        json={"seats": [{"player": "me"}, {"bot": "random"}, {"bot": "basic"}], "first_dealer": 0},
        headers=ana.auth,
    ).json
    client.post("/v1/games", json={"seats": [{"name": "Someone else"}, None, None]})
    page = client.get(f"/v1/players/{ana.id}/games").json
    assert [item["id"] for item in page["items"]] == [second["id"], first["id"]] and page["next_cursor"] is None
    newest, oldest = page["items"]
    assert newest["seat"] == 0 and newest["status"] == "waiting_for_deal" and newest["your_turn"] is True
    assert newest["turn"] == 0 and newest["left"] is False and newest["rated"] is False
    assert oldest["seat"] == 1 and oldest["status"] == "waiting_for_players" and oldest["your_turn"] is False
    assert newest["score"] == 0 and newest["place"] is None
    assert newest["opponents"] == [
        {"seat": 1, "name": "Random bot", "bot": "random", "player": BOT_PLAYER_IDS["random"], "score": 0},
        {"seat": 2, "name": "Basic bot", "bot": "basic", "player": BOT_PLAYER_IDS["basic"], "score": 0},
    ]
    assert [(item["seat"], item["bot"], item["name"]) for item in oldest["opponents"]] == [
        (0, "basic", "Basic bot"),
        (2, None, None),
    ]
    waiting = client.get(f"/v1/players/{ana.id}/games", query_string={"status": "waiting_for_players"}).json
    assert [item["id"] for item in waiting["items"]] == [first["id"]]
    one = client.get(f"/v1/players/{ana.id}/games", query_string={"limit": 1})
    assert [item["id"] for item in one.json["items"]] == [second["id"]]
    assert 'rel="next"' in one.headers["Link"]
    rest = client.get(f"/v1/players/{ana.id}/games", query_string={"limit": 1, "cursor": one.json["next_cursor"]})
    assert [item["id"] for item in rest.json["items"]] == [first["id"]] and rest.json["next_cursor"] is None
    bad = client.get(f"/v1/players/{ana.id}/games", query_string={"cursor": "nope"})
    assert bad.status_code == 400 and bad.json["code"] == "invalid_cursor"


def test_played_and_won_count_finished_games(client):
    ana = new_player(client)
    game = client.post(
        "/v1/games",
        json={"seats": [{"player": "me"}, {"bot": "basic"}, {"bot": "expert"}], "target_score": 1, "auto_deal": True},
        headers=ana.auth,
    ).json
    seat = 0
    for _ in range(200):
        state = client.get(f"/v1/games/{game['id']}").json
        if state["status"] == "finished":
            break
        if state["turn"] == seat:
            card = client.get(f"/v1/games/{game['id']}/hand", headers=ana.auth).json["cards"][0]
            hint = client.get(f"/v1/games/{game['id']}/hint", headers=ana.auth).json
            played = client.post(
                f"/v1/games/{game['id']}/plays", json={"card": hint.get("card", card)}, headers=ana.auth
            )
            assert played.status_code == 201, played.json
    assert state["status"] == "finished"
    won = 1 if state["winner"] == seat else 0
    assert client.get(f"/v1/players/{ana.id}").json["games"] == {"played": 1, "won": won}
    [listed] = client.get(f"/v1/players/{ana.id}/games").json["items"]
    scores = [seat["score"] for seat in state["seats"]]
    others = [other for other in (1, 2) if other != state["winner"]]
    assert listed["score"] == scores[seat] and listed["place"] == (
        1 if won else 2 + sum(scores[o] > scores[seat] for o in others)
    )
    assert [(item["seat"], item["score"]) for item in listed["opponents"]] == [(1, scores[1]), (2, scores[2])]
    expert = client.get(f"/v1/players/{BOT_PLAYER_IDS['expert']}").json["games"]
    assert expert == {"played": 1, "won": 1 if state["winner"] == 2 else 0}
