"""joinGame: open seats, seat choice, full games, If-Match, the game starting."""

from __future__ import annotations


def _open_game(client, seats=(None, None, None), **body):
    return client.post("/v1/games", json={"seats": list(seats), **body}).json


def test_join_takes_the_first_open_seat(client):
    game = _open_game(client, seats=({"name": "Ana"}, None, None))
    response = client.post(f"/v1/games/{game['id']}/players", json={"name": "Bo"})
    assert response.status_code == 201
    joined = response.json
    assert joined["seat"] == 1 and len(joined["token"]) >= 22
    assert joined["game"]["seats"][1] == {
        "seat": 1,
        "name": "Bo",
        "open": False,
        "bot": None,
        "score": 0,
        "cards_in_hand": 0,
        "tricks_won": 0,
        "player": None,
        "rating": None,
        "rating_change": None,
        "reserved_for": None,
    }
    assert joined["game"]["status"] == "waiting_for_players"
    assert response.headers["ETag"] == f'"{game["id"]}.2"'


def test_join_a_chosen_seat_and_seat_taken(client):
    game = _open_game(client)
    assert client.post(f"/v1/games/{game['id']}/players", json={"name": "Cy", "seat": 2}).json["seat"] == 2
    taken = client.post(f"/v1/games/{game['id']}/players", json={"name": "Di", "seat": 2})
    assert taken.status_code == 409 and taken.json["code"] == "seat_taken"
    assert "open: 0, 1" in taken.json["detail"]


def test_third_player_starts_the_game(client):
    game = _open_game(client, seats=({"name": "Ana", "age": 30}, {"name": "Bo", "age": 31}, None))
    joined = client.post(f"/v1/games/{game['id']}/players", json={"name": "Cy", "age": 90}).json
    assert joined["game"]["status"] == "waiting_for_deal"
    assert joined["game"]["dealer"] == 2 and joined["game"]["first_dealer_chosen_by"] == "oldest"


def test_join_a_full_game_is_409_seats_full(client, new_table):
    table = new_table()
    response = client.post(f"/v1/games/{table.id}/players", json={"name": "Late"})
    assert response.status_code == 409 and response.json["code"] == "seats_full"


def test_join_honours_if_match(client):
    game = _open_game(client)
    stale = client.post(f"/v1/games/{game['id']}/players", json={"name": "A"}, headers={"If-Match": '"nope.1"'})
    assert stale.status_code == 412 and stale.json["code"] == "precondition_failed"
    fresh = client.post(
        f"/v1/games/{game['id']}/players", json={"name": "A"}, headers={"If-Match": f'"{game["id"]}.1"'}
    )
    assert fresh.status_code == 201


def test_join_validates_its_body(client):
    game = _open_game(client)
    for body in ({}, {"name": "x" * 41}, {"name": "A", "seat": 3}, {"name": "A", "token": "t"}):
        response = client.post(f"/v1/games/{game['id']}/players", json=body)
        assert response.status_code == 422, body
    assert client.post("/v1/games/unknown/players", json={"name": "A"}).status_code == 404


def test_auto_deal_deals_when_the_game_starts(client):
    game = _open_game(client, seats=({"name": "A"}, {"name": "B"}, None), auto_deal=True)
    joined = client.post(f"/v1/games/{game['id']}/players", json={"name": "C"}).json
    assert joined["game"]["status"] == "waiting_for_deal"  # the deal is the worker's, a pace later
    state = client.get(f"/v1/games/{game['id']}").json  # after the worker's pass
    assert state["status"] == "playing" and state["hand_number"] == 1
    assert [seat["cards_in_hand"] for seat in state["seats"]] == [16, 16, 16]
