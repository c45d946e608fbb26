#!/usr/bin/env python3
"""Play one seat of a Coins game, the way a script or a bot would: wait for your turn, then act.

Standard library only. Take a seat you already hold, or join an open one:

    python examples/seat_client.py --base-url http://127.0.0.1:8000 --game GAME_ID --token TOKEN
    python examples/seat_client.py --base-url http://127.0.0.1:8000 --game GAME_ID --join Cy

It polls the game with `If-None-Match`: while nothing has changed the server answers
`304 Not Modified` with no body, so waiting is cheap. When the game names this seat in
`turn`, it deals (if the hand is due and this seat is the dealer) or plays a random card
from its hand, sending `If-Match` so a stale view of the game is refused (412) rather than
acted on. Three copies, one per seat, play a whole game together.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import urllib.error
import urllib.request
from typing import Any


class Problem(Exception):
    """An error answer: RFC 9457 problem details with a stable ``code``."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(f"{status} {body.get('code')}: {body.get('detail')}")
        self.status = status
        self.code = body.get("code")


class Seat:
    """One seat's view of one game: its token, and the game's last ETag."""

    def __init__(self, base_url: str, game_id: str, token: str | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.game_id = game_id
        self.token = token
        self.etag: str | None = None
        self.seat: int | None = None
        self.not_modified = 0  # polls answered 304

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[str, Any]:
        """(ETag, JSON body or None for 304); a problem answer is raised."""
        all_headers = {"Accept": "application/json", **(headers or {})}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            all_headers["Content-Type"] = "application/json"
        if self.token:
            all_headers["Authorization"] = f"Bearer {self.token}"
        url = f"{self.base_url}/v1/games/{self.game_id}{path}"
        request = urllib.request.Request(url, data=data, headers=all_headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.headers.get("ETag", ""), json.load(response)
        except urllib.error.HTTPError as error:
            if error.code == 304:
                return error.headers.get("ETag", ""), None
            raise Problem(error.code, json.load(error)) from None

    def join(self, name: str) -> None:
        _, joined = self.call("POST", "/players", {"name": name})
        self.token, self.seat = joined["token"], joined["seat"]
        print(f"{name} took seat {self.seat}; token {self.token}", flush=True)

    def read_game(self) -> dict[str, Any] | None:
        """The game if it changed since the last read, else None (a 304)."""
        etag, game = self.call("GET", "", headers={"If-None-Match": self.etag} if self.etag else None)
        # Only what we have read counts: remembering the tag of our own play's answer would
        # make the next poll a 304 even when it is our turn again (we won the trick and lead).
        self.etag = etag or None
        return game  # type: ignore[no-any-return]

    def act(self, game: dict[str, Any], rng: random.Random) -> None:
        guard = {"If-Match": self.etag} if self.etag else None
        if game["status"] == "waiting_for_deal":
            _, dealt = self.call("POST", "/hands", headers=guard)
            print(f"seat {self.seat}: dealt hand {dealt['hand_number']}", flush=True)
            return
        _, hand = self.call("GET", "/hand")
        card = rng.choice(hand["cards"])
        _, result = self.call("POST", "/plays", {"card": card}, headers=guard)
        trick = result["trick"]
        done = f"; seat {trick['winner']} takes {trick['points']}" if trick["winner"] is not None else ""
        print(f"seat {self.seat}: {card} (hand {trick['hand_number']} trick {trick['trick_number']}){done}", flush=True)


def play(seat: Seat, rng: random.Random, poll_seconds: float, timeout_seconds: float) -> int:
    if seat.seat is None:
        _, hand = seat.call("GET", "/hand")  # tells a token which seat it holds
        seat.seat = hand["seat"]
    deadline = time.monotonic() + timeout_seconds
    game: dict[str, Any] | None = None
    while time.monotonic() < deadline:
        fresh = seat.read_game()
        if fresh is None:  # 304: nobody has moved; wait a little before asking again
            seat.not_modified += 1
            time.sleep(poll_seconds)
            continue
        game = fresh
        if game["status"] == "finished":
            scores = ", ".join(f"seat {s['seat']} {s['score']}" for s in game["seats"])
            print(f"seat {seat.seat}: game over, seat {game['winner']} wins ({scores})", flush=True)
            print(f"seat {seat.seat}: {seat.not_modified} polls answered 304 Not Modified", flush=True)
            return 0
        if game["turn"] != seat.seat:
            continue
        try:
            seat.act(game, rng)
        except Problem as problem:
            # Someone moved between our read and our action (412), or a bot / a timeout
            # stand-in acted for us: read the game again and decide afresh.
            if problem.code not in ("precondition_failed", "not_your_turn", "no_hand_in_progress", "hand_in_progress"):
                raise
    print(f"seat {seat.seat}: no end of game within {timeout_seconds:.0f}s", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8000", help="the server (default %(default)s)")
    parser.add_argument("--game", required=True, help="the game's id")
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--token", help="the token of a seat you hold")
    who.add_argument("--join", metavar="NAME", help="take the first open seat under this name")
    parser.add_argument("--seed", type=int, help="seed for the random card choices")
    parser.add_argument(
        "--poll", type=float, default=0.2, help="seconds between polls while waiting (default %(default)s)"
    )
    parser.add_argument(
        "--timeout", type=float, default=600, help="give up after this many seconds (default %(default)s)"
    )
    args = parser.parse_args(argv)
    seat = Seat(args.base_url, args.game, args.token)
    try:
        if args.join:
            seat.join(args.join)
        return play(seat, random.Random(args.seed), args.poll, args.timeout)
    except Problem as problem:
        print(f"seat {seat.seat}: error: {problem}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
