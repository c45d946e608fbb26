"""Ratings people can trust (issue 31), through the API on both databases: a rated game's clock, no hints,
void games, what leavers, one address and the same opponents again are worth, and the leaderboard's floor
and its rising players."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import text

from service import ADDRESS_KEY_SECRET as ADDRESS_KEY
from service.games.ids import BOT_PLAYER_IDS
from service.ratings.fairness import SHARED_ADDRESS_WEIGHT
from tests.support.players import Player, new_player
from tests.support.rated_games import play_out

ME = {"player": "me"}


def _from(address: str) -> dict[str, object]:
    return {"environ_base": {"REMOTE_ADDR": address}}


def _rated(client, creator: Player, seats, address: str = "127.0.0.1", **body):
    response = client.post(
        "/v1/games", json={"seats": seats, "rated": True, "target_score": 1, **body}, headers=creator.auth,
        **_from(address),
    )  # fmt: skip
    return response


def _join(client, game_id: str, player: Player, address: str = "127.0.0.1") -> int:
    joined = client.post(f"/v1/games/{game_id}/players", json=ME, headers=player.auth, **_from(address))
    assert joined.status_code == 201, joined.json
    return joined.json["seat"]


def _history(client, player_id: str) -> list[dict]:
    return client.get(f"/v1/players/{player_id}/ratings").json["items"]


def _rating(client, player_id: str) -> dict:
    return client.get(f"/v1/players/{player_id}").json["rating"]


def _count(app, sql: str, **params) -> int:
    with app.extensions["coins.db"].engine.connect() as connection:
        return connection.execute(text(sql), params).scalar_one()


def _play_one_card_each(client, game_id: str, auth_by_seat: dict[int, dict[str, str]]) -> None:
    """Deal if need be, then play the first card of each seat in turn until every seat has played once."""
    played: set[int] = set()
    for _ in range(12):
        state = client.get(f"/v1/games/{game_id}").json
        if played >= set(auth_by_seat) or state["status"] == "finished":
            return
        headers = auth_by_seat.get(state["turn"])
        if headers is None:
            continue
        if state["status"] == "waiting_for_deal":
            assert client.post(f"/v1/games/{game_id}/hands", headers=headers).status_code == 201
            continue
        card = client.get(f"/v1/games/{game_id}/hand", headers=headers).json["cards"][0]
        assert client.post(f"/v1/games/{game_id}/plays", json={"card": card}, headers=headers).status_code == 201
        played.add(state["turn"])
    raise AssertionError("the seats did not all get to play")


# -- the clock ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "rated", "status", "clock"),
    [
        ({}, True, 201, 60),
        ({"turn_timeout_seconds": 30}, True, 201, 30),
        ({"turn_timeout_seconds": None}, True, 422, None),
        ({}, False, 201, None),
        ({"turn_timeout_seconds": None}, False, 201, None),
    ],
)
def test_a_rated_game_always_has_a_clock(client, body, rated, status, clock):
    ana = new_player(client, "Ana")
    created = client.post(
        "/v1/games", json={"seats": [ME, {"bot": "random"}, {"bot": "basic"}], "rated": rated, **body},
        headers=ana.auth,
    )  # fmt: skip
    assert created.status_code == status, created.json
    if status == 422:
        assert created.json["code"] == "rated_needs_clock"
    else:
        assert created.json["turn_timeout_seconds"] == clock
        assert (created.json["turn_deadline"] is not None) is (clock is not None and created.json["turn"] == 0)


def test_the_rematch_of_a_rated_game_has_its_clock(client):
    ana = new_player(client, "Ana")
    created = _rated(client, ana, [ME, {"bot": "random"}, {"bot": "basic"}], turn_timeout_seconds=45)
    play_out(client, created.json["id"], {0: ana.auth})
    rematch = client.post(f"/v1/games/{created.json['id']}/rematch", headers=ana.auth)
    assert rematch.status_code == 201, rematch.json
    assert rematch.json["game"]["rated"] is True and rematch.json["game"]["turn_timeout_seconds"] == 45


def test_hints_are_off_in_rated_games(client):
    ana = new_player(client, "Ana")
    for rated, status in ((True, 409), (False, 200)):
        game = client.post(
            "/v1/games", json={"seats": [ME, {"bot": "random"}, {"bot": "basic"}], "rated": rated, "auto_deal": True,
                               "first_dealer": 2}, headers=ana.auth,
        ).json  # fmt: skip
        for _ in range(20):
            if client.get(f"/v1/games/{game['id']}").json["turn"] == 0:
                break
        hint = client.get(f"/v1/games/{game['id']}/hint", headers=ana.auth)
        assert hint.status_code == status, hint.json
        if status == 409:
            assert hint.json["code"] == "hints_off_in_rated"


# -- void games ----------------------------------------------------------------------------------


def test_a_seat_that_leaves_before_its_first_card_makes_the_game_void(client, app):
    ana, bo = new_player(client, "Ana", REMOTE_ADDR="127.0.0.2"), new_player(client, "Bo", REMOTE_ADDR="127.0.0.3")
    game_id = _rated(client, ana, [ME, None, {"bot": "random"}], "127.0.0.2").json["id"]
    _join(client, game_id, bo, "127.0.0.3")
    assert client.get(f"/v1/games/{game_id}").json["void"] is False
    left = client.post(f"/v1/games/{game_id}/players/1/leave", headers=bo.auth)
    assert left.status_code == 200 and left.json["void"] is True
    final = play_out(client, game_id, {0: ana.auth})  # the game goes on, with a bot in Bo's seat
    assert final["status"] == "finished" and final["void"] is True
    for player in (ana.id, bo.id, BOT_PLAYER_IDS["random"]):
        assert _rating(client, player) == {"value": 1500, "provisional": True, "games": 0}
        assert _history(client, player) == []
    assert _count(app, "SELECT count(*) FROM game_results") == 0
    results = [
        event for event in client.get("/v1/players/me/events?after=0", headers=ana.auth).json["items"]
        if event["type"] == "game_result"
    ]  # fmt: skip
    assert len(results) == 1 and results[0]["void"] is True and results[0]["rating"] is None and results[0]["rated"]


def test_a_seat_that_leaves_after_its_first_card_is_rated_last(client):
    ana, bo = new_player(client, "Ana", REMOTE_ADDR="127.0.0.2"), new_player(client, "Bo", REMOTE_ADDR="127.0.0.3")
    game_id = _rated(client, ana, [ME, None, {"bot": "random"}], "127.0.0.2", auto_deal=True).json["id"]
    _join(client, game_id, bo, "127.0.0.3")
    _play_one_card_each(client, game_id, {0: ana.auth, 1: bo.auth})
    state = client.get(f"/v1/games/{game_id}").json
    if state["status"] == "finished":
        pytest.skip("the first trick ended the game")  # target 1: a coin in the first trick
    assert client.post(f"/v1/games/{game_id}/players/1/leave", headers=bo.auth).json["void"] is False
    play_out(client, game_id, {0: ana.auth})
    [entry] = _history(client, bo.id)
    assert entry["left"] is True and entry["place"] == 3 and entry["after"]["value"] < 1500


# -- what a game is worth ----------------------------------------------------------------------------


def test_a_player_left_alone_with_leavers_gains_nothing(client):
    players = [new_player(client, name, REMOTE_ADDR=f"127.0.0.{i + 2}") for i, name in enumerate(("Ana", "Bo", "Cy"))]
    ana, bo, cy = players
    game_id = _rated(client, ana, [ME, None, None], "127.0.0.2", target_score=5, auto_deal=True).json["id"]
    _join(client, game_id, bo, "127.0.0.3")
    _join(client, game_id, cy, "127.0.0.4")
    _play_one_card_each(client, game_id, {0: ana.auth, 1: bo.auth, 2: cy.auth})
    for seat, player in ((1, bo), (2, cy)):
        assert client.post(f"/v1/games/{game_id}/players/{seat}/leave", headers=player.auth).json["void"] is False
    play_out(client, game_id, {0: ana.auth})
    [entry] = _history(client, ana.id)
    assert entry["place"] == 1 and entry["weight"] == 0.0 and entry["after"]["value"] == entry["before"]["value"]
    for leaver in (bo, cy):
        [lost] = _history(client, leaver.id)
        assert lost["left"] is True and lost["weight"] == 1.0 and lost["after"]["value"] < 1500


@pytest.mark.parametrize(
    ("addresses", "weight"), [(("127.0.0.2", "127.0.0.3"), 1.0), (("127.0.0.2", "127.0.0.2"), None)]
)
def test_players_of_one_address_count_a_tenth_to_each_other(client, addresses, weight):
    ana = new_player(client, "Ana", REMOTE_ADDR=addresses[0])
    bo = new_player(client, "Bo", REMOTE_ADDR=addresses[1])
    game_id = _rated(client, ana, [ME, None, {"bot": "random"}], addresses[0]).json["id"]
    _join(client, game_id, bo, addresses[1])
    play_out(client, game_id, {0: ana.auth, 1: bo.auth})
    expected = weight if weight is not None else (SHARED_ADDRESS_WEIGHT + 1.0) / 2  # Bo a tenth, the bot whole
    assert [_history(client, player.id)[0]["weight"] for player in (ana, bo)] == [pytest.approx(expected)] * 2
    assert _history(client, BOT_PLAYER_IDS["random"])[0]["weight"] == 1.0


def test_accounts_made_from_one_address_count_a_tenth_wherever_they_play(client):
    ana = new_player(client, "Ana", REMOTE_ADDR="127.0.0.9")
    bo = new_player(client, "Bo", REMOTE_ADDR="127.0.0.9")
    game_id = _rated(client, ana, [ME, None, {"bot": "random"}], "127.0.0.2").json["id"]
    _join(client, game_id, bo, "127.0.0.3")
    play_out(client, game_id, {0: ana.auth, 1: bo.auth})
    assert _history(client, ana.id)[0]["weight"] == pytest.approx((SHARED_ADDRESS_WEIGHT + 1.0) / 2)


def test_the_same_opponents_again_within_a_day_count_less(client, app):
    ana = new_player(client, "Ana", REMOTE_ADDR="127.0.0.2")
    bo = new_player(client, "Bo", REMOTE_ADDR="127.0.0.3")
    bot = BOT_PLAYER_IDS["random"]
    games = []
    for _ in range(3):
        game_id = _rated(client, ana, [ME, None, {"bot": "random"}], "127.0.0.2").json["id"]
        _join(client, game_id, bo, "127.0.0.3")
        play_out(client, game_id, {0: ana.auth, 1: bo.auth})
        games.append(game_id)
    weights = [entry["weight"] for entry in reversed(_history(client, ana.id))]
    # Bo the first, second and third time (1, 1/2, 1/3), the bot whole each time, each also scaled by
    # how certain Ana was against them (min(1, (her sigma / theirs)^2): 1 while she was at least as
    # uncertain; the games are not seeded, so how far her sigma shrank varies from run to run).
    for met, game_id in enumerate(games, start=1):
        sigma = {player: _sigma_before(app, player, game_id) for player in (ana.id, bo.id, bot)}
        bo_pair = min(1.0, (sigma[ana.id] / sigma[bo.id]) ** 2) / met
        bot_pair = min(1.0, (sigma[ana.id] / sigma[bot]) ** 2)
        assert weights[met - 1] == pytest.approx((bo_pair + bot_pair) / 2, abs=1e-9)
    assert weights[0] == 1.0
    assert weights[0] > weights[1] > weights[2]


def _sigma_before(app, player_id: str, game_id: str) -> float:
    """The sigma the player's rating had when the game began, as its rating history keeps it."""
    sql = "SELECT sigma_before FROM rating_history WHERE player_id = :player AND game_id = :game"
    with app.extensions["coins.db"].engine.connect() as connection:
        return float(connection.execute(text(sql), {"player": player_id, "game": game_id}).scalar_one())


