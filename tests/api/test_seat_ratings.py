"""Ratings on the table (contract 1.3): a rated game's seats carry their players' ratings as the game
began, and once the result is applied each player's change (before, after), the same values the
profiles and the players' ``game_result`` show; unrated and void games carry neither."""

from __future__ import annotations

import time

from service.games.ids import BOT_PLAYER_IDS
from tests.support.players import new_player
from tests.support.rated_games import play_out, rated_table

NEW = {"value": 1500, "provisional": True}


def _game(client, game_id, **headers):
    response = client.get(f"/v1/games/{game_id}", headers=headers)
    assert response.status_code in (200, 304), response.json
    return response


def _applied(client, game_id):
    """The finished game once every seat shows its change (applied within a second of the end)."""
    for _ in range(40):
        state = _game(client, game_id).json
        if all(seat["rating_change"] is not None for seat in state["seats"]):
            return state
        time.sleep(0.05)
    raise AssertionError(f"the rating changes did not show: {state['seats']}")


def test_a_rated_games_seats_carry_the_ratings_it_began_with(client):
    game_id, _ana, _bo = rated_table(client)
    state = _game(client, game_id).json
    assert [seat["rating"] for seat in state["seats"]] == [NEW, NEW, NEW]
    assert [seat["rating_change"] for seat in state["seats"]] == [None, None, None]


def test_a_waiting_rated_games_seats_have_no_rating_yet(client):
    ana = new_player(client, "Ana")
    created = client.post(
        "/v1/games", json={"seats": [{"player": "me"}, None, {"bot": "basic"}], "rated": True}, headers=ana.auth
    )
    assert created.status_code == 201
    assert [seat["rating"] for seat in created.json["seats"]] == [None, None, None]


def test_the_finished_game_shows_each_players_change_as_the_profiles_and_feeds_do(client):
    game_id, ana, bo = rated_table(client, target_score=5)
    play_out(client, game_id, {0: ana.auth, 1: bo.auth})
    state = _applied(client, game_id)
    players = [ana.id, bo.id, BOT_PLAYER_IDS["random"]]
    for seat, player in zip(state["seats"], players, strict=True):
        assert seat["rating"] == NEW  # as the game began, not as it stands now
        profile = client.get(f"/v1/players/{player}").json
        assert seat["rating_change"] == {"before": 1500, "after": profile["rating"]["value"]}
    winner = state["seats"][state["winner"]]
    assert winner["rating_change"]["after"] > winner["rating_change"]["before"]
    results = [
        event for event in client.get("/v1/players/me/events?after=0", headers=ana.auth).json["items"]
        if event["type"] == "game_result"
    ]  # fmt: skip
    assert results[0]["rating"] == state["seats"][0]["rating_change"]
    # The list and a stream's first event say the same.
    listed = client.get("/v1/games?status=finished").json["items"]
    assert next(game for game in listed if game["id"] == game_id)["seats"] == state["seats"]


def test_the_changes_have_an_entity_tag_of_their_own(client):
    """The changes come after the game's last version: a client holding the finished game's tag is
    told the game changed once they show, and gets 304 with the new tag."""
    game_id, ana, bo = rated_table(client, target_score=5)
    final = play_out(client, game_id, {0: ana.auth, 1: bo.auth})
    _applied(client, game_id)
    response = _game(client, game_id, **{"If-None-Match": f'"{game_id}.{final["version"]}"'})
    assert response.status_code == 200
    assert response.headers["ETag"] == f'"{game_id}.{final["version"]}.3"'
    assert _game(client, game_id, **{"If-None-Match": response.headers["ETag"]}).status_code == 304


def test_the_next_table_shows_the_ratings_after_the_last_game(client):
    game_id, ana, bo = rated_table(client, target_score=5)
    play_out(client, game_id, {0: ana.auth, 1: bo.auth})
    changes = [seat["rating_change"]["after"] for seat in _applied(client, game_id)["seats"]]
    created = client.post(
        "/v1/games",
        json={"seats": [{"player": "me"}, None, {"bot": "random"}], "rated": True},
        headers=ana.auth,
    )
    joined = client.post(f"/v1/games/{created.json['id']}/players", json={"player": "me"}, headers=bo.auth)
    assert joined.status_code == 201
    seats = _game(client, created.json["id"]).json["seats"]
    assert [seat["rating"]["value"] for seat in seats] == changes
    assert all(seat["rating"]["provisional"] for seat in seats)  # one rated game: still provisional


def test_unrated_games_carry_no_ratings(client):
    ana = new_player(client, "Ana")
    created = client.post(
        "/v1/games", json={"seats": [{"player": "me"}, {"bot": "random"}, {"bot": "basic"}]}, headers=ana.auth
    )
    assert created.status_code == 201
    seats = _game(client, created.json["id"]).json["seats"]
    assert [(seat["rating"], seat["rating_change"]) for seat in seats] == [(None, None)] * 3


def test_a_void_game_shows_no_change(client):
    game_id, ana, bo = rated_table(client, target_score=5)
    left = client.post(f"/v1/games/{game_id}/players/1/leave", headers=bo.auth)
    assert left.status_code == 200 and left.json["void"] is True
    final = play_out(client, game_id, {0: ana.auth})
    assert final["void"] is True
    assert [seat["rating"] for seat in final["seats"]] == [NEW, NEW, NEW]
    assert [seat["rating_change"] for seat in final["seats"]] == [None, None, None]


def test_a_rematch_begins_from_the_ratings_the_last_game_left(client):
    game_id, ana, bo = rated_table(client, target_score=5)
    play_out(client, game_id, {0: ana.auth, 1: bo.auth})
    after = [seat["rating_change"]["after"] for seat in _applied(client, game_id)["seats"]]
    rematch = client.post(f"/v1/games/{game_id}/rematch", headers=ana.auth)
    assert rematch.status_code in (200, 201), rematch.json
    assert client.post(f"/v1/games/{game_id}/rematch", headers=bo.auth).status_code == 200  # dealt: rated from now
    seats = _game(client, rematch.json["game"]["id"]).json["seats"]
    assert [seat["rating"]["value"] for seat in seats] == after
