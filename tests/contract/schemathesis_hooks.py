"""Schemathesis hooks for .ci/contract.sh: games with people in them, each seat's real token, a player's key.

Loaded with ``SCHEMATHESIS_HOOKS=tests.contract.schemathesis_hooks``. Left alone, the fuzzer
almost never creates a game of three people (seats come out open or bots), so no hand is
ever dealt by a token. A few nudges:

- a createGame body without ``seats`` sometimes gets three people;
- every 201 of createGame and joinGame is remembered, and a request to an operation that
  needs a token carries the token of the seat it concerns (the seat in its path, else the
  seat whose turn it is). Requests to games it has not seen keep whatever the fuzzer
  generated, and the checks still see those 401s;
- a valid ``Idempotency-Key`` becomes a fresh random one, as a client makes a new key for
  each new request: the few strings the fuzzer generates would otherwise name other requests'
  keys, which is ``422 idempotency_key_reused`` by design. Invalid keys stay as generated;
- the operations that need a player's key (:data:`PLAYER_OPERATIONS`: the player's own profile,
  feed, webhooks, push subscriptions, queue tickets, a challenge's decline) carry a real one, three
  requests in four (the fourth keeps what the fuzzer generated, so the 401s stay tested): without
  it every one of them answered 401 and the logic behind them was never fuzzed. The player is
  created from an address of its own (:data:`PLAYER_ADDRESSES`), not the fuzzer's, whose
  createPlayer requests use up 127.0.0.1's allowance; a key the fuzzer replaced is followed, and a
  player it deleted is made again.
"""

from __future__ import annotations

import http.client
import itertools
import json
import os
import urllib.parse
import urllib.request
import uuid
from typing import Any

import schemathesis
from hypothesis import strategies as st

BASE_URL = os.environ.get("COINS_CONTRACT_URL", "http://127.0.0.1:8000")
SEAT_OPERATIONS = ["dealHand", "getHand", "playCard", "getHint", "leaveGame"]
TOKENS: dict[str, dict[int, str]] = {}  # game id -> seat -> token


PEOPLE = [{"name": "Ana", "age": 41}, {"name": "Bo", "age": 35}, {"name": "Cy", "age": 29}]

PLAYER_OPERATIONS = [
    "getMyPlayer", "updateMyPlayer", "deleteMyPlayer", "replacePlayerKey", "getPlayerEvents",
    "listWebhooks", "createWebhook", "deleteWebhook", "createPushSubscription", "deletePushSubscription",
    "enterQueue", "getTicket", "cancelTicket", "declineChallenge",
]  # fmt: skip
# createPlayer allows 10 a minute per address: the players these hooks make come from addresses of their own
PLAYER_ADDRESSES = itertools.cycle([f"127.0.0.{host}" for host in range(2, 10)])
KEYED_EVERY = 4  # of every KEYED_EVERY requests to PLAYER_OPERATIONS, all but the last carry the key
PLAYER: dict[str, str] = {}  # "key": the current player's key, while it has one
_requests = itertools.count()


def _new_player_key() -> str | None:
    """A new player's key, created from the next of :data:`PLAYER_ADDRESSES`; None if it was refused."""
    url = urllib.parse.urlsplit(BASE_URL)
    connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=10,
                                            source_address=(next(PLAYER_ADDRESSES), 0))  # fmt: skip
    try:
        body = json.dumps({"name": "Fuzz"})
        connection.request("POST", "/v1/players", body, {"Content-Type": "application/json"})
        answer = connection.getresponse()
        if answer.status != 201:
            return None
        key: str = json.loads(answer.read())["key"]
        return key
    except OSError:
        return None
    finally:
        connection.close()


@schemathesis.hook
def flatmap_body(context: Any, body: Any) -> Any:
    operation = context.operation
    creating = operation is not None and (operation.method.upper(), operation.path) == ("POST", "/v1/games")
    if not creating or not isinstance(body, dict) or "seats" in body:
        return st.just(body)
    return st.sampled_from([body, {**body, "seats": PEOPLE}])


@schemathesis.hook
def after_call(context: Any, case: Any, response: Any) -> None:
    route = (case.method.upper(), case.operation.path)
    # The key replacePlayerKey answers is the player's now (when it was this player's); after deleteMyPlayer it has none.
    ours = "key" in PLAYER and (case.headers or {}).get("Authorization") == f"Bearer {PLAYER['key']}"
    if ours and route == ("POST", "/v1/players/me/key") and response.status_code == 200:
        PLAYER["key"] = response.json()["key"]
    elif ours and route == ("DELETE", "/v1/players/me") and response.status_code == 204:
        del PLAYER["key"]
    if response.status_code != 201:
        return
    if route == ("POST", "/v1/games"):
        body = response.json()
        TOKENS[body["id"]] = {credential["seat"]: credential["token"] for credential in body["credentials"]}
    elif route == ("POST", "/v1/games/{game_id}/players"):
        body = response.json()
        TOKENS.setdefault(body["game"]["id"], {})[body["seat"]] = body["token"]


@schemathesis.hook
def before_call(context: Any, case: Any, **kwargs: Any) -> None:
    """Every phase's requests, the coverage phase's too (it applies no map_* hook)."""
    key = (case.headers or {}).get("Idempotency-Key")
    if isinstance(key, str) and 1 <= len(key) <= 255 and key.isascii() and key.isprintable():
        case.headers = {**case.headers, "Idempotency-Key": str(uuid.uuid4())}


def _turn(game_id: str) -> int | None:
    with urllib.request.urlopen(f"{BASE_URL}/v1/games/{game_id}", timeout=10) as answer:
        turn: int | None = json.load(answer)["turn"]
        return turn


class _Bearer:
    """Sends what ``get`` answers as the request's bearer credential."""

    def set(self, case: Any, data: str, ctx: Any) -> None:
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


@schemathesis.auth(refresh_interval=None).apply_to(operation_id=SEAT_OPERATIONS)
class SeatToken(_Bearer):
    def get(self, case: Any, ctx: Any) -> str | None:
        game_id = (case.path_parameters or {}).get("game_id")
        tokens = TOKENS.get(game_id) if isinstance(game_id, str) else None
        if not tokens:
            return None
        seat = case.path_parameters.get("seat")
        if not isinstance(seat, int) or seat not in tokens:
            try:
                seat = _turn(game_id)  # type: ignore[arg-type]
            except OSError:
                return None
        return tokens.get(seat) if seat is not None else next(iter(tokens.values()))


@schemathesis.auth(refresh_interval=None).apply_to(operation_id=PLAYER_OPERATIONS)
class PlayerKey(_Bearer):
    def get(self, case: Any, ctx: Any) -> str | None:
        if next(_requests) % KEYED_EVERY == KEYED_EVERY - 1:
            return None  # this one keeps the fuzzer's own Authorization (or none)
        if "key" not in PLAYER:
            key = _new_player_key()
            if key is None:
                return None
            PLAYER["key"] = key
        return PLAYER["key"]
