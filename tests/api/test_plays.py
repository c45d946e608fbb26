"""playCard: turns, cards, preconditions, and what a play answers."""

from __future__ import annotations

import pytest


@pytest.fixture
def dealt(new_table):
    table = new_table(seed="plays")
    table.deal(0)
    return table


def test_a_play_answers_the_play_trick_scores_and_game(dealt):
    card = dealt.hand(1)[0]
    response = dealt.play(1, card)
    assert response.status_code == 201
    body = response.json
    assert body["play"] == {"seat": 1, "card": card}
    assert body["trick"] == {
        "hand_number": 1, "trick_number": 1, "leader": 1, "plays": [{"seat": 1, "card": card}],
        "complete": False, "winner": None, "points": None,
    }  # fmt: skip
    assert [s["score"] for s in body["scores"]] == [0, 0, 0]
    assert body["game"]["turn"] == 2 and body["game"]["trick"]["plays"] == [{"seat": 1, "card": card}]
    assert card not in dealt.hand(1)


def test_the_third_card_settles_the_trick(dealt):
    plays = [(seat, dealt.hand(seat)[0]) for seat in (1, 2, 0)]
    for seat, card in plays[:2]:
        dealt.play(seat, card)
    body = dealt.play(*plays[2]).json
    trick = body["trick"]
    assert trick["complete"] is True and trick["winner"] in (0, 1, 2)
    assert trick["points"] == sum(card.endswith("-coins") for _, card in plays)
    assert body["scores"][trick["winner"]]["score"] == trick["points"]
    assert body["game"]["turn"] == trick["winner"] and body["game"]["last_trick"] == trick
    assert body["game"]["trick"] == {
        **trick,
        "trick_number": 2,
        "plays": [],
        "complete": False,
        "winner": None,
        "points": None,
        "leader": trick["winner"],
    }


def test_not_your_turn(dealt):
    response = dealt.play(2, dealt.hand(2)[0])
    assert response.status_code == 409 and response.json["code"] == "not_your_turn"


def test_card_not_in_hand(dealt):
    mine = set(dealt.hand(1))
    card = next(c for c in dealt.hand(0) if c not in mine)
    response = dealt.play(1, card)
    assert response.status_code == 422 and response.json["code"] == "card_not_in_hand"
    assert dealt.state()["version"] == 2  # nothing applied


@pytest.mark.parametrize("card", ["ace-coin", "1-cups", "Ace-coins", "", "ace_coins", 7, None])
def test_malformed_cards_are_422_validation_errors(dealt, card):
    response = dealt.client.post(f"/v1/games/{dealt.id}/plays", json={"card": card}, headers=dealt.auth(1))
    assert response.status_code == 422 and response.json["code"] == "validation_error"
    assert "card" in response.json["errors"]


def test_no_hand_in_progress(new_table):
    table = new_table()
    response = table.play(1, "ace-coins")
    assert response.status_code == 409 and response.json["code"] == "no_hand_in_progress"


def test_seats_open(client):
    game = client.post("/v1/games", json={"seats": [{"name": "A"}, None, None]}).json
    headers = {"Authorization": f"Bearer {game['credentials'][0]['token']}"}
    response = client.post(f"/v1/games/{game['id']}/plays", json={"card": "ace-coins"}, headers=headers)
    assert response.status_code == 409 and response.json["code"] == "seats_open"


def test_if_match(dealt):
    etag = dealt.client.get(f"/v1/games/{dealt.id}").headers["ETag"]
    card = dealt.hand(1)[0]
    stale = dealt.play(1, card, **{"If-Match": f'"{dealt.id}.1"'})
    assert stale.status_code == 412 and stale.json["code"] == "precondition_failed"
    assert stale.headers["ETag"] == etag  # the current version's: retry with it, no read in between
    applied = dealt.play(1, card, **{"If-Match": stale.headers["ETag"]})
    assert applied.status_code == 201
    assert applied.headers["ETag"] == f'"{dealt.id}.3"'
    assert dealt.play(2, dealt.hand(2)[0], **{"If-Match": "*"}).status_code == 201


def test_game_finished(new_table):
    table = new_table(target_score=1, seed="short")
    table.deal(0)
    while (state := table.state())["status"] == "playing":
        seat = state["turn"]
        assert table.play(seat, table.hand(seat)[0]).status_code == 201
    assert state["status"] == "finished" and state["turn"] is None
    winner = state["winner"]
    assert state["seats"][winner]["score"] >= 1
    seat = 0
    assert table.play(seat, "ace-coins").json["code"] == "game_finished"
    assert table.deal(state["dealer"]).json["code"] == "game_finished"
