"""Rated games played through the API for the ratings' tests: players, a table, played to the end."""

from __future__ import annotations

import uuid
from typing import Any

from flask.testing import FlaskClient

from tests.support.players import Player, new_player


def rated_table(client: FlaskClient, bot: str = "random", *, target_score: int = 1) -> tuple[str, Player, Player]:
    """A rated game of two new players (seats 0 and 1) and a bot of ``bot`` (seat 2), started."""
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    created = client.post(
        "/v1/games",
        json={"seats": [{"player": "me"}, None, {"bot": bot}], "rated": True, "target_score": target_score},
        headers=ana.auth,
    )
    assert created.status_code == 201, created.json
    game_id = created.json["id"]
    joined = client.post(f"/v1/games/{game_id}/players", json={"player": "me"}, headers=bo.auth)
    assert joined.status_code == 201, joined.json
    return game_id, ana, bo


def play_out(
    client: FlaskClient, game_id: str, auth_by_seat: dict[int, dict[str, str]], *, keyed: bool = False
) -> dict[str, Any]:
    """Play the game to its end (the first card of the hand as each player's move: hints are off in
    rated games; the bots' moves made as the worker makes them); its final state. ``keyed``:
    every play and deal with an ``Idempotency-Key`` of its own (the last one's in ``last_key``)."""
    last: dict[str, Any] = {}
    games = client.application.extensions["coins.games"]
    for _ in range(600):
        state = client.get(f"/v1/games/{game_id}").json
        if state["status"] == "finished":
            return {**state, **last}
        headers = auth_by_seat.get(state["turn"])
        if headers is None:  # a bot's move: the worker's (the tests' worker, or here when the client has none)
            games.make_due_moves(game_id)
            continue
        if headers is not None and keyed:
            headers = {**headers, "Idempotency-Key": uuid.uuid4().hex}
            last = {"last_key": headers["Idempotency-Key"], "last_card": None, "last_seat": state["turn"]}
        if headers is not None and state["status"] == "playing":
            card = client.get(f"/v1/games/{game_id}/hand", headers=headers).json["cards"][0]
            played = client.post(f"/v1/games/{game_id}/plays", json={"card": card}, headers=headers)
            last["last_card"] = card
            assert played.status_code == 201, played.json
        elif headers is not None:
            assert client.post(f"/v1/games/{game_id}/hands", headers=headers).status_code == 201
    raise AssertionError("the game did not finish")


def rated_game_played(client: FlaskClient, bot: str = "random") -> tuple[str, Player, Player, dict[str, Any]]:
    """A rated game of two players and a bot, played to the end; its id, the players and its last state."""
    game_id, ana, bo = rated_table(client, bot)
    return game_id, ana, bo, play_out(client, game_id, {0: ana.auth, 1: bo.auth})
