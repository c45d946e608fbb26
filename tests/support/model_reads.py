"""Reads of the service over HTTP, each checked against a :class:`GameModel` at the version it was made at.

A read may make moves the server owes (bots, auto-deals: a bounded number per request), so its
answer can be at a later version than the model has seen; the model first takes those moves
from the action log (:func:`sync_log`), then compares.
"""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from service.engine import PlayAction
from service.verify import verify

from .game_model import GameModel, Json, trick_json
from .working_client import follow, keep_up

PROBLEM = "application/problem+json"
MAX_READS = 200  # reads that play a bots-only game to its end: far fewer (24 moves a read)
UNCHECKED = ("id", "created_at", "updated_at")  # the model cannot know them; checked apart


def problem(response: TestResponse, status: int, code: str) -> None:
    """The response is the RFC 9457 problem ``code``, with ``status``."""
    assert response.status_code == status, (status, code, response.status_code, response.data)
    assert response.mimetype == PROBLEM, response.mimetype
    body = response.json
    assert body is not None and {"type", "title", "status", "detail", "code"} <= body.keys(), body
    assert (body["status"], body["code"]) == (status, code), body


def ok(response: TestResponse, status: int = 200) -> Any:
    assert response.status_code == status, (response.status_code, response.data)
    return response.json


def version_of(response: TestResponse) -> int:
    """The game's version in an ETag: ``"<id>.<version>"`` (a hand's adds ``.<seat>``)."""
    return int(response.headers["ETag"].strip('"').split(".")[1])


def auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token is not None else {}


def read_pages(client: FlaskClient, path: str, limit: int) -> tuple[list[Json], int]:
    """Every item of a paginated list, following ``next_cursor``, and the game's version as of
    the last page."""
    items: list[Json] = []
    cursor = None
    while True:
        response = client.get(path, query_string={"limit": limit, **({"cursor": cursor} if cursor else {})})
        page = ok(response)
        assert len(page["items"]) <= limit
        items += page["items"]
        cursor = page["next_cursor"]
        if cursor is None:
            return items, version_of(response)


# -- the action log, and catching up with the server's moves --------------------------------


def sync_log(client: FlaskClient, model: GameModel, *, limit: int = 200) -> None:
    """Read the whole action log (page by page) and check it against the model: the entries the
    model knows must be as it made them; the new ones are the server's moves, applied to it."""
    entries, version = read_pages(client, f"/v1/games/{model.id}/actions", limit)
    assert [entry["seq"] for entry in entries] == list(range(1, len(entries) + 1))
    for entry in entries[model.at(model.version).actions :]:
        model.server_move(entry)
    assert model.version == version, f"log at version {version}, the model at {model.version}"
    for entry in entries:
        shown = {name: value for name, value in entry.items() if name != "created_at"}
        assert shown == model.logged(entry["seq"]), (shown, model.logged(entry["seq"]))


def catch_up(client: FlaskClient, model: GameModel) -> Json:
    """Follow the game and read it until the server owes no move (a person's turn, or the end),
    checking every answer on the way; return the last state. The worker makes the moves, after each
    request (a game of bots alone only while followed)."""
    follow(client.application, [model.id])
    for _ in range(MAX_READS):
        keep_up(client.application)  # the worker's next pass
        sync_log(client, model)
        state = read_game(client, model)
        if state["version"] == model.version and not model.owes_move():
            return state
    raise AssertionError(f"game {model.id}: the server still owes moves after {MAX_READS} reads")


def check_game(client: FlaskClient, model: GameModel, state: Json) -> None:
    """``state`` (a game as some answer shows it) is the model's at its version."""
    assert state["id"] == model.id
    if state["version"] > model.version:
        sync_log(client, model)
    expected = model.at(state["version"]).game
    shown = {name: value for name, value in state.items() if name not in UNCHECKED}
    assert shown == expected, _difference(shown, expected)


def _difference(shown: Json, expected: Json) -> str:
    names = sorted(name for name in shown.keys() | expected.keys() if shown.get(name) != expected.get(name))
    return "; ".join(f"{name}: served {shown.get(name)!r}, model {expected.get(name)!r}" for name in names)


# -- reads ----------------------------------------------------------------------------------


def read_game(client: FlaskClient, model: GameModel) -> Json:
    response = client.get(f"/v1/games/{model.id}")
    state = ok(response)
    assert response.headers["ETag"] == f'"{model.id}.{state["version"]}"'
    check_game(client, model, state)
    return state  # type: ignore[no-any-return]


def read_unchanged(client: FlaskClient, model: GameModel) -> None:
    """A game the server owes nothing answers its own ETag with 304 Not Modified."""
    etag = f'"{model.id}.{model.version}"'
    response = client.get(f"/v1/games/{model.id}", headers={"If-None-Match": etag})
    assert response.status_code == 304 and response.headers["ETag"] == etag, response.status_code