# -- the leaderboard -------------------------------------------------------------------------------


def _board(client, **query) -> list[str]:
    items, cursor = [], None
    while True:
        page = client.get("/v1/leaderboard", query_string={**query, **({"cursor": cursor} if cursor else {})})
        assert page.status_code == 200, page.json
        items += [item["player"]["id"] for item in page.json["items"]]
        cursor = page.json["next_cursor"]
        if not cursor:
            return items


def test_the_leaderboard_lists_a_player_once_they_met_three_distinct_opponents(client):
    ana = new_player(client, "Ana", REMOTE_ADDR="127.0.0.2")
    for bots in (("random", "basic"), ("random", "basic"), ("basic", "expert")):
        game_id = _rated(client, ana, [ME, {"bot": bots[0]}, {"bot": bots[1]}], "127.0.0.2").json["id"]
        play_out(client, game_id, {0: ana.auth})
        rising = _board(client, provisional="true")
        assert (ana.id in rising) is (bots == ("basic", "expert"))  # the third distinct opponent
        assert ana.id not in _board(client)  # provisional: not ranked
    listed = set(_board(client, provisional="true")) | set(_board(client))
    played = {BOT_PLAYER_IDS[strength] for strength in ("random", "basic", "expert")}
    assert listed & set(BOT_PLAYER_IDS.values()) == played  # the master played no rated game: not listed


