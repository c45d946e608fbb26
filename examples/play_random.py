#!/usr/bin/env python3
"""Play a whole game of Coins against a Coins server: three seats, random cards, every trick printed.

Standard library only. Usage:

    python examples/play_random.py --base-url http://127.0.0.1:8000 --target-score 10 --seed 7

It creates a game with all three seats taken (so it holds every token), deals when a hand is
due, plays a random card from the hand of whoever's turn it is (Coins has no duty to follow
suit: any card you hold is legal), prints each trick as it completes and the final scores.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import urllib.error
import urllib.request
import uuid
from typing import Any

MAX_REQUESTS = 5_000  # a game to 100 points takes well under this; stops a runaway loop
RETRIES = 4  # a POST is tried at most 5 times, always with the same Idempotency-Key


class Problem(Exception):
    """An error answer: RFC 9457 problem details with a stable ``code``."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(f"{status} {body.get('code')}: {body.get('detail')}")
        self.status = status
        self.code = body.get("code")


class Coins:
    """Just enough of an HTTP client: JSON in, JSON out, problems raised."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.requests = 0

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        """One request. A POST carries an ``Idempotency-Key`` and is retried with the same key on a
        connection error, a 5xx or a 429 (after ``Retry-After``): the server applies it once."""
        self.requests += 1
        if self.requests > MAX_REQUESTS:
            raise SystemExit(f"gave up after {MAX_REQUESTS} requests")
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if method == "POST":
            headers["Idempotency-Key"] = str(uuid.uuid4())
        for attempt in range(RETRIES + 1):
            request = urllib.request.Request(self.base_url + path, data=data, headers=headers, method=method)
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    return json.load(response)
            except urllib.error.HTTPError as error:
                retriable = error.code >= 500 or error.code == 429
                if not retriable or attempt == RETRIES:
                    raise Problem(error.code, json.load(error)) from None
                wait = _retry_after(error.headers.get("Retry-After"), attempt)
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                if attempt == RETRIES:
                    raise
                wait = _retry_after(None, attempt)
            time.sleep(wait)
        raise AssertionError("unreachable")


def _retry_after(header: str | None, attempt: int) -> float:
    """The server's ``Retry-After`` (seconds), else an exponential backoff with jitter, at most 30 s."""
    if header and header.isdigit():
        return min(float(header), 30.0)
    return min(0.25 * 2**attempt, 30.0) * (0.5 + random.random() / 2)


def describe(trick: dict[str, Any], names: dict[int, str]) -> str:
    cards = ", ".join(f"{names[play['seat']]} {play['card']}" for play in trick["plays"])
    points = trick["points"]
    return (
        f"hand {trick['hand_number']} trick {trick['trick_number']:2}: {cards}"
        f" -> {names[trick['winner']]} takes {points} coin{'s' if points != 1 else ''}"
    )


def play(base_url: str, target_score: int, rng: random.Random, game_seed: str | None) -> int:
    coins = Coins(base_url)
    body: dict[str, Any] = {
        "target_score": target_score,
        "seats": [{"name": "Ana", "age": 41}, {"name": "Bo", "age": 35}, {"name": "Cy", "age": 29}],
    }
    if game_seed:
        body["seed"] = game_seed
    game = coins.call("POST", "/v1/games", body)
    game_id = game["id"]
    tokens = {credential["seat"]: credential["token"] for credential in game["credentials"]}
    names = {seat["seat"]: seat["name"] for seat in game["seats"]}
    print(f"game {game_id}: first to {target_score}, {names[game['dealer']]} deals first")

    while game["status"] != "finished":
        turn = game["turn"]
        if game["status"] == "waiting_for_deal":
            dealt = coins.call("POST", f"/v1/games/{game_id}/hands", token=tokens[turn])
            print(f"hand {dealt['hand_number']}: {names[dealt['dealer']]} deals, {names[dealt['leader']]} leads")
            game = dealt["game"]
            continue
        hand = coins.call("GET", f"/v1/games/{game_id}/hand", token=tokens[turn])
        card = rng.choice(hand["cards"])
        result = coins.call("POST", f"/v1/games/{game_id}/plays", {"card": card}, token=tokens[turn])
        if result["trick"]["winner"] is not None:
            print(describe(result["trick"], names))
        game = result["game"]

    scores = coins.call("GET", f"/v1/games/{game_id}/scores")
    print("final scores: " + ", ".join(f"{s['name']} {s['score']}" for s in scores["scores"]))
    print(f"winner: {names[scores['winner']]}")
    tricks, cursor = 0, None
    while True:  # the trick history, a page at a time
        page = coins.call("GET", f"/v1/games/{game_id}/tricks?limit=200" + (f"&cursor={cursor}" if cursor else ""))
        tricks += len(page["items"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    print(f"{tricks} tricks in {coins.requests} requests")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8000", help="the server (default %(default)s)")
    parser.add_argument("--target-score", type=int, default=10, help="points that win (default %(default)s)")
    parser.add_argument("--seed", type=int, help="seed for the random card choices")
    parser.add_argument("--game-seed", help="seed the game's deals too (a fully reproducible game)")
    args = parser.parse_args(argv)
    try:
        return play(args.base_url, args.target_score, random.Random(args.seed), args.game_seed)
    except Problem as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
