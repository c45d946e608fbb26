"""Games that make every kind of event, through the API: for the tests of the events' stored form."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from flask.testing import FlaskClient

#: The types of event every call of :func:`play_every_kind_of_event` stores (all but ``game``,
#: which is made when read, never stored).
STORED_TYPES = {
    "seat_taken", "seat_left", "hand_dealt", "hand", "card_played", "trick_won", "hand_ended", "game_finished",
    "rematch_created", "game_cancelled",
}  # fmt: skip
CAUSES = {"player", "bot", "auto", "timeout"}


class Clock:
    """A clock the test moves by hand (a ``GameService``'s)."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _created(client: FlaskClient, **body: Any) -> tuple[str, dict[int, str]]:
    response = client.post("/v1/games", json=body)
    assert response.status_code == 201, response.json
    return response.json["id"], {c["seat"]: c["token"] for c in response.json["credentials"]}


def _play_to_the_end(client: FlaskClient, game_id: str, tokens: dict[int, str]) -> None:
    """The persons deal and play their first card whenever it is their turn, and the worker makes the
    bots' moves (the tests' worker, or here when the client has none), until the game is over."""
    games = client.application.extensions["coins.games"]
    for _ in range(400):
        state = client.get(f"/v1/games/{game_id}").json
        if state["status"] == "finished":
            return
        token = tokens.get(state["turn"])
        if token is None:  # a bot's move: the worker's
            games.make_due_moves(game_id)
            continue
        if state["status"] == "waiting_for_deal":
            assert client.post(f"/v1/games/{game_id}/hands", headers=_bearer(token)).status_code == 201
        else:
            card = client.get(f"/v1/games/{game_id}/hand", headers=_bearer(token)).json["cards"][0]
            played = client.post(f"/v1/games/{game_id}/plays", json={"card": card}, headers=_bearer(token))
            assert played.status_code == 201, played.json
    raise AssertionError(f"game {game_id} did not finish")


def play_every_kind_of_event(client: FlaskClient, clock: Clock, *, cancelled: bool = True) -> list[str]:
    """Play games that store every type of event (:data:`STORED_TYPES`) and every cause of a move,
    with names outside ASCII; ``clock`` is the app's ``GameService.clock``. Their ids. Without
    ``cancelled``, no challenge (a database before players): every type but ``game_cancelled``."""
    # Seats taken and left before the start (open again), a person's turn timed out (a stand-in),
    # bots, the end, a rematch.
    game_id, tokens = _created(
        client, seats=[{"name": "Zoë", "age": 41}, None, {"bot": "basic"}], seed="every-event", target_score=3,
        turn_timeout_seconds=30,
    )  # fmt: skip
    left = client.post(f"/v1/games/{game_id}/players/0/leave", json={}, headers=_bearer(tokens.pop(0)))
    assert left.status_code == 200, left.json  # before the start: the seat is open again
    for name, age in (("Bő", 35), ("Cy 🂡", 29)):
        joined = client.post(f"/v1/games/{game_id}/players", json={"name": name, "age": age}).json
        assert "token" in joined, joined
        tokens[joined["seat"]] = joined["token"]
    state = client.get(f"/v1/games/{game_id}").json
    if state["status"] == "waiting_for_deal" and state["dealer"] in tokens:  # a person deals
        assert client.post(f"/v1/games/{game_id}/hands", headers=_bearer(tokens[state["dealer"]])).status_code == 201
    elif state["status"] == "waiting_for_deal":  # the bot deals: the worker's move (none in the client, maybe)
        assert client.application.extensions["coins.games"].make_due_moves(game_id)
    clock.now += timedelta(seconds=31)  # whoever is to play lets the time pass: a stand-in plays,
    assert client.application.extensions["coins.games"].make_due_moves(game_id)  # the worker's move for them
    _play_to_the_end(client, game_id, tokens)
    rematch = client.post(f"/v1/games/{game_id}/rematch", headers=_bearer(tokens[0]))
    assert rematch.status_code == 201, rematch.json

    # Auto-deals (Ana, the oldest, deals first), and a person who leaves a game in play to a bot.
    other_id, other_tokens = _created(
        client, seats=[{"name": "Ana", "age": 41}, {"name": "Bo", "age": 35}, {"name": "Cy", "age": 9}], seed="auto",
        target_score=1, auto_deal=True,
    )  # fmt: skip
    left = client.post(
        f"/v1/games/{other_id}/players/1/leave", json={"bot": "expert"}, headers=_bearer(other_tokens[1])
    )
    assert left.status_code == 200, left.json
    _play_to_the_end(client, other_id, {0: other_tokens[0], 2: other_tokens[2]})

    if not cancelled:
        return [game_id, rematch.json["game"]["id"], other_id]
    # A challenge, declined: the game is cancelled.
    keys = [client.post("/v1/players", json={"name": name}).json for name in ("Éva", "Dao")]
    seats = [{"player": "me"}, {"player": keys[1]["id"]}, {"bot": "basic"}]
    challenged = client.post("/v1/games", json={"seats": seats}, headers=_bearer(keys[0]["key"]))
    assert challenged.status_code == 201, challenged.json
    cancelled_id = challenged.json["id"]
    declined = client.delete(f"/v1/games/{cancelled_id}/players/me", headers=_bearer(keys[1]["key"]))
    assert declined.status_code == 204, declined.json
    return [game_id, rematch.json["game"]["id"], other_id, cancelled_id]
