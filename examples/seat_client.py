#!/usr/bin/env python3
"""Play one seat of a Coins game, the way a script or a bot would: wait for your turn, then act.

Standard library only. Take a seat you already hold, or join an open one:

    python examples/seat_client.py --base-url http://127.0.0.1:8000 --game GAME_ID --token TOKEN
    python examples/seat_client.py --base-url http://127.0.0.1:8000 --game GAME_ID --join Cy

It follows the game's event feed (`GET /v1/games/{id}/events` as Server-Sent Events, see
docs/events.md) instead of polling: the server tells it of every change as it happens. The
token goes in the `Authorization` header, so the feed also brings this seat's private `hand`
events (its cards after each deal). When an event's state names this seat in `turn`, it
deals (the hand is due and this seat is the dealer) or plays a random card from its hand.
A dropped connection is resumed with `Last-Event-ID` (no event lost, none repeated), after
a growing, bounded pause, a bounded number of times in a row. It stops at `game_finished`.
Three copies, one per seat, play a whole game together.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from typing import Any

# The server sends an event or a comment line at least every 20 seconds: a stream silent for
# longer than this is a dead connection, not an idle game.
STREAM_SILENCE_SECONDS = 30.0
MAX_ATTEMPTS = 8  # connections in a row that bring no event before giving up
MAX_BACKOFF_SECONDS = 10.0
RETRIES = 4  # a POST is tried at most 5 times, always with the same Idempotency-Key
# Refusals that only mean the game moved on before our request arrived (or a stand-in acted
# for us): the next event tells us what to do.
STALE = ("not_your_turn", "no_hand_in_progress", "hand_in_progress")


class Problem(Exception):
    """An error answer: RFC 9457 problem details with a stable ``code``."""

    def __init__(self, status: int, body: dict[str, Any], retry_after: str | None = None) -> None:
        super().__init__(f"{status} {body.get('code')}: {body.get('detail')}")
        self.status = status
        self.code = body.get("code")
        self.retry_after = float(retry_after) if retry_after and retry_after.isdigit() else None


def _problem(error: urllib.error.HTTPError) -> Problem:
    try:
        body = json.load(error)
    except ValueError:  # not the service's answer (a proxy's page, say)
        body = {"code": None, "detail": error.reason}
    return Problem(error.code, body, error.headers.get("Retry-After"))


def read_events(lines: Iterator[bytes]) -> Iterator[tuple[str | None, str, dict[str, Any]] | None]:
    """(id, type, data) of each event of a Server-Sent Events body, as its blank line arrives, and
    None for each comment line (the server's heartbeat: the connection is alive, nothing happened).

    ``retry:`` is ignored (we pace our own reconnects); several ``data:`` lines of one event join
    with newlines.
    """
    event_id: str | None = None
    event_type = "message"
    data: list[str] = []
    for raw in lines:
        line = raw.decode("utf-8").rstrip("\r\n")
        if not line:
            if data:
                yield event_id, event_type, json.loads("\n".join(data))
            event_type, data = "message", []
            continue
        if line.startswith(":"):
            yield None
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            data.append(value)
        elif name == "event":
            event_type = value
        elif name == "id":
            event_id = value


def request_json(method: str, url: str, headers: dict[str, str], body: Any = None) -> Any:
    """The JSON answer (None when empty); a problem answer is raised. A POST carries an
    ``Idempotency-Key`` and is retried with it on a connection error, a 5xx, a 429 or a ``409
    idempotency_key_in_use`` (the first try still running), at most ``RETRIES`` times."""
    headers = dict(headers)
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if method == "POST":  # the same key on every retry: the server applies the request once
        headers["Idempotency-Key"] = str(uuid.uuid4())
    for attempt in range(RETRIES + 1):
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                raw = response.read()
                return json.loads(raw) if raw else None
        except urllib.error.HTTPError as error:
            problem = _problem(error)
            retriable = problem.status >= 500 or problem.status == 429 or problem.code == "idempotency_key_in_use"
            if not retriable or attempt == RETRIES:
                raise problem from None
            wait = problem.retry_after
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            if attempt == RETRIES:
                raise
            wait = None
        # the server's Retry-After, else an exponential backoff with jitter
        backoff = 0.25 * 2**attempt * (0.5 + random.random() / 2)
        time.sleep(min(wait if wait is not None else backoff, MAX_BACKOFF_SECONDS))
    raise AssertionError("unreachable")


def open_events(
    url: str, headers: dict[str, str], last_event_id: str | None, timeout: float
) -> http.client.HTTPResponse:
    """An event stream (``Accept: text/event-stream``), resuming after ``last_event_id`` if there is one."""
    headers = {**headers, "Accept": "text/event-stream"}
    if last_event_id is not None:
        headers["Last-Event-ID"] = last_event_id
    try:
        response: http.client.HTTPResponse = urllib.request.urlopen(
            urllib.request.Request(url, headers=headers), timeout=timeout
        )
    except urllib.error.HTTPError as error:
        raise _problem(error) from None
    return response


class Seat:
    """One seat's view of one game: its token, its cards, and where it is in the feed."""

    def __init__(self, base_url: str, game_id: str, token: str | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.game_id = game_id
        self.token = token
        self.seat: int | None = None
        self.last_event_id: str | None = None  # the last event handled: a reconnect resumes after it
        self.cards: list[str] | None = None  # this seat's cards in hand `cards_hand`, kept from the feed
        self.cards_hand = 0
        self.acted_on = -1  # the game version we last acted on ...
        self.reached = -1  # ... and the version our last action led to
        self.events = 0
        self.reconnects = 0

    def _headers(self, **extra: str) -> dict[str, str]:
        headers = {"Accept": "application/json", **extra}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    def call(self, method: str, path: str, body: Any = None) -> Any:
        """The JSON answer of a request on this game (see :func:`request_json`)."""
        return request_json(method, f"{self.base_url}/v1/games/{self.game_id}{path}", self._headers(), body)

    def join(self, name: str) -> None:
        joined = self.call("POST", "/players", {"name": name})
        self.token, self.seat = joined["token"], joined["seat"]
        print(f"{name} took seat {self.seat}; token {self.token}", flush=True)

    def open_stream(self, timeout: float) -> http.client.HTTPResponse:
        """The event stream, resuming after ``last_event_id`` if there is one."""
        return open_events(
            f"{self.base_url}/v1/games/{self.game_id}/events", self._headers(), self.last_event_id, timeout
        )

    def take(self, event: dict[str, Any]) -> None:
        """Keep this seat's cards from the feed: given with `game` and `hand`, spent by `card_played`."""
        kind = event["type"]
        if kind == "game" and event["hand"] is not None:
            self.cards, self.cards_hand = list(event["hand"]["cards"]), event["hand"]["hand_number"]
        elif kind == "hand":
            self.cards, self.cards_hand = list(event["cards"]), event["hand_number"]
        elif kind == "card_played" and event["seat"] == self.seat and self.cards and event["card"] in self.cards:
            self.cards.remove(event["card"])

    def maybe_act(self, game: dict[str, Any], rng: random.Random) -> None:
        """Deal or play if this state of the game waits for this seat, and only once per state."""
        if game["turn"] != self.seat or game["status"] not in ("waiting_for_deal", "playing"):
            return
        # Events from before our last action's effect are history (we acted on them already).
        if game["version"] <= self.acted_on or game["version"] < self.reached:
            return
        previous, self.acted_on = self.acted_on, game["version"]
        try:
            self.act(game, rng)
        except Problem as problem:
            if problem.code not in STALE:
                raise
        except OSError:  # the request may not have arrived: act on this event again after resuming
            self.acted_on = previous
            raise

    def act(self, game: dict[str, Any], rng: random.Random) -> None:
        if game["status"] == "waiting_for_deal":
            dealt = self.call("POST", "/hands")
            self.reached = dealt["game"]["version"]
            print(f"seat {self.seat}: dealt hand {dealt['hand_number']}", flush=True)
            return
        if not self.cards or self.cards_hand != game["hand_number"]:  # joined mid-hand, say
            hand = self.call("GET", "/hand")
            self.cards, self.cards_hand = list(hand["cards"]), hand["hand_number"]
        card = rng.choice(self.cards)
        result = self.call("POST", "/plays", {"card": card})
        self.reached = result["game"]["version"]
        trick = result["trick"]
        done = f"; seat {trick['winner']} takes {trick['points']}" if trick["winner"] is not None else ""
        print(f"seat {self.seat}: {card} (hand {trick['hand_number']} trick {trick['trick_number']}){done}", flush=True)


def follow_events(
    open_stream: Callable[[float], http.client.HTTPResponse],
    on_event: Callable[[str | None, dict[str, Any]], bool],
    on_heartbeat: Callable[[], None],
    backoff: float,
    deadline: float,
    label: str,
) -> bool:
    """Read streams from ``open_stream(timeout)``, handing each event to ``on_event(id, event)``
    until it returns True (then True); False at the deadline. A dropped stream is opened again
    (the opener resumes after the last event handled) after a growing, bounded pause, at most
    ``MAX_ATTEMPTS`` times in a row without an event."""
    failures = 0  # connections in a row that brought no event
    wait = 0.0
    while time.monotonic() + wait < deadline:
        time.sleep(wait)
        try:
            silence = min(STREAM_SILENCE_SECONDS, max(1.0, deadline - time.monotonic()))
            with open_stream(silence) as response:
                for item in read_events(response):
                    if time.monotonic() >= deadline:
                        return False
                    if item is None:  # a heartbeat: the connection is alive, nothing happened
                        on_heartbeat()
                        continue
                    failures = 0
                    event_id, _, event = item
                    if on_event(event_id, event):
                        return True
            reason = "the server closed the stream"  # a restart, say: resume
            retry_after = None
        except Problem as problem:
            if problem.status not in (429, 502, 503, 504):  # too_many_streams, database_unavailable: retry
                raise
            reason, retry_after = str(problem), problem.retry_after
        except (OSError, http.client.HTTPException) as error:  # refused, reset, silent too long
            reason, retry_after = f"{type(error).__name__}: {error}", None
        failures += 1
        if failures > MAX_ATTEMPTS:
            raise ConnectionError(f"no event after {MAX_ATTEMPTS} attempts ({reason})")
        # Exponential backoff with jitter (so that many clients dropped at once do not return
        # at once), never shorter than the server's Retry-After.
        wait = min(MAX_BACKOFF_SECONDS, backoff * 2 ** (failures - 1)) * random.uniform(0.5, 1.0)
        wait = max(wait, retry_after or 0.0)
        print(f"{label}: {reason}; resuming in {wait:.1f}s", file=sys.stderr)
    return False


def follow(seat: Seat, rng: random.Random, backoff: float, deadline: float) -> dict[str, Any] | None:
    """Follow the feed and act on it until the game is finished (its state), or None at the deadline."""
    finished: list[dict[str, Any]] = []

    def on_event(event_id: str | None, event: dict[str, Any]) -> bool:
        seat.events += 1
        seat.take(event)
        game: dict[str, Any] = event["game"]
        # The last event is `game_finished` (a game already over: its `game` event alone).
        if event["type"] == "game_finished" or (event["type"] == "game" and game["status"] == "finished"):
            finished.append(game)
            return True
        seat.maybe_act(game, rng)
        seat.last_event_id = event_id  # handled: a reconnect resumes after it
        return False

    opens: list[float] = []

    def opened(timeout: float) -> http.client.HTTPResponse:
        if opens:  # every stream after the first resumes a dropped one
            seat.reconnects += 1
        opens.append(timeout)
        return seat.open_stream(timeout)

    follow_events(opened, on_event, lambda: None, backoff, deadline, f"seat {seat.seat}")
    return finished[0] if finished else None


def play(seat: Seat, rng: random.Random, backoff: float, timeout_seconds: float) -> int:
    if seat.seat is None:
        seat.seat = seat.call("GET", "/hand")["seat"]  # tells a token which seat it holds
    game = follow(seat, rng, backoff, time.monotonic() + timeout_seconds)
    if game is None:
        print(f"seat {seat.seat}: no end of game within {timeout_seconds:.0f}s", file=sys.stderr)
        return 2
    scores = ", ".join(f"seat {s['seat']} {s['score']}" for s in game["seats"])
    print(f"seat {seat.seat}: game over, seat {game['winner']} wins ({scores})", flush=True)
    print(f"seat {seat.seat}: {seat.events} events read, {seat.reconnects} reconnects", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8000", help="the server (default %(default)s)")
    parser.add_argument("--game", required=True, help="the game's id")
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--token", help="the token of a seat you hold")
    who.add_argument("--join", metavar="NAME", help="take the first open seat under this name")
    parser.add_argument("--seed", type=int, help="seed for the random card choices")
    parser.add_argument(
        "--poll",
        type=float,
        default=0.5,
        help="seconds before reconnecting a dropped event stream; doubles with each failed attempt, "
        f"up to {MAX_BACKOFF_SECONDS:.0f} (default %(default)s)",
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
    except (Problem, OSError) as problem:  # OSError: urllib's URLError (refused, unknown host, timed out)
        whose = f"seat {seat.seat}" if seat.seat is not None else f"game {args.game}"  # a seat not known yet
        print(f"{whose}: error: {problem}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
