"""GET /v1/players/me/events: a player's own feed, from the real flows, on both databases.

Three players play a whole game with their keys only, each told by their feed whenever they are
to act; a game with bots; a stand-in after a turn timeout; a rematch offered; resuming with
``after`` and ``Last-Event-ID``; a long poll that waits; a key replaced ending a stream; nothing
secret in any event.
"""

from __future__ import annotations

import json
import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import text

from service import create_app
from service.config import Settings
from tests.support.rated_games import play_out, rated_table
from tests.support.realtime import Realtime, realtime_role
from tests.support.sse import Event
from tests.support.working_client import NO_PACE, keep_up

FEED = "/v1/players/me/events"
EVENT_TYPES = {"player", "match_found", "game_started", "your_turn", "game_result", "rematch_offered", "game_cancelled"}


@pytest.fixture
def settings(database_url: str) -> Settings:
    """Rate limits off, and a one-second heartbeat (a stream's idle reader checks its key on each)."""
    return Settings(database_url=database_url, rate_limits="off", stream_heartbeat_seconds=1, **NO_PACE)


def new_player(client: FlaskClient, name: str) -> tuple[str, str]:
    response = client.post("/v1/players", json={"name": name})
    assert response.status_code == 201, response.json
    return response.json["id"], response.json["key"]


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def page(client: FlaskClient, key: str, after: int | None = None, wait: int = 0) -> dict[str, Any]:
    query = f"?wait={wait}" + (f"&after={after}" if after is not None else "")
    response = client.get(f"/v1/players/me/events{query}", headers=bearer(key))
    assert response.status_code == 200, response.json
    return response.json  # type: ignore[no-any-return]


class Follower:
    """One player's reading of their feed by long polls, every event kept."""

    def __init__(self, client: FlaskClient, key: str) -> None:
        self.client, self.key = client, key
        first = page(client, key)
        assert [item["type"] for item in first["items"]] == ["player"]
        self.state = first["items"][0]
        self.last = first["last_id"]
        self.events: list[dict[str, Any]] = []

    def read(self, wait: int = 0) -> list[dict[str, Any]]:
        got = page(self.client, self.key, after=self.last, wait=wait)
        self.events += got["items"]
        self.last = got["last_id"]
        return got["items"]  # type: ignore[no-any-return]

    def of(self, kind: str, game: str | None = None) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind and (game is None or e.get("game") == game)]


def act(client: FlaskClient, game_id: str, keys: dict[int, str], followers: dict[int, Follower]) -> dict[str, Any]:
    """Whoever's turn it is deals or plays (a player only when their feed told them so), from what
    the ``your_turn`` carries alone, until the game is over (bounded). The finished game's state."""
    for _ in range(2000):
        state = client.get(f"/v1/games/{game_id}").json
        if state["status"] == "finished":
            return state  # type: ignore[no-any-return]
        seat = state["turn"]
        for follower in followers.values():
            follower.read()
        [turn] = [e for e in followers[seat].of("your_turn", game_id) if e["version"] == state["version"]]
        assert turn["state"] == state  # the game as getGame answers it, at that version
        key = keys[seat]
        if state["status"] == "waiting_for_deal":
            assert turn["action"] == "deal" and turn["hand"] is None
            response = client.post(f"/v1/games/{game_id}/hands", headers=bearer(key))
        else:
            assert turn["action"] == "play"
            assert_own_cards(client, game_id, keys, seat, turn)
            card = turn["hand"]["cards"][0]
            response = client.post(f"/v1/games/{game_id}/plays", json={"card": card}, headers=bearer(key))
        assert response.status_code in (200, 201), response.json
    raise AssertionError("the game did not finish")


