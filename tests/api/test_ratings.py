"""Ratings through the API: a rated game's end changes every seat's rating once, visible at once on the
profiles and histories; a leaver is last; unrated games change nothing; the leaderboard's order, pages
and inactivity; the problems of each read."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text

from service.games.ids import BOT_PLAYER_IDS
from service.ratings import display, provisional_from
from tests.support.players import new_player
from tests.support.rated_games import play_out, rated_game_played, rated_table

RANDOM_BOT = BOT_PLAYER_IDS["random"]


def _profile(client, player_id):
    return client.get(f"/v1/players/{player_id}").json


def _history(client, player_id, **query):
    response = client.get(f"/v1/players/{player_id}/ratings", query_string=query)
    assert response.status_code == 200, response.json
    return response.json


def _count(app, sql, **params):
    with app.extensions["coins.db"].engine.connect() as connection:
        return connection.execute(text(sql), params).scalar_one()


def test_a_rated_games_end_changes_every_seats_rating_once(client, app):
    game_id, ana, bo, final = rated_game_played(client)
    players = [ana.id, bo.id, RANDOM_BOT]
    for _ in range(20):  # applied by the time the finishing request returned, or within a second
        if all(_profile(client, player)["rating"]["games"] == 1 for player in players):
            break
        time.sleep(0.05)
    scores = [seat["score"] for seat in final["seats"]]
    for seat, player in enumerate(players):
        profile = _profile(client, player)
        assert profile["rating"]["games"] == 1 and profile["rating"]["provisional"] is True
        [entry] = _history(client, player)["items"]
        assert entry["game"] == game_id and entry["seat"] == seat and entry["score"] == scores[seat]
        assert entry["before"] == {"value": 1500, "provisional": True, "games": 0}
        assert entry["after"] == profile["rating"]
        assert entry["left"] is False
    places = sorted(_history(client, player)["items"][0]["place"] for player in players)
    assert places[0] == 1
    winner = _history(client, players[final["winner"]])["items"][0]
    assert winner["place"] == 1 and winner["after"]["value"] > 1500
    assert _count(app, "SELECT count(*) FROM rating_history WHERE game_id = :g", g=game_id) == 3
    assert (
        _count(app, "SELECT count(*) FROM game_results WHERE game_id = :g AND applied_at IS NOT NULL", g=game_id) == 1
    )
    # Reading again (and the catch-up of each read) applies nothing more.
    client.get("/v1/leaderboard")
    assert _profile(client, ana.id)["rating"]["games"] == 1


def test_a_game_ended_by_a_keyed_play_is_rated_once_and_its_retry_rates_nothing(client, app):
    game_id, ana, bo = rated_table(client)
    final = play_out(client, game_id, {0: ana.auth, 1: bo.auth}, keyed=True)
    assert final["last_card"] is not None, "the last keyed request, a play, ended the game"
    assert [_profile(client, p)["rating"]["games"] for p in (ana.id, bo.id, RANDOM_BOT)] == [1, 1, 1]
    headers = {0: ana.auth, 1: bo.auth}[final["last_seat"]]
    retry = client.post(
        f"/v1/games/{game_id}/plays", json={"card": final["last_card"]},
        headers={**headers, "Idempotency-Key": final["last_key"]},
    )  # fmt: skip
    assert retry.status_code == 201 and retry.headers["Idempotent-Replayed"] == "true"
    assert _count(app, "SELECT count(*) FROM rating_history WHERE game_id = :g", g=game_id) == 3
    assert _profile(client, ana.id)["rating"]["games"] == 1


def test_an_unrated_game_changes_nothing(client, app):
    ana = new_player(client, "Ana")
    created = client.post(
        "/v1/games", json={"seats": [{"player": "me"}, {"bot": "random"}, {"bot": "basic"}], "target_score": 1},
        headers=ana.auth,
    )  # fmt: skip
    play_out(client, created.json["id"], {0: ana.auth})
    assert _profile(client, ana.id)["rating"] == {"value": 1500, "provisional": True, "games": 0}
    assert _profile(client, RANDOM_BOT)["rating"]["games"] == 0
    assert _history(client, ana.id)["items"] == []
    assert _count(app, "SELECT count(*) FROM game_results") == 0


def _play_until_seat_played(client, game_id, auth_by_seat, seat):
    """Deal and play (first cards) until ``seat``'s player has played a card of their own."""
    for _ in range(20):
        state = client.get(f"/v1/games/{game_id}").json
        headers = auth_by_seat.get(state["turn"])
        if headers is None:
            continue
        if state["status"] == "waiting_for_deal":
            client.post(f"/v1/games/{game_id}/hands", headers=headers)
            continue
        card = client.get(f"/v1/games/{game_id}/hand", headers=headers).json["cards"][0]
        assert client.post(f"/v1/games/{game_id}/plays", json={"card": card}, headers=headers).status_code == 201
        if state["turn"] == seat:
            return
    raise AssertionError(f"seat {seat} did not get to play")


