"""createGame, getGame, getScores, listGames: defaults, validation, ETags, pagination."""

from __future__ import annotations

import pytest

from tests.api.test_record import play_to_end, verify

PLAYERS = [{"name": "Ana", "age": 41}, {"name": "Bo", "age": 35}, {"name": "Cy", "age": 29}]


def test_create_defaults_to_three_open_seats(client):
    response = client.post("/v1/games", json={})
    assert response.status_code == 201
    game = response.json
    assert response.headers["Location"] == f"/v1/games/{game['id']}"
    assert response.headers["ETag"] == f'"{game["id"]}.1"'
    assert game["status"] == "waiting_for_players"
    assert game["target_score"] == 15 and game["version"] == 1 and game["hand_number"] == 0
    assert game["seeded"] is False and game["auto_deal"] is False
    assert [seat["open"] for seat in game["seats"]] == [True, True, True]
    assert game["credentials"] == []
    assert game["dealer"] is None and game["turn"] is None and game["winner"] is None


def test_create_with_three_players_starts_the_game(client):
    response = client.post("/v1/games", json={"seats": PLAYERS, "target_score": 10})
    game = response.json
    assert game["status"] == "waiting_for_deal"
    assert [c["seat"] for c in game["credentials"]] == [0, 1, 2]
    assert all(len(c["token"]) >= 22 for c in game["credentials"])  # >= 128 bits, url-safe
    assert len({c["token"] for c in game["credentials"]}) == 3
    assert game["first_dealer"] == 0 and game["first_dealer_chosen_by"] == "oldest"
    assert game["dealer"] == 0 and game["turn"] == 0


@pytest.mark.parametrize(
    ("body", "dealer", "chosen_by"),
    [
        ({"seats": PLAYERS, "first_dealer": 2}, 2, "named"),
        ({"seats": [{"name": "A", "age": 20}, {"name": "B", "age": 70}, {"name": "C", "age": 30}]}, 1, "oldest"),
        ({"seats": [{"name": "A", "age": 70}, {"name": "B", "age": 70}, {"name": "C", "age": 30}]}, None, "drawn"),
        ({"seats": [{"name": "A"}, {"name": "B"}, {"name": "C"}]}, None, "drawn"),
    ],
)
def test_first_dealer_named_else_oldest_else_drawn(client, body, dealer, chosen_by):
    game = client.post("/v1/games", json=body).json
    assert game["first_dealer_chosen_by"] == chosen_by
    if dealer is not None:
        assert game["first_dealer"] == dealer
    assert game["first_dealer"] in (0, 1, 2)


def test_a_named_first_dealer_is_shown_before_the_game_starts(client):
    """A game with open seats has no deal yet, but the seat named to deal first is known and shown;
    one not named is chosen as the game starts."""
    named = client.post("/v1/games", json={"seats": [PLAYERS[0], None, None], "first_dealer": 2}).json
    assert named["status"] == "waiting_for_players"
    assert (named["first_dealer"], named["first_dealer_chosen_by"]) == (2, "named")
    unnamed = client.post("/v1/games", json={"seats": [PLAYERS[0], None, None]}).json
    assert (unnamed["first_dealer"], unnamed["first_dealer_chosen_by"]) == (None, None)
    assert named["expires_at"] is None  # no seat is reserved: nothing runs out


def test_seeded_draw_is_reproducible(client):
    body = {"seats": [{"name": "A"}, {"name": "B"}, {"name": "C"}], "seed": "draw"}
    dealers = {client.post("/v1/games", json=body).json["first_dealer"] for _ in range(3)}
    assert len(dealers) == 1


@pytest.mark.parametrize("seed", ["marked", None])
def test_a_seeded_game_is_marked_in_the_game_the_lobby_and_the_record(client, new_table, tmp_path, seed):
    """Only a game created with a seed says so, wherever it is shown; coins-verify checks either record."""
    table = new_table(target_score=1, **({"seed": seed} if seed else {}))
    seeded = seed is not None
    assert table.state()["seeded"] is seeded
    listed = [game for game in client.get("/v1/games?limit=100").json["items"] if game["id"] == table.id]
    assert [game["seeded"] for game in listed] == [seeded]
    assert play_to_end(table)["status"] == "finished"
    record = client.get(f"/v1/games/{table.id}/record").json
    assert record["setup"]["seeded"] is seeded
    assert verify(record, tmp_path / "record.json") == 0


def test_ages_are_never_shown(client):
    game = client.post("/v1/games", json={"seats": PLAYERS}).json
    assert all("age" not in seat for seat in game["seats"])


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"target_score": 0}, "target_score"),
        ({"target_score": 101}, "target_score"),
        ({"target_score": "ten"}, "target_score"),
        ({"seats": [None, None]}, "seats"),
        ({"seats": [None, None, None, None]}, "seats"),
        ({"seats": [{"name": ""}, None, None]}, "seats"),
        ({"seats": [{"name": "A", "age": -1}, None, None]}, "seats"),
        ({"seats": [{"name": "A", "colour": "red"}, None, None]}, "seats"),
        ({"first_dealer": 3}, "first_dealer"),
        ({"seed": ""}, "seed"),
        ({"target": 15}, "target"),
    ],
)
def test_create_rejects_invalid_bodies_field_by_field(client, body, field):
    response = client.post("/v1/games", json=body)
    assert response.status_code == 422
    assert response.mimetype == "application/problem+json"
    problem = response.json
    assert problem["code"] == "validation_error" and problem["status"] == 422
    assert field in problem["errors"]