def read_hands(client: FlaskClient, model: GameModel) -> None:
    """Each person reads their own cards: the model's hand for that seat. A spectator, or a seat
    that left, reads none."""
    for seat in model.people:
        response = client.get(f"/v1/games/{model.id}/hand", headers=auth(model.seats[seat].token))
        hand = ok(response)
        snapshot = model.at(_synced(client, model, version_of(response)))
        assert hand == {"seat": seat, "hand_number": snapshot.hand_number, "cards": list(snapshot.hands[seat])}
    problem(client.get(f"/v1/games/{model.id}/hand"), 401, "missing_token")
    for _seat, token in model.revoked[-1:]:
        problem(client.get(f"/v1/games/{model.id}/hand", headers=auth(token)), 401, "invalid_token")


def read_scores(client: FlaskClient, model: GameModel) -> None:
    response = client.get(f"/v1/games/{model.id}/scores")
    scores = ok(response)
    game = model.at(_synced(client, model, version_of(response))).game
    seats = [{"seat": s["seat"], "name": s["name"], "score": s["score"]} for s in game["seats"]]
    assert scores == {"target_score": model.target_score, "scores": seats, "winner": game["winner"]}


def read_tricks(client: FlaskClient, model: GameModel, limit: int) -> None:
    """Every completed trick, oldest first, over pages of ``limit``: the model's."""
    tricks, version = read_pages(client, f"/v1/games/{model.id}/tricks", limit)
    count = model.at(_synced(client, model, version)).tricks
    assert tricks == [trick_json(trick) for trick in model.tricks[:count]]


def read_record(client: FlaskClient, model: GameModel) -> None:
    """The record holds the model's deals, plays and outcome, each hand's seed once it is over,
    and passes coins-verify on its own."""
    response = client.get(f"/v1/games/{model.id}/record")
    record = ok(response)
    snapshot = model.at(_synced(client, model, version_of(response)))
    game = snapshot.game
    assert (record["status"], record["winner"]) == (game["status"], game["winner"])
    assert record["scores"] == [seat["score"] for seat in game["seats"]]
    hands = record["hands"]
    assert [hand["commitment"] for hand in hands] == model.commitments[: game["hand_number"]]
    over = game["hand_number"] - (1 if game["status"] == "playing" else 0)
    revealed = [(hand["over"], "seed" in hand) for hand in hands]
    assert revealed == [(number <= over, number <= over) for number in range(1, len(hands) + 1)]
    plays = [(play["seat"], play["card"]) for hand in hands for play in hand["plays"]]
    assert plays == _plays(model, snapshot.actions)
    if model.game is not None:
        verify(record)


def read_events(client: FlaskClient, model: GameModel, seat: int | None) -> None:
    """The feed as a long poll (``wait=0``), as a spectator or as ``seat``: the ``game`` event is
    the model's state (with the seat's own hand); then every event from the first, in order, none
    missing, the model's own (private ones only for the reader's seat), each with the model's state
    at its version and the cards as the model played and dealt them."""
    headers = {"Accept": "application/json", **auth(model.seats[seat].token if seat is not None else None)}
    start = ok(client.get(f"/v1/games/{model.id}/events?wait=0", headers=headers))
    first = start["items"][0]
    assert first["type"] == "game" and start["last_id"] == start["items"][-1]["id"]
    check_game(client, model, first["game"])
    snapshot = model.at(first["version"])
    assert first["id"] == snapshot.events
    own = {"seat": seat, "hand_number": snapshot.hand_number, "cards": list(snapshot.hands[seat or 0])}
    assert first["hand"] == (own if seat is not None and snapshot.game["status"] == "playing" else None)
    page = ok(client.get(f"/v1/games/{model.id}/events?after=0&wait=0", headers=headers))
    served = [(event["id"], event["version"], event["type"]) for event in page["items"]]
    feed = [(number, version, kind) for number, (version, kind, to) in enumerate(model.events, 1) if to in (None, seat)]
    assert served == [event for event in feed if event[0] <= page["last_id"]]
    for event in page["items"]:
        check_game(client, model, event["game"])
        if event["type"] == "hand":
            assert (event["seat"], event["cards"]) == (seat, list(model.at(event["version"]).hands[seat or 0]))
    played = [(event["seat"], event["card"]) for event in page["items"] if event["type"] == "card_played"]
    assert played == _plays(model, model.at(model.version).actions)[: len(played)]


def _synced(client: FlaskClient, model: GameModel, version: int) -> int:
    if version > model.version:
        sync_log(client, model)
    return version


def _plays(model: GameModel, actions: int) -> list[tuple[int, str]]:
    """The seat and card of every play among the game's first ``actions``."""
    log = model.game.log[:actions] if model.game is not None else ()
    return [(action.seat, action.card.code) for action in log if isinstance(action, PlayAction)]