def test_a_leaver_finishes_last_and_the_bot_that_played_on_is_not_rated(client):
    # A hand holds 12 points: at 13 the game cannot end before Ana's first card, as at 1 it could.
    game_id, ana, bo = rated_table(client, "random", target_score=13)
    _play_until_seat_played(client, game_id, {0: ana.auth, 1: bo.auth}, 0)  # else the game is void
    left = client.post(f"/v1/games/{game_id}/players/0/leave", json={"bot": "basic"}, headers=ana.auth)
    assert left.status_code == 200, left.json
    play_out(client, game_id, {1: bo.auth})
    [entry] = _history(client, ana.id)["items"]
    assert entry["left"] is True and entry["place"] == 3
    assert entry["after"]["value"] < 1500
    assert _history(client, BOT_PLAYER_IDS["basic"])["items"] == []  # the stand-in is not rated
    assert _profile(client, BOT_PLAYER_IDS["basic"])["rating"]["games"] == 0
    assert [item["place"] for item in _history(client, bo.id)["items"]] != [3]
    assert _history(client, RANDOM_BOT)["items"][0]["game"] == game_id


def test_the_history_is_newest_first_a_page_at_a_time(client):
    ana = new_player(client, "Ana")
    games = []
    for _ in range(3):
        created = client.post(
            "/v1/games", json={"seats": [{"player": "me"}, {"bot": "random"}, {"bot": "basic"}], "rated": True,
                               "target_score": 1}, headers=ana.auth,
        )  # fmt: skip
        play_out(client, created.json["id"], {0: ana.auth})
        games.append(created.json["id"])
    first = client.get(f"/v1/players/{ana.id}/ratings?limit=2")
    assert [item["game"] for item in first.json["items"]] == games[::-1][:2]
    assert 'rel="next"' in first.headers["Link"]
    second = _history(client, ana.id, limit=2, cursor=first.json["next_cursor"])
    assert [item["game"] for item in second["items"]] == games[:1] and second["next_cursor"] is None
    assert second["items"][0]["after"] == first.json["items"][1]["before"]  # one rating, game after game
    assert _profile(client, ana.id)["rating"] == first.json["items"][0]["after"]


def test_the_reads_problems(client):
    missing = client.get("/v1/players/01jf3v9k2m8q4r6t0w5x7y9z1b/ratings")
    assert missing.status_code == 404 and missing.json["code"] == "player_not_found"
    assert client.get("/v1/players/nope/ratings").status_code == 404
    for path in ("/v1/leaderboard", f"/v1/players/{RANDOM_BOT}/ratings"):
        bad = client.get(path, query_string={"cursor": "bm9wZQ"})
        assert bad.status_code == 400 and bad.json["code"] == "invalid_cursor"
        assert client.get(path, query_string={"limit": 0}).json["code"] == "validation_error"


def _settled(app, name: str, mu: float, rated_at: datetime, *, sigma: float = 2.0, games: int = 20) -> str:
    """A player whose rating is settled (as ten and more rated games leave it), written as the apply step would."""
    player_id = new_player(app.test_client(), name).id
    listed_until = provisional_from(sigma, rated_at, games)
    with app.extensions["coins.db"].engine.begin() as connection:
        connection.execute(
            text(
                "UPDATE players SET mu = :mu, sigma = :sigma, rated_games = :games, rated_at = :at,"
                " listed_until = :until WHERE id = :id"
            ),
            {"mu": mu, "sigma": sigma, "games": games, "at": rated_at, "until": listed_until, "id": player_id},
        )
    return player_id


def test_the_leaderboard_best_first_ranked_across_pages_provisional_ratings_off(client, app):
    now = datetime.now(UTC)
    mus = [30.0, 27.5, 33.0, 25.0, 28.0]
    ids = {mu: _settled(app, f"P{index}", mu, now) for index, mu in enumerate(mus)}
    new_player(client, "Newcomer")  # provisional: never listed
    first = client.get("/v1/leaderboard?limit=2")
    assert first.status_code == 200 and 'rel="next"' in first.headers["Link"]
    items = list(first.json["items"])
    cursor = first.json["next_cursor"]
    while cursor:
        page = client.get("/v1/leaderboard", query_string={"limit": 2, "cursor": cursor}).json
        items += page["items"]
        cursor = page["next_cursor"]
    assert [item["rank"] for item in items] == [1, 2, 3, 4, 5]
    assert [item["player"]["id"] for item in items] == [ids[mu] for mu in sorted(mus, reverse=True)]
    best = items[0]
    assert best["player"] == {"id": ids[33.0], "name": "P2", "bot": None}
    assert best["rating"] == {"value": display(33.0, 2.0, 20).value, "provisional": False, "games": 20}
    values = [item["rating"]["value"] for item in items]
    assert values == sorted(values, reverse=True)


@pytest.mark.parametrize("away_days", [30, 400])
def test_time_away_makes_a_rating_provisional_on_the_leaderboards_terms(client, app, away_days):
    now = datetime.now(UTC)
    settled = _settled(app, "Ana", 30.0, now - timedelta(days=away_days))
    listed = [item["player"]["id"] for item in client.get("/v1/leaderboard").json["items"]]
    provisional = _profile(client, settled)["rating"]["provisional"]
    # About ten months away turn a sigma of 2 provisional: the profile and the leaderboard agree.
    assert provisional is (away_days == 400)
    assert (settled in listed) is not provisional


def test_the_leaderboard_drops_a_rating_when_its_time_away_runs_out(client, app):
    now = datetime.now(UTC)
    settled = _settled(app, "Ana", 30.0, now)
    until = provisional_from(2.0, now, 20)
    assert until is not None
    games = app.extensions["coins.games"]
    assert [item["player"]["id"] for item in client.get("/v1/leaderboard").json["items"]] == [settled]
    games.clock = lambda: until + timedelta(seconds=1)
    assert client.get("/v1/leaderboard").json["items"] == []