def test_get_game_and_conditional_get(client, new_table):
    table = new_table()
    response = client.get(f"/v1/games/{table.id}")
    assert response.status_code == 200
    etag = response.headers["ETag"]
    assert etag == f'"{table.id}.1"'
    again = client.get(f"/v1/games/{table.id}", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.data == b"" and again.headers["ETag"] == etag
    table.deal()
    changed = client.get(f"/v1/games/{table.id}", headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.json["version"] == 2


def test_a_weak_etag_in_if_none_match_matches_too(client, new_table):
    """A proxy that compresses answers sends the tag back weak (``W/"…"``); If-None-Match compares
    weakly (RFC 9110, 13.1.2), If-Match strongly."""
    table = new_table()
    weak = "W/" + client.get(f"/v1/games/{table.id}").headers["ETag"]
    for path in ("", "/scores"):
        again = client.get(f"/v1/games/{table.id}{path}", headers={"If-None-Match": f'"other", {weak}'})
        assert again.status_code == 304, path
    guarded = client.post(f"/v1/games/{table.id}/hands", headers={**table.auth(0), "If-Match": weak})
    assert guarded.status_code == 412


def test_unknown_game_is_404(client):
    for path in ("", "/scores", "/tricks", "/hand"):
        response = client.get(f"/v1/games/01nosuchgame0000000000000{path}")
        assert response.status_code == 404
        assert response.json["code"] == "game_not_found"


def test_scores(client, new_table):
    table = new_table(target_score=20)
    scores = client.get(f"/v1/games/{table.id}/scores").json
    assert scores == {
        "target_score": 20,
        "scores": [
            {"seat": 0, "name": "Ana", "score": 0},
            {"seat": 1, "name": "Bo", "score": 0},
            {"seat": 2, "name": "Cy", "score": 0},
        ],
        "winner": None,
    }


def test_list_games_newest_first_by_cursor(client):
    ids = [client.post("/v1/games", json={}).json["id"] for _ in range(5)]
    first = client.get("/v1/games?limit=2")
    assert [g["id"] for g in first.json["items"]] == ids[::-1][:2]
    assert first.headers["Link"].endswith('>; rel="next"')
    # Games created while paging do not shift later pages.
    client.post("/v1/games", json={})
    second = client.get(f"/v1/games?limit=2&cursor={first.json['next_cursor']}").json
    assert [g["id"] for g in second["items"]] == ids[::-1][2:4]
    third = client.get(f"/v1/games?limit=2&cursor={second['next_cursor']}").json
    assert [g["id"] for g in third["items"]] == ids[:1]
    assert third["next_cursor"] is None


def test_list_games_filters_by_status(client, new_table):
    open_game = client.post("/v1/games", json={}).json["id"]
    new_table()
    lobby = client.get("/v1/games?status=waiting_for_players").json["items"]
    assert [g["id"] for g in lobby] == [open_game]
    assert client.get("/v1/games?status=lost").json["code"] == "validation_error"


@pytest.mark.parametrize("cursor", ["nonsense", "dDox", "Z2FyYmFnZQ"])
def test_list_games_rejects_foreign_cursors(client, cursor):
    response = client.get(f"/v1/games?cursor={cursor}")
    assert response.status_code == 400 and response.json["code"] == "invalid_cursor"


@pytest.mark.parametrize("limit", ["0", "101", "x"])
def test_list_games_limit_bounds(client, limit):
    assert client.get(f"/v1/games?limit={limit}").status_code == 422


def test_wrong_method_is_405_with_allow(client):
    game_id = client.post("/v1/games", json={}).json["id"]
    response = client.delete(f"/v1/games/{game_id}")
    assert response.status_code == 405
    assert response.json["code"] == "method_not_allowed"
    assert "GET" in response.headers["Allow"]


def test_unknown_path_is_problem_404(client):
    response = client.get("/v2/nothing")
    assert response.status_code == 404 and response.mimetype == "application/problem+json"
    assert response.json["code"] == "not_found"


@pytest.mark.parametrize(
    "body",
    [b"{not json", b'{"target_score": 15', b'{"seats": [{"name": "\xff"}]}', b'{"target_score": NaN}', b"[1, 2,]"],
    ids=["garbage", "truncated", "not-utf-8", "nan", "trailing-comma"],
)
def test_malformed_json_is_400(client, body):
    response = client.post("/v1/games", data=body, content_type="application/json")
    assert response.status_code == 400 and response.json["code"] == "malformed_json"


def test_an_empty_json_body_is_no_arguments(client):
    response = client.post("/v1/games", data=b"", content_type="application/json")
    assert response.status_code == 201 and response.json["target_score"] == 15


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "application/xml"])
def test_non_json_body_is_415(client, content_type):
    response = client.post("/v1/games", data="target_score=15", content_type=content_type)
    assert response.status_code == 415 and response.json["code"] == "unsupported_media_type"


def test_oversized_body_is_413(client):
    response = client.post("/v1/games", data='{"seed": "' + "x" * 100_000 + '"}', content_type="application/json")
    assert response.status_code == 413 and response.json["code"] == "payload_too_large"


def test_problem_documents_have_the_rfc_9457_members(client):
    problem = client.get("/v1/games/nope").json
    assert set(problem) >= {"type", "title", "status", "detail", "code", "instance"}
    assert problem["type"] == "urn:coins:problem:game_not_found"
