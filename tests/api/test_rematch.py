"""rematchGame and declineRematch: an offer taking only the asker's seat, accepted seat by seat, dealt once
all have asked, declined (cancelled) and offered anew; made once by racing asks; a new token each."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from tests.api.test_record import play_to_end

PEOPLE = [{"name": "Ana", "age": 29}, {"name": "Bo", "age": 35}, {"name": "Cy", "age": 61}]


def rematch(client: Any, game_id: str, token: str | None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return client.post(f"/v1/games/{game_id}/rematch", headers=headers)


@pytest.fixture
def finished(new_table: Any) -> Any:
    """A finished game of three people (Cy the oldest), seeded, first dealer named."""
    table = new_table(seats=PEOPLE, target_score=3, seed="rematch", first_dealer=0, turn_timeout_seconds=120)
    assert play_to_end(table)["status"] == "finished"
    return table


def decline(client: Any, game_id: str, token: str | None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return client.delete(f"/v1/games/{game_id}/rematch", headers=headers)


def _feed(client: Any, game_id: str) -> list[dict[str, Any]]:
    return client.get(f"/v1/games/{game_id}/events?after=0").json["items"]


def test_a_rematch_is_offered_with_only_the_askers_seat_taken(client, finished):
    first = rematch(client, finished.id, finished.tokens[1])
    assert first.status_code == 201, first.json
    body = first.json
    game = body["game"]
    assert first.headers["Location"].endswith(f"/v1/games/{game['id']}")
    assert first.headers["ETag"] == f'"{game["id"]}.{game["version"]}"'
    assert body["seat"] == 1 and body["token"] not in finished.tokens.values()
    assert game["id"] != finished.id and game["rematch_of"] == finished.id and game["rematch"] is None
    assert game["status"] == "waiting_for_players" and game["turn"] is None and game["turn_deadline"] is None
    assert [seat["name"] for seat in game["seats"]] == ["Ana", "Bo", "Cy"]
    assert [seat["open"] for seat in game["seats"]] == [True, False, True]  # open for their holders alone
    assert game["target_score"] == 3 and game["turn_timeout_seconds"] == 120 and game["auto_deal"] is False
    assert game["seeded"] is False  # a rematch's deals are fresh
    old = client.get(f"/v1/games/{finished.id}").json
    assert old["rematch"] == game["id"] and old["rematch_of"] is None
    created = [event for event in _feed(client, finished.id) if event["type"] == "rematch_created"]
    assert [event["rematch"] for event in created] == [game["id"]]
    # nobody else is seated: the others' old tokens act for nothing, a stranger takes no seat
    hand = client.get(f"/v1/games/{game['id']}/hand", headers={"Authorization": f"Bearer {finished.tokens[0]}"})
    assert hand.status_code == 401
    join = client.post(f"/v1/games/{game['id']}/players", json={"name": "Eve"})
    assert join.status_code == 409 and join.json["code"] == "seat_reserved"
    waiting = client.get("/v1/games?status=waiting_for_players").json["items"]
    assert game["id"] not in [item["id"] for item in waiting]  # not a game to join


def test_the_rematch_is_dealt_once_every_seat_has_asked(client, finished):
    answers = {seat: rematch(client, finished.id, finished.tokens[seat]) for seat in (2, 0)}
    assert [answers[2].status_code, answers[0].status_code] == [201, 200]
    game = answers[0].json["game"]
    assert game["status"] == "waiting_for_players" and [s["open"] for s in game["seats"]] == [False, True, False]
    answers[1] = rematch(client, finished.id, finished.tokens[1])
    assert answers[1].status_code == 200, answers[1].json
    game = answers[1].json["game"]
    assert len({answer.json["game"]["id"] for answer in answers.values()}) == 1
    assert game["status"] == "waiting_for_deal" and game["turn_deadline"] is not None  # the clock starts now
    assert game["first_dealer"] == 2 and game["first_dealer_chosen_by"] == "oldest"  # Cy, the oldest, deals
    tokens = {seat: answer.json["token"] for seat, answer in answers.items()}
    assert len(set(tokens.values())) == 3
    for seat, token in tokens.items():
        hand = client.get(f"/v1/games/{game['id']}/hand", headers={"Authorization": f"Bearer {token}"})
        assert hand.status_code == 200 and hand.json["seat"] == seat
    again = rematch(client, finished.id, finished.tokens[2])  # the same token again, never a second one
    assert again.status_code == 200 and again.json["game"]["id"] == game["id"] and again.json["token"] == tokens[2]
    taken = [event["seat"] for event in _feed(client, game["id"]) if event["type"] == "seat_taken"]
    assert taken == [0, 1]  # the offer's own seat was the asker's from the start
    dealt = client.post(f"/v1/games/{game['id']}/hands", headers={"Authorization": f"Bearer {tokens[2]}"})
    assert dealt.status_code == 201
    late = decline(client, finished.id, finished.tokens[1])
    assert late.status_code == 409 and late.json["code"] == "rematch_started"


def test_a_declined_offer_is_cancelled_and_a_new_one_can_follow(client, finished):
    offer = rematch(client, finished.id, finished.tokens[0]).json["game"]
    for _ in range(2):  # repeatable
        assert decline(client, finished.id, finished.tokens[2]).status_code == 204
    cancelled = client.get(f"/v1/games/{offer['id']}").json
    assert cancelled["status"] == "cancelled"
    events = _feed(client, offer["id"])
    assert [(e["type"], e.get("reason")) for e in events][-1] == ("game_cancelled", "declined")
    assert [e["type"] for e in events].count("game_cancelled") == 1
    hand = client.get(f"/v1/games/{offer['id']}/hand", headers={"Authorization": f"Bearer {finished.tokens[0]}"})
    assert hand.status_code == 401
    again = rematch(client, finished.id, finished.tokens[2])  # a new offer, by any seat
    assert again.status_code == 201, again.json
    second = again.json["game"]
    assert second["id"] != offer["id"] and second["status"] == "waiting_for_players"
    assert [s["open"] for s in second["seats"]] == [True, True, False]
    assert client.get(f"/v1/games/{finished.id}").json["rematch"] == second["id"]
    created = [e["rematch"] for e in _feed(client, finished.id) if e["type"] == "rematch_created"]
    assert created == [offer["id"], second["id"]]
    assert client.get(f"/v1/games/{offer['id']}").json["status"] == "cancelled"  # the old offer stays cancelled


def test_declining_without_an_offer_changes_nothing(client, finished):
    assert decline(client, finished.id, finished.tokens[0]).status_code == 204
    assert client.get(f"/v1/games/{finished.id}").json["rematch"] is None
    refused = decline(client, finished.id, None)
    assert refused.status_code == 401 and refused.json["code"] == "missing_token"


def test_the_asker_may_withdraw_the_offer(client, finished):
    offer = rematch(client, finished.id, finished.tokens[1]).json["game"]
    assert decline(client, finished.id, finished.tokens[1]).status_code == 204
    assert client.get(f"/v1/games/{offer['id']}").json["status"] == "cancelled"


def test_racing_seats_create_one_game(app, client, finished):
    barrier = threading.Barrier(6)
    answers: list[Any] = [None] * 6

    def run(index: int) -> None:
        caller = app.test_client()
        barrier.wait(timeout=10)
        answers[index] = rematch(caller, finished.id, finished.tokens[index % 3])

    threads = [threading.Thread(target=run, args=(index,)) for index in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    assert all(answer.status_code in (200, 201) for answer in answers), [a.json for a in answers]
    assert [answer.status_code for answer in answers].count(201) == 1
    assert len({answer.json["game"]["id"] for answer in answers}) == 1
    game = client.get(f"/v1/games/{answers[0].json['game']['id']}").json
    assert game["status"] != "waiting_for_players" and not any(seat["open"] for seat in game["seats"])
    for index in range(3):  # a seat's two calls got the same token
        assert answers[index].json["token"] == answers[index + 3].json["token"]
    game_id = answers[0].json["game"]["id"]
    assert client.get(f"/v1/games/{finished.id}").json["rematch"] == game_id
    rematches = [g for g in client.get("/v1/games?limit=100").json["items"] if g["rematch_of"] == finished.id]
    assert [g["id"] for g in rematches] == [game_id]
    events = client.get(f"/v1/games/{finished.id}/events?after=0").json["items"]
    created = [event for event in events if event["type"] == "rematch_created"]
    assert len(created) == 1 and created[0]["rematch"] == game_id and created[0]["game"]["rematch"] == game_id


def test_bots_keep_their_seats_and_strengths(client):
    seats = [{"name": "Ana", "age": 30}, {"bot": "basic"}, {"bot": "random", "name": "Rob"}]
    created = client.post("/v1/games", json={"seats": seats, "target_score": 2, "seed": "bots", "auto_deal": True}).json
    token = created["credentials"][0]["token"]
    state = created
    for _ in range(200):
        if state["status"] == "finished":
            break
        card = client.get(f"/v1/games/{created['id']}/hand", headers={"Authorization": f"Bearer {token}"}).json
        state = client.post(
            f"/v1/games/{created['id']}/plays",
            json={"card": card["cards"][0]},
            headers={"Authorization": f"Bearer {token}"},
        ).json["game"]
    assert state["status"] == "finished"
    answer = rematch(client, created["id"], token)
    assert answer.status_code == 201
    game = answer.json["game"]
    assert [(seat["name"], seat["bot"]) for seat in game["seats"]] == [
        ("Ana", None),
        (created["seats"][1]["name"], "basic"),
        ("Rob", "random"),
    ]
    assert game["auto_deal"] is True
    assert game["first_dealer_chosen_by"] == "drawn"  # bots have no age: the rules draw
    assert game["status"] == "waiting_for_deal"  # the request makes no server move: the worker deals
    game = client.get(f"/v1/games/{game['id']}").json  # after the worker's pass
    assert game["status"] == "playing"  # dealt (auto_deal), the bots played until Ana's turn
    assert game["turn"] == 0


def test_a_game_not_over_has_no_rematch(client, new_table):
    table = new_table(seed="early")
    answer = rematch(client, table.id, table.tokens[0])
    assert answer.status_code == 409 and answer.json["code"] == "game_not_finished"
    assert client.get(f"/v1/games/{table.id}").json["rematch"] is None


@pytest.mark.parametrize(
    ("token", "code"), [(None, "missing_token"), ("not-a-token", "invalid_token")], ids=["missing", "invalid"]
)
def test_only_a_seat_may_ask(client, finished, token, code):
    answer = rematch(client, finished.id, token)
    assert answer.status_code == 401 and answer.json["code"] == code


def test_a_token_of_another_game_is_refused(client, finished, new_table):
    other = new_table(seed="other")
    answer = rematch(client, finished.id, other.tokens[0])
    assert answer.status_code == 401 and answer.json["code"] == "invalid_token"


def test_an_unknown_game_has_no_rematch(client):
    answer = rematch(client, "nosuchgame", "token")
    assert answer.status_code == 404 and answer.json["code"] == "game_not_found"


def test_an_offer_purged_since_is_declined_as_none_and_asked_anew(app, client, finished):
    from sqlalchemy import text

    offer = rematch(client, finished.id, finished.tokens[0]).json["game"]["id"]
    store = app.extensions["coins.games"].store
    with store.db.engine.begin() as connection:  # what the retention purge does to a game
        for table in ("events", "seats", "outbox", "games"):
            connection.execute(
                text(f"DELETE FROM {table} WHERE {'id' if table == 'games' else 'game_id'} = :id"), {"id": offer}
            )
    assert decline(client, finished.id, finished.tokens[1]).status_code == 204
    again = rematch(client, finished.id, finished.tokens[1])
    assert again.status_code == 201 and again.json["game"]["id"] != offer, again.json