def assert_own_cards(client: FlaskClient, game_id: str, keys: dict[int, str], seat: int, turn: dict[str, Any]) -> None:
    """A ``your_turn``'s hand is its seat's cards as getHand answers them, and none of another seat's."""
    hands = {s: client.get(f"/v1/games/{game_id}/hand", headers=bearer(key)).json for s, key in keys.items()}
    assert turn["hand"] == hands[seat] and turn["hand"]["seat"] == seat
    assert len(turn["hand"]["cards"]) == turn["state"]["seats"][seat]["cards_in_hand"] > 0
    for other, hand in hands.items():
        if other != seat:
            assert not set(turn["hand"]["cards"]) & set(hand["cards"]), (seat, other)


def three_player_game(client: FlaskClient, **body: Any) -> tuple[str, dict[int, str], dict[int, Follower]]:
    keys = {seat: new_player(client, name)[1] for seat, name in enumerate(["Ana", "Bo", "Cy"])}
    followers = {seat: Follower(client, key) for seat, key in keys.items()}
    created = client.post("/v1/games", json={"seats": [{"player": "me"}, None, None], **body}, headers=bearer(keys[0]))
    assert created.status_code == 201, created.json
    game_id = created.json["id"]
    for seat in (1, 2):
        joined = client.post(f"/v1/games/{game_id}/players", json={"player": "me"}, headers=bearer(keys[seat]))
        assert joined.status_code == 201, joined.json
    return game_id, keys, followers


def assert_clean(followers: dict[int, Follower], keys: dict[int, str]) -> None:
    """Ids strictly increasing, known types only, no key in any event, and no card but the
    follower's own (in the ``hand`` of a ``your_turn`` of their seat)."""
    for seat, follower in followers.items():
        ids = [event["id"] for event in follower.events]
        assert ids == sorted(set(ids)) and all(i > follower.state["id"] for i in ids)
        assert {event["type"] for event in follower.events} <= EVENT_TYPES
        text = json.dumps(follower.events)
        assert not any(key in text for key in keys.values())
        assert '"seed"' not in text and '"token"' not in text
        for event in follower.events:
            if event["type"] == "your_turn" and event["hand"] is not None:
                assert event["hand"]["seat"] == event["seat"] == seat
        handless = [{k: v for k, v in e.items() if k != "hand"} for e in follower.events]
        assert '"cards"' not in json.dumps(handless)


def test_a_whole_game_played_from_the_feed_alone(client: FlaskClient) -> None:
    game_id, keys, followers = three_player_game(client, target_score=3)
    finished = act(client, game_id, keys, followers)
    for seat, follower in followers.items():
        follower.read()
        assert [e["seat"] for e in follower.of("game_started", game_id)] == [seat]
        [result] = follower.of("game_result", game_id)
        assert result["seat"] == seat and result["scores"] == [s["score"] for s in finished["seats"]]
        assert result["places"][finished["winner"]] == 1 and result["place"] == result["places"][seat]
        assert result["rated"] is False and result["rating"] is None
        assert result["version"] == finished["version"]
        assert all(turn["seat"] == seat and turn["action"] in ("deal", "play") for turn in follower.of("your_turn"))
    assert_clean(followers, keys)


def test_the_player_event_lists_the_games_in_progress_with_whose_turn(client: FlaskClient) -> None:
    game_id, keys, _ = three_player_game(client)
    state = client.get(f"/v1/games/{game_id}").json
    for seat, key in keys.items():
        [first] = page(client, key)["items"]
        assert first["type"] == "player" and first["player"]["name"] == ["Ana", "Bo", "Cy"][seat]
        [game] = [g for g in first["games"] if g["id"] == game_id]
        assert game["your_turn"] == (state["turn"] == seat)
        assert "key" not in first["player"]


