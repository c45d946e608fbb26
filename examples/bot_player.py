#!/usr/bin/env python3
"""A bot player for Coins: keeps a player key, queues for quick play, plays game after game from its feed.

Standard library only, and seat_client.py beside it (its requests with retries and its stream follower). Usage:

    python examples/bot_player.py --base-url http://127.0.0.1:8000 --key-file ~/.coins-bot.key --games 3

The first run creates a player (``POST /v1/players``, named by ``--name``) and writes its key to
``--key-file``, created with mode 0600; later runs reuse the key (it acts for the player in every
game, like a password: keep the file private). The bot then follows its own player feed
(``GET /v1/players/me/events``, docs/players.md) and nothing else:

- ``player`` (first on every stream that does not resume): its games in progress; it acts in the
  ones that wait for it, and queues (``POST /v1/queue``) when it has none and no ticket;
- ``match_found`` / ``game_started``: a new table, printed;
- ``your_turn``: it deals, or reads its hand and plays a random card of it (any card held is legal);
- ``game_result``: its place, the scores and the rating change (``before -> after``, or
  "unrated"); after ``--games`` results it stops, else it queues again.

Every POST carries an ``Idempotency-Key``, kept across its retries (connection errors, 5xx, 429
after ``Retry-After``, ``409 idempotency_key_in_use``), so the server applies it once. A dropped
stream is resumed with ``Last-Event-ID`` (no event lost, none repeated) after a growing, bounded
pause. While a ticket waits, each heartbeat of the feed re-reads it: an expired ticket is
replaced, a matched one whose ``match_found`` was lost is joined all the same. Every loop is
bounded: ``--games``, ``--timeout`` seconds, and a count of requests.

With ``--webhook URL`` it follows no stream: it makes a webhook (``POST /v1/players/me/webhooks``)
pointing at ``URL``, the public https address where ``--listen`` (a local port, HTTPS with
``--tls-cert`` and ``--tls-key``, or plain HTTP behind a proxy that ends TLS) is reached, sleeps
until a signed delivery arrives, verifies it (webhook_receiver.py: the Standard Webhooks signature
with the secret it was shown once) and acts on it as on a feed event; a delivery that does not
verify is answered 401 and ignored. It reads its ticket every 25 seconds while one waits (that
keeps it alive), and deletes the webhook as it stops.
"""

from __future__ import annotations

import argparse
import http.client
import os
import queue
import random
import sys
import time
from pathlib import Path
from typing import Any

from seat_client import Problem, follow_events, open_events, request_json
from webhook_receiver import Receiver

MAX_REQUESTS = 100_000  # a game to 15 takes a few hundred of this bot's requests: stops a runaway loop
# Answers that only mean the game moved on before our request arrived (a stand-in played for
# us, the hand ended, an old your_turn): the feed's next events say what to do.
STALE = ("not_your_turn", "no_hand_in_progress", "hand_in_progress", "game_finished", "not_dealer")


