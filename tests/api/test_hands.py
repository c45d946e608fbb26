"""dealHand and getHand: who may deal, tokens, the dealt hand, sorting and conditional reads."""

from __future__ import annotations

from service.engine import CARD_CODES


def test_the_dealer_deals(client, new_table):
    table = new_table()  # Ana (seat 0) is the oldest: she deals
    response = table.deal(0)
    assert response.status_code == 201
    body = response.json
    assert {k: body[k] for k in ("hand_number", "dealer", "shuffler", "cutter", "leader")} == {
        "hand_number": 1, "dealer": 0, "shuffler": 2, "cutter": 1, "leader": 1,
    }  # fmt: skip
    assert len(body["commitment"]) == 64
    assert body["game"]["status"] == "playing" and body["game"]["turn"] == 1
    assert body["game"]["commitment"] == body["commitment"]
    assert [s["cards_in_hand"] for s in body["game"]["seats"]] == [16, 16, 16]


def test_only_the_dealer_deals(client, new_table):
    table = new_table()
    response = table.deal(1)
    assert response.status_code == 403 and response.json["code"] == "not_dealer"


def test_no_deal_while_a_hand_is_in_progress(client, new_table):
    table = new_table()
    table.deal(0)
    response = table.deal(0)
    assert response.status_code == 409 and response.json["code"] == "hand_in_progress"


def test_no_deal_while_seats_are_open(client):
    game = client.post("/v1/games", json={"seats": [{"name": "A"}, None, None]}).json
    token = game["credentials"][0]["token"]
    response = client.post(f"/v1/games/{game['id']}/hands", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 409 and response.json["code"] == "seats_open"


def test_tokens_are_required_and_checked(client, new_table):
    table = new_table()
    other = new_table()
    missing = client.post(f"/v1/games/{table.id}/hands")
    assert missing.status_code == 401 and missing.json["code"] == "missing_token"
    assert missing.headers["WWW-Authenticate"].startswith("Bearer")
    for header in (f"Bearer {other.tokens[0]}", "Bearer wrong", f"Basic {table.tokens[0]}", "Bearer "):
        response = client.post(f"/v1/games/{table.id}/hands", headers={"Authorization": header})
        assert response.status_code == 401, header
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert (
        client.get(f"/v1/games/{table.id}/hand", headers={"Authorization": f"Bearer {other.tokens[1]}"}).status_code
        == 401
    )


def test_get_hand_is_the_callers_sorted_cards(client, new_table):
    table = new_table(seed="sorted")
    assert client.get(f"/v1/games/{table.id}/hand", headers=table.auth(1)).json == {
        "seat": 1,
        "hand_number": 0,
        "cards": [],
    }
    table.deal(0)
    hands = [table.hand(seat) for seat in (0, 1, 2)]
    assert all(len(hand) == 16 for hand in hands)
    assert sorted(card for hand in hands for card in hand) == sorted(CARD_CODES)
    for hand in hands:  # suits in cycle order, then ranks high to low: the order of the Card enum
        assert hand == sorted(hand, key=CARD_CODES.index)


def test_get_hand_conditional_and_private(client, new_table):
    table = new_table()
    table.deal(0)
    response = client.get(f"/v1/games/{table.id}/hand", headers=table.auth(2))
    assert response.headers["Vary"] == "Authorization" and "private" in response.headers["Cache-Control"]
    etag = response.headers["ETag"]
    again = client.get(f"/v1/games/{table.id}/hand", headers={**table.auth(2), "If-None-Match": etag})
    assert again.status_code == 304
    other_seat = client.get(f"/v1/games/{table.id}/hand", headers={**table.auth(1), "If-None-Match": etag})
    assert other_seat.status_code == 200


def test_seeded_games_deal_the_same_cards(client, new_table):
    first, second = new_table(seed="same"), new_table(seed="same")
    first.deal(0)
    second.deal(0)
    assert [first.hand(s) for s in (0, 1, 2)] == [second.hand(s) for s in (0, 1, 2)]
    assert first.state()["seeded"] is True
