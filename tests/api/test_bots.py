"""Bots over HTTP: bot seats that play on the server, hints, stand-ins after a timeout, leaving."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from service.games import GameService
from service.games.server_moves import SERVER_MOVES_PER_STEP
from tests.support.working_client import bare_client, follow, keep_up

MAX_READS = 2_000  # a game to 100 of three bots is some 1,300 moves: finished well before this


def _created(client, **body):
    response = client.post("/v1/games", json=body)
    assert response.status_code == 201, response.json
    return response.json


def _bot_game(client, **body):
    """Create a game, follow it, and read it until the bots have played as far as they can (to the
    end, or to a person's turn), checking that no worker's pass (one between two reads) makes more
    than its share of moves: every move adds one to the game's version."""
    game = created = _created(client, **body)
    follow(client.application, [created["id"]])  # a game of bots alone moves while followed
    reader = bare_client(client.application)  # the reads: one pass between two of them, no more
    assert game["version"] <= 1 + SERVER_MOVES_PER_STEP
    for _ in range(MAX_READS):
        if not _owed(game):
            return {**game, "credentials": created["credentials"]}
        version = game["version"]
        keep_up(client.application)  # the worker's next pass
        game = reader.get(f"/v1/games/{created['id']}").json
        assert 0 < game["version"] - version <= SERVER_MOVES_PER_STEP  # bounded work, and progress
    raise AssertionError(f"the bots of game {created['id']} did not finish within {MAX_READS} reads")


def _owed(game) -> bool:
    """Whether the server owes the next move: a bot's turn, or an auto-deal."""
    turn = game["turn"]
    if turn is None:
        return False
    return game["seats"][turn]["bot"] is not None or (game["status"] == "waiting_for_deal" and game["auto_deal"])


@pytest.mark.parametrize("strength", ["random", "basic", "expert"])
def test_three_bots_play_a_whole_game_over_later_reads(client, strength):
    game = _bot_game(client, target_score=5, seats=[{"bot": strength}] * 3, seed=f"bots-{strength}")
    assert game["status"] == "finished" and game["credentials"] == []
    assert game["seats"][game["winner"]]["score"] >= 5
    assert [seat["bot"] for seat in game["seats"]] == [strength] * 3
    assert game["seats"][0]["name"] == f"{strength.capitalize()} bot A"  # three alike: told apart by a letter
    actions = client.get(f"/v1/games/{game['id']}/actions?limit=500").json["items"]
    assert {a["cause"] for a in actions} == {"bot"}
    assert all(a["seed"] for a in actions if a["kind"] == "deal")  # every hand is over: seeds revealed


def test_seeded_bot_games_replay_exactly(client):
    body = {"target_score": 8, "seats": [{"bot": "basic"}, {"bot": "expert"}, {"bot": "random"}], "seed": "again"}
    first, second = _bot_game(client, **body), _bot_game(client, **body)
    cards = [
        [a["card"] for a in client.get(f"/v1/games/{g['id']}/actions?limit=500").json["items"]] for g in (first, second)
    ]
    assert cards[0] == cards[1] and first["winner"] == second["winner"]


def test_bots_answer_after_the_players_request_not_within_it(client):
    game = _bot_game(client, seats=[{"name": "Ana"}, {"bot": "basic"}, {"bot": "expert"}], seed="mixed", first_dealer=0)
    token = {"Authorization": f"Bearer {game['credentials'][0]['token']}"}
    reader = bare_client(client.application)
    dealt = reader.post(f"/v1/games/{game['id']}/hands", headers=token).json
    assert dealt["game"]["turn"] == 1 and dealt["game"]["trick"]["plays"] == []  # the request made no bot move
    keep_up(client.application)  # the worker: the bots on Ana's left (1) and (2) lead and follow
    state = client.get(f"/v1/games/{game['id']}").json
    assert state["turn"] == 0 and [p["seat"] for p in state["trick"]["plays"]] == [1, 2]
    hand = client.get(f"/v1/games/{game['id']}/hand", headers=token).json["cards"]
    played = reader.post(f"/v1/games/{game['id']}/plays", json={"card": hand[0]}, headers=token).json
    assert played["trick"]["complete"] is True and played["game"]["version"] == state["version"] + 1
    keep_up(client.application)
    state = client.get(f"/v1/games/{game['id']}").json
    assert state["turn"] == 0  # whoever won, the bots have played up to Ana again
    assert len(state["trick"]["plays"]) in (0, 2)


def test_hint_gives_a_card_from_your_hand_with_a_reason(client, new_table):
    table = new_table(seed="hint")
    table.deal(0)
    for strength in ("random", "basic", "expert"):
        response = client.get(f"/v1/games/{table.id}/hint?strength={strength}", headers=table.auth(1))
        assert response.status_code == 200, response.json
        hint = response.json
        assert hint["seat"] == 1 and hint["strength"] == strength and hint["reason"]
        assert hint["card"] in table.hand(1)
        again = client.get(f"/v1/games/{table.id}/hint?strength={strength}", headers=table.auth(1))
        assert again.json == hint  # deterministic for one version of the game
    assert client.get(f"/v1/games/{table.id}/hint", headers=table.auth(2)).json["code"] == "not_your_turn"
    assert client.get(f"/v1/games/{table.id}/hint?strength=godlike", headers=table.auth(1)).status_code == 422
    assert client.get(f"/v1/games/{table.id}/hint").status_code == 401


def test_hint_before_a_deal(client, new_table):
    table = new_table()
    assert client.get(f"/v1/games/{table.id}/hint", headers=table.auth(0)).json["code"] == "no_hand_in_progress"


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock(app):
    clock = Clock()
    service: GameService = app.extensions["coins.games"]
    service.clock = clock
    return clock


def test_a_stand_in_plays_when_the_turn_times_out(client, new_table, clock):
    table = new_table(seed="slow", turn_timeout_seconds=30)
    assert table.deal(0).status_code == 201
    state = table.state()
    assert state["turn"] == 1 and state["turn_timeout_seconds"] == 30
    assert datetime.fromisoformat(state["turn_deadline"]) == clock.now + timedelta(seconds=30)
    clock.now += timedelta(seconds=29)
    assert table.state()["turn"] == 1  # not yet
    clock.now += timedelta(seconds=2)
    state = table.state()  # any read first plays for the late player
    assert state["turn"] == 2 and [p["seat"] for p in state["trick"]["plays"]] == [1]
    last = client.get(f"/v1/games/{table.id}/actions?limit=500").json["items"][-1]
    assert last["cause"] == "timeout" and last["seat"] == 1
    late = table.play(1, table.hand(1)[0])
    assert late.json["code"] == "not_your_turn"
    assert datetime.fromisoformat(table.state()["turn_deadline"]) == clock.now + timedelta(seconds=30)


def test_a_late_write_still_records_the_stand_in(client, new_table, clock):
    table = new_table(seed="slow-write", turn_timeout_seconds=30)
    table.deal(0)
    card = table.hand(1)[0]
    clock.now += timedelta(seconds=31)
    refused = table.play(1, card)
    assert refused.status_code == 409 and refused.json["code"] == "not_your_turn"
    assert table.state()["turn"] == 2  # the refusal did not undo the stand-in's move


def test_a_timed_out_dealer_is_dealt_for(client, new_table, clock):
    table = new_table(turn_timeout_seconds=10)
    clock.now += timedelta(seconds=11)
    assert table.state()["status"] == "playing"
    deal = client.get(f"/v1/games/{table.id}/actions").json["items"][0]
    assert deal["kind"] == "deal" and deal["cause"] == "timeout" and deal["seed"] is None
    assert len(deal["commitment"]) == 64


def test_leaving_hands_the_seat_to_a_bot(client, new_table):
    table = new_table(seed="leave")
    table.deal(0)
    wrong = client.post(f"/v1/games/{table.id}/players/2/leave", json={}, headers=table.auth(1))
    assert wrong.status_code == 403 and wrong.json["code"] == "not_your_seat"
    for no_seat in ("3", "1" + "0" * 30, "-1", "1.5"):  # no such seat: no such resource, the number not echoed
        missing = client.post(f"/v1/games/{table.id}/players/{no_seat}/leave", json={}, headers=table.auth(1))
        assert missing.status_code == 404 and missing.json["code"] == "not_found", (no_seat, missing.json)
    response = client.post(f"/v1/games/{table.id}/players/1/leave", json={"bot": "expert"}, headers=table.auth(1))
    assert response.status_code == 200, response.json
    assert response.json["seats"][1]["bot"] == "expert" and response.json["turn"] == 1  # the bot's move: due
    game = table.state()  # the worker's pass after the request made it
    assert game["turn"] == 2 and game["trick"]["plays"][0]["seat"] == 1
    assert client.get(f"/v1/games/{table.id}/hand", headers=table.auth(1)).status_code == 401  # token retired


def test_leaving_before_the_start_reopens_the_seat(client):
    game = client.post("/v1/games", json={"seats": [{"name": "A"}, None, None]}).json
    headers = {"Authorization": f"Bearer {game['credentials'][0]['token']}"}
    left = client.post(f"/v1/games/{game['id']}/players/0/leave", headers=headers, json={}).json
    assert left["seats"][0] == {
        "seat": 0, "name": None, "open": True, "bot": None, "score": 0, "cards_in_hand": 0, "tricks_won": 0,
        "player": None, "reserved_for": None, "rating": None, "rating_change": None,
    }  # fmt: skip


def test_bot_seats_validate(client):
    for seat in ({"bot": "grandmaster"}, {"bot": "basic", "age": 3}, {}, {"age": 30}):
        response = client.post("/v1/games", json={"seats": [seat, None, None]})
        assert response.status_code == 422, seat


def test_history_hides_a_seed_until_its_hand_is_over(client, new_table):
    table = new_table(seed="history")
    dealt = table.deal(0).json
    deal = client.get(f"/v1/games/{table.id}/actions").json["items"][0]
    assert deal == {**deal, "kind": "deal", "seat": 0, "cause": "player", "card": None, "seed": None}
    assert deal["commitment"] == dealt["commitment"]


def test_experts_search_less_only_when_no_person_is_at_the_table(client, monkeypatch):
    from service.games import server_moves as games

    seen: list[dict] = []
    real = games.make_bot

    def recording(strength, seat, rng, **options):
        seen.append({"strength": strength, **options})
        return real(strength, seat, rng, **options)

    monkeypatch.setattr(games, "make_bot", recording)
    game = _bot_game(client, target_score=3, seats=[{"bot": "expert"}] * 3, seed="budget")
    assert game["status"] == "finished"
    assert seen and all(s["playouts"] == games.BOTS_ONLY_EXPERT_PLAYOUTS for s in seen)
    assert all(s["strength"] == "expert" and s["max_seconds"] == games.EXPERT_SAFETY_SECONDS for s in seen)
    seen.clear()
    mixed = _bot_game(client, seats=[{"name": "Ana"}, {"bot": "expert"}, {"bot": "expert"}], first_dealer=0)
    client.post(
        f"/v1/games/{mixed['id']}/hands", headers={"Authorization": f"Bearer {mixed['credentials'][0]['token']}"}
    )
    assert seen and all(set(s) == {"strength", "max_seconds"} for s in seen)  # the default budget against a person


def test_a_three_bot_game_to_100_finishes_over_bounded_reads_with_its_events_in_order(client):
    game = _bot_game(client, target_score=100, seats=[{"bot": "expert"}, {"bot": "basic"}, {"bot": "random"}])
    assert game["status"] == "finished" and game["seats"][game["winner"]]["score"] >= 100
    events = client.get(f"/v1/games/{game['id']}/events", query_string={"after": 0}).json["items"]
    while events[-1]["type"] != "game_finished":
        more = client.get(f"/v1/games/{game['id']}/events", query_string={"after": events[-1]["id"]}).json
        assert more["items"], "the feed stops before the game's end"
        events += more["items"]
    assert [event["id"] for event in events] == list(range(1, len(events) + 1))
    assert sum(event["type"] == "card_played" for event in events) == sum(
        action["kind"] == "play" for action in _all_actions(client, game["id"])
    )


def _all_actions(client, game_id):
    items, cursor = [], None
    while True:
        query = {"limit": 500, **({"cursor": cursor} if cursor else {})}
        page = client.get(f"/v1/games/{game_id}/actions", query_string=query).json
        items += page["items"]
        cursor = page["next_cursor"]
        if cursor is None:
            return items


def test_a_followed_bots_game_moves_on_until_it_ends_its_events_in_order(client):
    """A game of bots alone moves while followed (the real-time role's mark), by the worker's passes
    alone, until it ends; its events read a page at a time come in order."""
    created = _created(client, target_score=5, seats=[{"bot": "random"}] * 3, seed="watched")
    assert created["version"] == 1  # the request made no move
    follow(client.application, [created["id"]])
    last, finished = 0, False
    for _ in range(MAX_READS):
        keep_up(client.application)
        page = client.get(f"/v1/games/{created['id']}/events", query_string={"after": last}).json
        assert [event["id"] for event in page["items"]] == list(range(last + 1, page["last_id"] + 1))
        last = page["last_id"]
        if any(event["type"] == "game_finished" for event in page["items"]):
            finished = True
            break
    assert finished


@pytest.mark.parametrize(
    ("seats", "names"),
    [
        ([{"bot": "expert"}, {"bot": "expert"}, {"bot": "basic"}], ["Expert bot A", "Expert bot B", "Basic bot"]),
        ([{"bot": "basic"}, {"bot": "basic"}, {"bot": "basic"}], ["Basic bot A", "Basic bot B", "Basic bot C"]),
        ([{"name": "Ana"}, {"bot": "random"}, {"bot": "expert"}], ["Ana", "Random bot", "Expert bot"]),
        ([{"bot": "expert", "name": "Deep"}, {"bot": "expert"}, None], ["Deep", "Expert bot", None]),
    ],
)
def test_bots_of_one_strength_get_distinct_names(client, seats, names):
    game = _created(client, target_score=5, seats=seats)
    assert [seat["name"] for seat in game["seats"]] == names