class Player:
    """The HTTP side of one player: its key on every request, its retries, its feed's position."""

    def __init__(self, base_url: str, key: str | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.key = key
        self.requests = 0
        self.last_event_id: str | None = None  # the last event handled: a reconnect resumes after it
        self.opens = 0  # streams opened

    def headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self.key:
            headers["Authorization"] = f"Bearer {self.key}"
        return headers

    def call(self, method: str, path: str, body: Any = None) -> Any:
        """The JSON answer (None for a 204); a problem answer is raised once retrying cannot help."""
        self.requests += 1
        if self.requests > MAX_REQUESTS:
            raise SystemExit(f"gave up after {MAX_REQUESTS} requests")
        return request_json(method, self.base_url + path, self.headers(), body)

    def open_feed(self, timeout: float) -> http.client.HTTPResponse:
        """The player feed as a stream, resuming after ``last_event_id`` if there is one."""
        self.opens += 1
        return open_events(f"{self.base_url}/v1/players/me/events", self.headers(), self.last_event_id, timeout)


def load_key(player: Player, key_file: Path, name: str) -> str:
    """The key in ``key_file``; or a new player's, written there with mode 0600 (never printed)."""
    if key_file.exists():
        if key_file.stat().st_mode & 0o077:
            print(f"warning: {key_file} is readable by others (chmod 600 it)", file=sys.stderr)
        return key_file.read_text().strip()
    created = player.call("POST", "/v1/players", {"name": name})
    # O_EXCL: never overwrite a key another run wrote meanwhile; 0600 from the start, not chmod after.
    descriptor = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(created["key"] + "\n")
    print(f"created player {created['name']} ({created['id']}); key saved in {key_file}", flush=True)
    return str(created["key"])


class Bot:
    """What the bot knows: its games in progress, its waiting ticket, the results it has seen."""

    def __init__(self, player: Player, queue_body: dict[str, Any], games: int, rng: random.Random) -> None:
        self.player = player
        self.queue_body = queue_body
        self.wanted = games
        self.rng = rng
        self.active: set[str] = set()  # games in progress it sits in
        self.ticket: str | None = None  # its waiting ticket
        self.acted: dict[str, int] = {}  # per game, the version it last acted on
        self.results: list[dict[str, Any]] = []
        self.events = 0

    @property
    def done(self) -> bool:
        return len(self.results) >= self.wanted

    def queue(self) -> None:
        """Queue for a game, unless one is in progress, a ticket waits, or enough games were played."""
        if self.active or self.ticket or len(self.results) + len(self.active) >= self.wanted:
            return
        try:
            ticket = self.player.call("POST", "/v1/queue", self.queue_body)
        except Problem as problem:
            if problem.code != "already_queued":  # a ticket of an earlier run still waits: ours too
                raise
            print(f"already queued: {problem}", flush=True)
            self.ticket = "?"
            return
        self.ticket = ticket["id"]
        print(f"queued: ticket {ticket['id']} (first to {ticket['target_score']}, rated {ticket['rated']})", flush=True)

    def check_ticket(self) -> None:
        """On a heartbeat: a waiting ticket that expired is replaced; a matched one is a game."""
        if self.ticket is None or self.ticket == "?":
            return
        ticket = self.player.call("GET", f"/v1/queue/{self.ticket}")
        if ticket["status"] == "matched" and ticket["game"]:
            self.ticket = None
            self.active.add(ticket["game"])
        elif ticket["status"] in ("expired", "cancelled"):
            print(f"ticket {self.ticket} {ticket['status']}: queueing again", flush=True)
            self.ticket = None
            self.queue()

    def act(self, game: str, version: int, action: str) -> None:
        """Deal or play in ``game`` as of ``version``, once per version; stale refusals are ignored."""
        if self.acted.get(game, -1) >= version:
            return
        self.acted[game] = version
        try:
            if action == "deal":
                self.player.call("POST", f"/v1/games/{game}/hands")
                return
            hand = self.player.call("GET", f"/v1/games/{game}/hand")
            card = self.rng.choice(hand["cards"])
            result = self.player.call("POST", f"/v1/games/{game}/plays", {"card": card})
        except Problem as problem:
            if problem.code not in STALE:
                raise
            return
        trick = result["trick"]
        if trick["winner"] is not None and trick["winner"] == hand["seat"]:
            print(f"{game}: took trick {trick['trick_number']} of hand {trick['hand_number']} with {card}", flush=True)

    def handle(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if kind == "player":
            profile = event["player"]
            print(
                f"player {profile['name']}: rating {profile['rating']['value']}, {len(event['games'])} games in progress"
            )
            for game in event["games"]:
                self.active.add(game["id"])
                if game["your_turn"]:
                    self.act(game["id"], game["version"], "deal" if game["status"] == "waiting_for_deal" else "play")
        elif kind == "match_found":
            print(f"match found: game {event['game']}", flush=True)
            self.ticket = None
            self.active.add(event["game"])
        elif kind == "game_started":
            print(f"game {event['game']} started: seat {event['seat']}", flush=True)
            self.active.add(event["game"])
            self.ticket = None if self.ticket == "?" else self.ticket
        elif kind == "your_turn":
            self.active.add(event["game"])
            self.act(event["game"], event["version"], event["action"])
        elif kind == "game_result":
            self.active.discard(event["game"])
            self.acted.pop(event["game"], None)
            self.results.append(event)
            print(describe_result(event, len(self.results), self.wanted), flush=True)
        elif kind == "rematch_offered":
            print(f"rematch of {event['game']} offered by seat {event['seat']} (not taken)", flush=True)
        self.queue()


def describe_result(event: dict[str, Any], number: int, wanted: int) -> str:
    rating = event["rating"]
    if rating is None:
        change = "unrated"
    else:
        change = f"rating {rating['before']} -> {rating['after']} ({rating['after'] - rating['before']:+d})"
    scores = ", ".join(str(score) for score in event["scores"])
    return f"game {number}/{wanted} {event['game']} over: place {event['place']} (scores {scores}); {change}"


def follow(bot: Bot, backoff: float, deadline: float) -> bool:
    """Follow the feed, acting on it, until ``bot.done``; False at the deadline."""

    def on_event(event_id: str | None, event: dict[str, Any]) -> bool:
        bot.events += 1
        bot.handle(event)
        bot.player.last_event_id = event_id  # handled: a reconnect resumes after it
        return bot.done

    return follow_events(bot.player.open_feed, on_event, bot.check_ticket, backoff, deadline, "feed")


WEBHOOK_TYPES = ["your_turn", "match_found", "game_started", "game_result", "rematch_offered"]
TICKET_EVERY = 25.0  # seconds between reads of a waiting ticket (it expires after 30 unread)


def by_webhook(bot: Bot, url: str, listen: str, tls: tuple[str | None, str | None], deadline: float) -> bool:
    """Play from signed deliveries to a webhook at ``url`` (received on ``listen``), until
    ``bot.done``; False at the deadline. The webhook is deleted as it ends."""
    made = bot.player.call("POST", "/v1/players/me/webhooks", {"url": url, "types": WEBHOOK_TYPES})
    host, _, port = listen.rpartition(":")
    receiver = Receiver(made["secret"], host or "127.0.0.1", int(port), *tls)
    print(f"webhook {made['id']}: deliveries to {url}, received on port {receiver.port}", flush=True)
    try:
        bot.handle(bot.player.call("GET", "/v1/players/me/events?wait=0")["items"][0])  # the `player` state
        while not bot.done and time.monotonic() < deadline:
            try:
                event = receiver.events.get(timeout=min(TICKET_EVERY, max(deadline - time.monotonic(), 0.01)))
            except queue.Empty:  # no delivery for a while: keep a waiting ticket alive
                bot.check_ticket()
                continue
            bot.events += 1
            bot.handle(event)
        return bot.done
    finally:
        receiver.close()
        bot.player.call("DELETE", f"/v1/players/me/webhooks/{made['id']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8000", help="the server (default %(default)s)")
    parser.add_argument("--key-file", type=Path, required=True, help="the player's key: read, or created 0600")
    parser.add_argument("--name", default="Bot", help="the new player's name (default %(default)s)")
    parser.add_argument("--games", type=int, default=1, help="games to play, then stop (default %(default)s)")
    parser.add_argument("--target-score", type=int, default=15, help="the games' target (default %(default)s)")
    parser.add_argument("--unrated", action="store_true", help="queue for unrated games (default: rated)")
    parser.add_argument(
        "--bots-after", type=int, help="seconds after which bots may fill the table (default: the server's)"
    )
    parser.add_argument("--seed", type=int, help="seed for the random card choices")
    parser.add_argument(
        "--backoff", type=float, default=0.5, help="first pause before reconnecting (default %(default)s)"
    )
    parser.add_argument(
        "--timeout", type=float, default=3600, help="give up after this many seconds (default %(default)s)"
    )
    parser.add_argument("--webhook", help="play from signed deliveries to this public https URL, not from the feed")
    parser.add_argument("--listen", default="127.0.0.1:8443", help="--webhook: where to receive (default %(default)s)")
    parser.add_argument("--tls-cert", help="--webhook: the receiver's certificate (else plain HTTP behind a proxy)")
    parser.add_argument("--tls-key", help="--webhook: the certificate's private key")
    args = parser.parse_args(argv)
    queue_body: dict[str, Any] = {"target_score": args.target_score, "rated": not args.unrated}
    if args.bots_after is not None:
        queue_body["bots_after"] = args.bots_after
    player = Player(args.base_url)
    bot = Bot(player, queue_body, args.games, random.Random(args.seed))
    try:
        player.key = load_key(player, args.key_file.expanduser(), args.name)
        deadline = time.monotonic() + args.timeout
        if args.webhook:
            finished = by_webhook(bot, args.webhook, args.listen, (args.tls_cert, args.tls_key), deadline)
        else:
            finished = follow(bot, args.backoff, deadline)
    except (Problem, ConnectionError) as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    print(
        f"{len(bot.results)} games played; {bot.events} events read, {player.opens - 1} reconnects, {player.requests} requests"
    )
    if not finished:
        print(f"no end of {args.games} games within {args.timeout:.0f}s", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