def test_bots_moves_tell_the_player_it_is_their_turn(client: FlaskClient) -> None:
    _, key = new_player(client, "Ana")
    follower = Follower(client, key)
    created = client.post(
        "/v1/games", json={"seats": [{"player": "me"}, {"bot": "random"}, {"bot": "basic"}], "target_score": 2},
        headers=bearer(key),
    )  # fmt: skip
    assert created.status_code == 201, created.json
    game_id = created.json["id"]
    follower.read()
    assert [e["seat"] for e in follower.of("game_started", game_id)] == [0]
    act(client, game_id, {0: key}, {0: follower})
    follower.read()
    assert len(follower.of("game_result", game_id)) == 1
    assert_clean({0: follower}, {0: key})


def test_a_stand_in_after_a_timeout_hands_the_turn_on(app: Flask, client: FlaskClient) -> None:
    game_id, _keys, followers = three_player_game(client, turn_timeout_seconds=30)
    state = client.get(f"/v1/games/{game_id}").json
    late = state["turn"]
    games = app.extensions["coins.games"]
    real = games.clock
    games.clock = lambda: real() + timedelta(seconds=31)
    keep_up(app)  # the worker's pass: the stand-in moves for the late seat, with nobody reading
    moved = client.get(f"/v1/games/{game_id}").json
    assert moved["version"] > state["version"] and moved["turn"] != late
    after = followers[moved["turn"]].read()
    [turn] = [e for e in after if e["type"] == "your_turn" and e["version"] == moved["version"]]
    assert turn["turn_deadline"] is not None and turn["seat"] == moved["turn"]


def test_a_rematch_is_offered_to_the_other_seats(client: FlaskClient) -> None:
    game_id, keys, followers = three_player_game(client, target_score=1)
    act(client, game_id, keys, followers)
    asked = client.post(f"/v1/games/{game_id}/rematch", headers=bearer(keys[1]))
    assert asked.status_code in (200, 201), asked.json
    rematch = asked.json["game"]["id"]
    for seat, follower in followers.items():
        follower.read()
        offers = follower.of("rematch_offered", game_id)
        assert [(o["rematch"], o["seat"]) for o in offers] == ([] if seat == 1 else [(rematch, seat)])
        assert follower.of("game_started", rematch) == []  # nobody else is seated until they accept
    for seat in (0, 2):  # each accepts for their own seat: the last one's ask starts the rematch
        accepted = client.post(f"/v1/games/{game_id}/rematch", headers=bearer(keys[seat]))
        assert accepted.status_code == 200 and accepted.json["seat"] == seat, accepted.json
    for seat, follower in followers.items():
        follower.read()
        assert [e["seat"] for e in follower.of("game_started", rematch)] == [seat]
    assert_clean(followers, keys)


def test_a_declined_rematch_tells_its_players_why(client: FlaskClient) -> None:
    game_id, keys, followers = three_player_game(client, target_score=1)
    act(client, game_id, keys, followers)
    rematch = client.post(f"/v1/games/{game_id}/rematch", headers=bearer(keys[0])).json["game"]["id"]
    assert client.delete(f"/v1/games/{game_id}/rematch", headers=bearer(keys[2])).status_code == 204
    for seat, follower in followers.items():
        follower.read()
        assert [(e["seat"], e["reason"]) for e in follower.of("game_cancelled", rematch)] == [(seat, "declined")]
    assert_clean(followers, keys)


