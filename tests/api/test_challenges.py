"""Challenges and reserved seats (contract 1.3), on both databases: a seat reserved for a named player,
who is told (``challenge_received``) and accepts by joining as ``me`` or declines (the game is
``cancelled``, everyone told ``game_cancelled``); the seat refused to anyone else (``seat_reserved``);
the lists that leave such games out; the refusals (each code); and the daily limit."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.games.challenges import CHALLENGES_PER_DAY
from service.games.ids import BOT_PLAYER_IDS
from tests.support.players import Player, new_player


def challenge(client: FlaskClient, challenger: Player, target: str, **body: Any) -> Any:
    seats = body.pop("seats", [{"player": "me"}, {"player": target}, {"bot": "basic"}])
    return client.post("/v1/games", json={"seats": seats, **body}, headers=challenger.auth)


def feed(client: FlaskClient, player: Player) -> list[dict[str, Any]]:
    response = client.get("/v1/players/me/events?after=0", headers=player.auth)
    assert response.status_code == 200, response.json
    return response.json["items"]  # type: ignore[no-any-return]


def test_a_challenge_reserves_a_seat_and_tells_its_player(client):
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    created = challenge(client, ana, bo.id, challenge_seconds=600)
    assert created.status_code == 201, created.json
    game = created.json
    assert game["status"] == "waiting_for_players"
    seat = game["seats"][1]
    assert (seat["reserved_for"], seat["open"], seat["name"], seat["player"]) == (bo.id, False, "Bo", None)
    assert game["seats"][0]["reserved_for"] is None and game["turn_deadline"] is None
    [told] = [event for event in feed(client, bo) if event["type"] == "challenge_received"]
    assert (told["game"], told["seat"], told["challenger"]) == (game["id"], 1, ana.id)
    assert told["state"]["seats"][1]["reserved_for"] == bo.id and told["expires_at"]
    mine = client.get("/v1/players/me/games?status=waiting_for_players", headers=bo.auth).json["items"]
    assert [(g["id"], g["seat"], g["reserved"]) for g in mine] == [(game["id"], 1, True)]
    assert mine[0]["reserved_until"] is not None
    # The challenger sees when it runs out too: the game's expires_at, the moment the feed told Bo.
    assert game["expires_at"] == told["expires_at"] == mine[0]["reserved_until"]
    shown = datetime.fromisoformat(game["expires_at"]) - datetime.fromisoformat(game["created_at"])
    assert shown == timedelta(seconds=600)


def test_accepting_takes_the_reserved_seat_and_the_game_starts(client):
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    game = challenge(client, ana, bo.id, rated=True).json
    assert game["rated"] is True and game["turn_timeout_seconds"] == 60
    joined = client.post(f"/v1/games/{game['id']}/players", json={"player": "me"}, headers=bo.auth)
    assert joined.status_code == 201, joined.json
    assert joined.json["seat"] == 1
    started = joined.json["game"]
    assert started["status"] in ("waiting_for_deal", "playing")
    assert started["seats"][1]["player"] == bo.id and started["seats"][1]["reserved_for"] == bo.id
    assert game["expires_at"] is not None and started["expires_at"] is None  # nothing waits any more
    assert any(event["type"] == "game_started" for event in feed(client, bo))
    mine = client.get("/v1/players/me/games", headers=bo.auth).json["items"]
    assert [(g["id"], g["reserved"], g["reserved_until"]) for g in mine] == [(game["id"], False, None)]


def test_a_reserved_seat_is_nobody_elses(client):
    ana, bo, cy = new_player(client, "Ana"), new_player(client, "Bo"), new_player(client, "Cy")
    game = challenge(client, ana, bo.id, seats=[{"player": "me"}, {"player": bo.id}, None]).json
    path = f"/v1/games/{game['id']}/players"
    taken = client.post(path, json={"player": "me", "seat": 1}, headers=cy.auth)
    assert taken.status_code == 409 and taken.json["code"] == "seat_reserved"
    anonymous = client.post(path, json={"name": "Di", "seat": 1})
    assert anonymous.status_code == 409 and anonymous.json["code"] == "seat_reserved"
    first_open = client.post(path, json={"name": "Di"})  # without a seat: the open one, never the reserved
    assert first_open.status_code == 201 and first_open.json["seat"] == 2
    again = client.post(path, json={"name": "Ed"})  # only the reserved seat is left
    assert again.status_code == 409 and again.json["code"] == "seat_reserved"
    assert client.get(f"/v1/games/{game['id']}").json["status"] == "waiting_for_players"


def test_a_challenged_player_takes_the_seat_reserved_for_them(client):
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    seats = [{"player": "me"}, {"player": bo.id}, None]
    game = challenge(client, ana, bo.id, seats=seats).json
    other = client.post(f"/v1/games/{game['id']}/players", json={"player": "me", "seat": 2}, headers=bo.auth)
    assert other.status_code == 409 and other.json["code"] == "seat_reserved", other.json
    assert "seat 1" in other.json["detail"]
    named = client.post(f"/v1/games/{game['id']}/players", json={"player": "me", "seat": 1}, headers=bo.auth)
    assert named.status_code == 201 and named.json["seat"] == 1, named.json


def test_open_games_leave_out_those_whose_vacant_seats_are_all_reserved(client):
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    reserved_only = challenge(client, ana, bo.id).json["id"]
    with_open_seat = challenge(client, ana, bo.id, seats=[{"player": "me"}, {"player": bo.id}, None]).json["id"]
    listed = [g["id"] for g in client.get("/v1/games?status=waiting_for_players").json["items"]]
    assert with_open_seat in listed and reserved_only not in listed
    assert reserved_only in [g["id"] for g in client.get("/v1/games").json["items"]]


def test_declining_cancels_the_game_for_everyone(client):
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    game = challenge(client, ana, bo.id).json
    declined = client.delete(f"/v1/games/{game['id']}/players/me", headers=bo.auth)
    assert declined.status_code == 204, declined.json
    assert client.delete(f"/v1/games/{game['id']}/players/me", headers=bo.auth).status_code == 204  # repeatable
    state = client.get(f"/v1/games/{game['id']}").json
    assert state["status"] == "cancelled" and state["rated"] is False
    events = client.get(f"/v1/games/{game['id']}/events?after=0").json["items"]
    assert [e["reason"] for e in events if e["type"] == "game_cancelled"] == ["declined"]
    for player, seat in ((ana, 0), (bo, 1)):
        [told] = [e for e in feed(client, player) if e["type"] == "game_cancelled"]
        assert (told["game"], told["seat"], told["reason"]) == (game["id"], seat, "declined")
    for listing in ("/v1/games", "/v1/games?status=cancelled", "/v1/games?status=waiting_for_players"):
        assert game["id"] not in [g["id"] for g in client.get(listing).json["items"]]
    for player in (ana, bo):  # its players' own lists keep it
        assert game["id"] in [g["id"] for g in client.get("/v1/players/me/games", headers=player.auth).json["items"]]


def test_acting_on_a_cancelled_game_is_game_cancelled(client):
    ana, bo, cy = new_player(client, "Ana"), new_player(client, "Bo"), new_player(client, "Cy")
    game = challenge(client, ana, bo.id).json
    client.delete(f"/v1/games/{game['id']}/players/me", headers=bo.auth)
    path = f"/v1/games/{game['id']}"
    refusals = [
        client.post(f"{path}/players", json={"player": "me"}, headers=bo.auth),
        client.post(f"{path}/players", json={"player": "me"}, headers=cy.auth),
        client.post(f"{path}/hands", headers=ana.auth),
        client.post(f"{path}/plays", json={"card": "ace-coins"}, headers=ana.auth),
        client.post(f"{path}/players/0/leave", headers=ana.auth),
        client.post(f"{path}/rematch", headers=ana.auth),  # it never started: nothing to play again
    ]
    for refused in refusals:
        assert refused.status_code == 409 and refused.json["code"] == "game_cancelled", refused.json


def test_declining_needs_a_seat_reserved_for_you(client):
    ana, bo, cy = new_player(client, "Ana"), new_player(client, "Bo"), new_player(client, "Cy")
    game = challenge(client, ana, bo.id).json
    other = client.delete(f"/v1/games/{game['id']}/players/me", headers=cy.auth)
    assert other.status_code == 403 and other.json["code"] == "not_your_seat"
    missing = client.delete(f"/v1/games/{game['id']}/players/me")
    assert missing.status_code == 401 and missing.json["code"] == "missing_token"
    assert client.get(f"/v1/games/{game['id']}").json["status"] == "waiting_for_players"
    assert client.delete(f"/v1/games/{game['id']}/players/me", headers=bo.auth).status_code == 204
    for player in (cy, ana):  # once cancelled too: declining again is for the player it waited for alone
        again = client.delete(f"/v1/games/{game['id']}/players/me", headers=player.auth)
        assert again.status_code == 403 and again.json["code"] == "not_your_seat", again.json


def test_who_cannot_be_challenged(client):
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    cases = {
        "challenged_player_not_found": "01jf3v9k2m8q4r6t0w5x7y9z1b",
        "challenged_self": ana.id,
        "challenged_bot": BOT_PLAYER_IDS["expert"],
    }
    for code, target in cases.items():
        refused = challenge(client, ana, target)
        assert refused.status_code == 422 and refused.json["code"] == code, refused.json
    not_an_id = challenge(client, ana, "nobody-at-all")
    assert not_an_id.status_code == 422 and not_an_id.json["code"] == "validation_error"  # not an id's shape
    no_seat_of_mine = client.post("/v1/games", json={"seats": [{"player": bo.id}, None, None]}, headers=ana.auth)
    assert no_seat_of_mine.status_code == 422 and no_seat_of_mine.json["code"] == "validation_error"
    unrated_clock = challenge(client, ana, bo.id, rated=True, turn_timeout_seconds=None)
    assert unrated_clock.status_code == 422 and unrated_clock.json["code"] == "rated_needs_clock"
    for seconds in (59, 1209601):
        out_of_range = challenge(client, ana, bo.id, challenge_seconds=seconds)
        assert out_of_range.status_code == 422 and out_of_range.json["code"] == "validation_error"


def test_a_player_may_refuse_every_challenge(client):
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    assert client.get(f"/v1/players/{bo.id}").json["challenges"] == "everyone"
    changed = client.patch("/v1/players/me", json={"challenges": "nobody"}, headers=bo.auth)
    assert changed.status_code == 200 and changed.json["challenges"] == "nobody"
    assert client.get(f"/v1/players/{bo.id}").json["challenges"] == "nobody"
    refused = challenge(client, ana, bo.id)
    assert refused.status_code == 403 and refused.json["code"] == "challenges_refused"
    bad = client.patch("/v1/players/me", json={"challenges": "friends"}, headers=bo.auth)
    assert bad.status_code == 422 and bad.json["code"] == "validation_error"
    client.patch("/v1/players/me", json={"challenges": "everyone"}, headers=bo.auth)
    assert challenge(client, ana, bo.id).status_code == 201


def test_at_most_so_many_challenges_a_day_to_one_player(client):
    ana, bo, cy = new_player(client, "Ana"), new_player(client, "Bo"), new_player(client, "Cy")
    for _ in range(CHALLENGES_PER_DAY):
        made = challenge(client, ana, bo.id)
        assert made.status_code == 201, made.json
        client.delete(f"/v1/games/{made.json['id']}/players/me", headers=bo.auth)  # declined ones count too
    refused = challenge(client, ana, bo.id)
    assert refused.status_code == 429 and refused.json["code"] == "too_many_challenges"
    assert 0 < int(refused.headers["Retry-After"]) <= 86401
    assert challenge(client, ana, cy.id).status_code == 201  # another target
    assert challenge(client, cy, bo.id).status_code == 201  # another challenger


@pytest.mark.parametrize("keyed", [False, True], ids=["plain", "idempotency-keys"])
def test_challenges_sent_at_the_same_moment_are_counted_one_after_another(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch, keyed: bool
):
    monkeypatch.setattr("service.games.challenges.CHALLENGES_PER_DAY", 4)
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    sent = 12
    barrier = threading.Barrier(sent)
    answers: list[tuple[int, str | None]] = []

    def send(number: int) -> None:
        own = app.test_client()
        seats = [{"player": "me"}, {"player": bo.id}, {"bot": "basic"}]
        headers = {**ana.auth, **({"Idempotency-Key": f"challenge-{number}"} if keyed else {})}
        barrier.wait(timeout=10)
        answer = own.post("/v1/games", json={"seats": seats}, headers=headers)
        answers.append((answer.status_code, answer.json.get("code")))

    threads = [threading.Thread(target=send, args=(number,)) for number in range(sent)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    assert sorted(answers) == [(201, None)] * 4 + [(429, "too_many_challenges")] * (sent - 4), answers
    received = [event for event in feed(client, bo) if event["type"] == "challenge_received"]
    assert len(received) == 4


def test_a_challenger_who_leaves_before_the_start_withdraws_the_challenge(client):
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    game = challenge(client, ana, bo.id).json
    left = client.post(f"/v1/games/{game['id']}/players/0/leave", headers=ana.auth)
    assert left.status_code == 200 and left.json["status"] == "cancelled", left.json
    [told] = [e for e in feed(client, bo) if e["type"] == "game_cancelled"]
    assert told["reason"] == "declined"


def test_a_challenge_to_a_deleted_account_is_declined(client):
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    game = challenge(client, ana, bo.id).json
    assert client.delete("/v1/players/me", headers=bo.auth).status_code == 204
    assert client.get(f"/v1/games/{game['id']}").json["status"] == "cancelled"
    refused = challenge(client, ana, bo.id)
    assert refused.status_code == 422 and refused.json["code"] == "challenged_player_not_found"