def test_a_bot_that_has_played_no_rated_game_is_not_listed(client):
    """A fresh service's rising list is empty: its bots are listed from their first rated game on."""
    assert _board(client, provisional="true") == [] and _board(client) == []


def _listable(app, name: str, mu: float, *, listed: bool) -> str:
    player_id = new_player(app.test_client(), name).id
    until = datetime(2099, 1, 1, tzinfo=UTC) if listed else None
    with app.extensions["coins.db"].engine.begin() as connection:
        connection.execute(
            text(
                "UPDATE players SET mu = :mu, sigma = :sigma, rated_games = 12, rated_at = :at, opponents = 3,"
                " listable = :listable, listed_until = :until WHERE id = :id"
            ),
            {"mu": mu, "sigma": 2.0 if listed else 6.0, "at": datetime.now(UTC), "listable": True, "until": until,
             "id": player_id},
        )  # fmt: skip
    return player_id


def test_the_rising_players_are_ranked_apart_a_page_at_a_time(client, app):
    ranked = [_listable(app, f"R{i}", 26.0 + i, listed=True) for i in range(2)]
    rising = [_listable(app, f"U{i}", 30.0 - i, listed=False) for i in range(3)]
    assert [p for p in _board(client, limit=1) if p in ranked + rising] == ranked[::-1]
    assert [p for p in _board(client, limit=1, provisional="true") if p in ranked + rising] == rising
    first = client.get("/v1/leaderboard", query_string={"provisional": "true", "limit": 1})
    assert first.json["items"][0]["rank"] == 1 and "provisional=true" in first.headers["Link"]
    second = client.get("/v1/leaderboard", query_string={"provisional": "true", "cursor": first.json["next_cursor"]})
    assert second.json["items"][0]["rank"] == 2
    crossed = client.get("/v1/leaderboard", query_string={"cursor": first.json["next_cursor"]})
    assert crossed.status_code == 400 and crossed.json["code"] == "invalid_cursor"  # a rising list's cursor
    assert client.get("/v1/leaderboard", query_string={"provisional": "yes"}).json["code"] == "validation_error"


def test_the_address_key_is_made_before_a_keyed_requests_transaction(client, app):
    """The first request of a fresh install may carry an Idempotency-Key: its write transaction (on
    SQLite the one write lock) is taken after the key of the addresses' hashes is made, not before."""
    created = client.post("/v1/players", json={"name": "Ana"}, headers={"Idempotency-Key": "first"})
    assert created.status_code == 201, created.json
    with app.extensions["coins.db"].engine.connect() as connection:
        kept = connection.execute(
            text("SELECT count(*) FROM service_secrets WHERE name = :name"), {"name": ADDRESS_KEY}
        )
        assert kept.scalar_one() == 1
        hashed = connection.execute(text("SELECT address_hash FROM players WHERE id = :id"), {"id": created.json["id"]})
        assert len(hashed.scalar_one()) == 32  # a keyed hash, never the address