def test_resume_after_an_id_gives_exactly_what_followed(client: FlaskClient, realtime: Realtime) -> None:
    game_id, keys, followers = three_player_game(client, target_score=1)
    act(client, game_id, keys, followers)
    everything = page(client, keys[0], after=0)["items"]
    assert everything and [e["id"] for e in everything] == list(range(1, len(everything) + 1))
    middle = everything[len(everything) // 2]["id"]
    assert page(client, keys[0], after=middle)["items"] == everything[middle:]
    with realtime.stream(FEED, token=keys[0], last_event_id=middle) as stream:
        assert stream.status == 200
        resumed = [event for _, event in zip(everything[middle:], stream.events(), strict=False)]
    assert [event.id for event in resumed] == [e["id"] for e in everything[middle:]]
    assert "player" not in {event.type for event in resumed}


def test_a_resume_past_the_last_event_is_refused_as_no_such_event(client: FlaskClient, realtime: Realtime) -> None:
    _, key = new_player(client, "Ana")
    last = page(client, key)["last_id"]
    assert page(client, key, after=last)["items"] == []
    for refused in (
        client.get(f"{FEED}?after={last + 1}", headers=bearer(key)),
        client.get(FEED, headers={**bearer(key), "Accept": "text/event-stream", "Last-Event-ID": str(last + 1)}),
    ):
        assert refused.status_code == 400 and refused.json["code"] == "unknown_event_id", refused.json
    with realtime.stream(FEED, token=key, last_event_id=last + 1) as stream:  # the real-time role alike
        assert stream.status == 400


def test_a_long_poll_waits_for_the_next_event(client: FlaskClient, realtime: Realtime) -> None:
    keys = [new_player(client, name)[1] for name in ("Ana", "Bo", "Cy")]
    created = client.post("/v1/games", json={"seats": [{"player": "me"}, None, None]}, headers=bearer(keys[0]))
    game_id = created.json["id"]
    client.post(f"/v1/games/{game_id}/players", json={"player": "me"}, headers=bearer(keys[1]))
    last = page(client, keys[0], after=0)["last_id"]
    polled: list[dict[str, Any]] = []
    wait = f"{FEED}?after={last}&wait=20"
    poller = threading.Thread(target=lambda: polled.append(realtime.get(wait, bearer(keys[0]))[2]))
    poller.start()
    joined = client.post(f"/v1/games/{game_id}/players", json={"player": "me"}, headers=bearer(keys[2]))
    assert joined.status_code == 201, joined.json  # the third seat: the game starts
    poller.join(30)
    assert polled and [e["type"] for e in polled[0]["items"]][:1] == ["game_started"]


def test_replacing_the_key_ends_its_streams_and_refuses_the_old_key(client: FlaskClient, realtime: Realtime) -> None:
    _, key = new_player(client, "Ana")
    with realtime.stream(FEED, token=key, timeout=30) as stream:
        assert stream.status == 200
        items = iter(stream)
        assert next(items).type == "player"  # type: ignore[union-attr]
        replaced = client.post("/v1/players/me/key", headers=bearer(key))
        assert replaced.status_code in (200, 201), replaced.json
        started = time.monotonic()
        rest = list(items)  # ends: the player's notice has the hub check the key at once
        assert time.monotonic() - started < 0.9  # before its first heartbeat (1 s here)
    assert not [item for item in rest if isinstance(item, Event)]
    refused = client.get("/v1/players/me/events", headers=bearer(key))
    assert refused.status_code == 401 and refused.json["code"] == "invalid_key"


@pytest.mark.parametrize(
    ("headers", "code", "status"),
    [
        ({}, "missing_token", 401),
        ({"Authorization": "Bearer cpk_not-a-key"}, "invalid_key", 401),
        ({"Authorization": "Bearer cpk_x", "Last-Event-ID": "x"}, "bad_request", 400),
    ],
)
def test_bad_requests(client: FlaskClient, headers: dict[str, str], code: str, status: int) -> None:
    response = client.get("/v1/players/me/events", headers=headers)
    assert response.status_code == status and response.json["code"] == code
    assert response.mimetype == "application/problem+json"


@pytest.mark.parametrize(
    ("headers", "code"), [({}, "missing_token"), ({"Authorization": "Bearer cpk_x"}, "invalid_key")]
)
def test_a_read_that_resumes_checks_the_key_as_one_from_the_start(
    client: FlaskClient, headers: dict[str, str], code: str
) -> None:
    for resumed in (
        client.get("/v1/players/me/events?after=0", headers=headers),
        client.get("/v1/players/me/events", headers={**headers, "Last-Event-ID": "0"}),
    ):
        assert resumed.status_code == 401 and resumed.json["code"] == code


def test_a_replaced_key_reads_no_page_after_an_event(client: FlaskClient) -> None:
    _, key = new_player(client, "Ana")
    last_id = page(client, key)["last_id"]
    assert client.post("/v1/players/me/key", headers=bearer(key)).status_code in (200, 201)
    refused = client.get(f"/v1/players/me/events?after={last_id}&wait=0", headers=bearer(key))
    assert refused.status_code == 401 and refused.json["code"] == "invalid_key"


def test_an_anonymous_game_writes_no_players_event(app: Flask, client: FlaskClient, new_table: Any) -> None:
    table = new_table(target_score=1)
    table.deal()
    with app.extensions["coins.db"].transaction(write=False) as connection:
        assert connection.execute(text("SELECT count(*) FROM player_events")).scalar_one() == 0


def test_a_keys_streams_are_capped_like_a_seats(database_url: str) -> None:
    settings = Settings(database_url=database_url, rate_limits="on", streams_per_token=1, **NO_PACE)
    app = create_app(settings)
    try:
        _, key = new_player(app.test_client(), "Ana")
        with realtime_role(app, settings) as realtime, realtime.stream(FEED, token=key) as held:
            assert held.status == 200  # its share is held while it is open
            status, headers, problem = realtime.get(FEED, bearer(key))
            assert status == 429 and problem["code"] == "too_many_requests"
            assert "retry-after" in headers
    finally:
        app.extensions["coins.feed"].close()
        app.extensions["coins.db"].dispose()


def test_a_rated_games_result_tells_each_player_their_rating_change(client: FlaskClient) -> None:
    """Once the ratings are applied, each player gets one ``game_result`` with their rating as shown
    before and after, the places those the ratings used, and the profile shows the same value."""
    game_id, ana, bo = rated_table(client)
    followers = {0: Follower(client, ana.key), 1: Follower(client, bo.key)}
    play_out(client, game_id, {0: ana.auth, 1: bo.auth})
    for seat, follower in followers.items():
        follower.read()
        [result] = follower.of("game_result", game_id)
        assert result["rated"] is True and result["seat"] == seat
        assert result["rating"]["before"] == 1500
        profile = client.get(f"/v1/players/{(ana, bo)[seat].id}").json
        assert result["rating"]["after"] == profile["rating"]["value"]
        assert result["rating"]["after"] != 1500  # a first rated game moves every rating
        assert sorted(result["places"]) in ([1, 2, 3], [1, 2, 2])


def test_replacing_the_key_ends_the_game_streams_it_opened_before_any_card_reaches_them(
    client: FlaskClient, realtime: Realtime
) -> None:
    """A game's stream opened with a player's key (the seat's private events: its cards) ends once
    the key is replaced: the deal that follows, made with the new key, reaches it not at all."""
    _, key = new_player(client, "Ana")
    seats = [{"player": "me"}, {"bot": "random"}, {"bot": "random"}]
    game = client.post("/v1/games", json={"seats": seats, "first_dealer": 0}, headers=bearer(key))
    assert game.status_code == 201, game.json
    path = f"/v1/games/{game.json['id']}/events"
    with realtime.stream(path, token=key, timeout=30) as stream:
        assert stream.status == 200
        events = stream.events()
        assert next(events).type == "game"
        replaced = client.post("/v1/players/me/key", headers=bearer(key))
        assert replaced.status_code in (200, 201), replaced.json
        dealt = client.post(f"/v1/games/{game.json['id']}/hands", headers=bearer(replaced.json["key"]))
        assert dealt.status_code == 201, dealt.json
        rest = list(events)  # ends: the key is checked before any of the seat's own events is handed on
    assert "hand" not in {event.type for event in rest}, rest
    again = client.get(path, headers={**bearer(replaced.json["key"]), "Accept": "application/json"})
    assert again.status_code == 200 and again.json["items"][0]["type"] == "game"  # the new key follows on
