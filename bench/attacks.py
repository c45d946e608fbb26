"""The attacks of issue 25 from one address, against the service as deployed: what each gets now.

Serves ``gunicorn -c gunicorn.conf.py wsgi:app`` (the web role as deployed, its limits on), with
``coins-worker`` beside it, on a fresh SQLite database on 127.0.0.1, and attacks it from 127.0.0.2, .3 and .4 (one address an attack, so
that their limits stay apart), each attack for ``--seconds``. The bots' pace is off (``BOT_PACE_MS``
and ``TRICK_PAUSE_MS`` 0: the worker deals and moves the bots as soon as it can): what is measured is
what the defences allow, not how fast the bots are made to play:

- ``rematches``: a one-person game against two random bots to 1 point, played to its end, then
  ``rematchGame`` again and again, each new game played to its end too: the games it makes;
- ``bots-only``: ``createGame`` with three expert bots, as fast as answered: the games it makes;
- ``unauthenticated``: POSTs with an ``Idempotency-Key`` and a bogus token (deal, rematch, play) and
  POSTs to a game that does not exist: the rows they leave in ``idempotency_keys`` and ``rate_limits``.

With ``--farming``, the rating farm of issue 31 instead, each variant on a fresh server: one address
makes three players, a "farmer" and two throw-away accounts; the farmer gets rated games to 1 point
with the two (``create``: createGame with two open seats, which the two join with their keys;
``queue``: the three queue for quick play at once, ``bots_after`` null), and the two ``leave`` at
once or play at ``random`` (the farmer plays a greedy card: a trick with a coin taken when it can
be, no coin given away), from one address (127.0.0.2) or from three (127.0.0.2, .3, .4), ``--games``
times. It reports the farmer's rating before and after, the games it won, the accounts' ratings and
whether any of them reached the leaderboard, ranked or rising. The quick-play variants serve with
``QUEUE_MATCH_SECONDS=5`` (any three tickets match after 5 s, not 60): that only shortens the waits
of a farmer whose rating has moved away from the accounts', not what a game does to the ratings.

The issue measured the same attacks before the fixes (2026-12-01): 717 rematch games in 30 s, 30
bot-only games a minute, 687 stored keys a second on SQLite. Streams and records have their own
scripts (``bench.stream_shares``, ``bench.record_cache``)::

    .venv/bin/python -m bench.attacks [--seconds 30]
    .venv/bin/python -m bench.attacks --farming [--games 90] [--via create,queue] [--how leave,random] [--addresses 1,3]

Every request goes to 127.0.0.1 from 127.0.0.2 to .4; every loop is bounded in count and time. A
request on a keep-alive connection the server closed while it was idle is sent once more on a new
connection, so that only what the server answers is counted. The last line is ``attacks=<json>``:
the three attacks' figures or, with ``--farming``, each variant's (each also printed on a line of its
own as it ends).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import math
import os
import random
import re
import sqlite3
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.http_client import worker_up
from service.engine import parse_card, trick_winner
from tests.support.server import free_port, serve, worker_beside

ROOT = Path(__file__).resolve().parents[1]
MAX_REQUESTS = 20_000  # per attack: far above what its seconds allow
POLL_SECONDS = 0.02  # between two reads of a game while the worker moves in it


class Client:
    """JSON over one keep-alive connection from the attacker's address; counts the statuses."""

    def __init__(self, port: int, source: str) -> None:
        self.port, self.source = port, source
        self.statuses: Counter[int | str] = Counter()
        self._connection = self._connect()

    def _connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=30, source_address=(self.source, 0))

    def call(
        self, method: str, path: str, body: Any = None, token: str | None = None, *, wait_429: bool = False
    ) -> tuple[int, Any]:
        """One request; with ``wait_429`` a ``429`` is retried after its ``Retry-After`` (a few times)."""
        for _ in range(5 if wait_429 else 1):
            status, answer, retry_after = self._call(method, path, body, token)
            if status != 429 or not wait_429:
                break
            time.sleep(min(retry_after, 60))
        return status, answer

    def _call(self, method: str, path: str, body: Any, token: str | None) -> tuple[int, Any, float]:
        headers = {"Accept": "application/json", "Idempotency-Key": str(uuid.uuid4())}
        data = None
        if body is not None:
            data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        for attempt in range(2):
            reused = self._connection.sock is not None  # kept alive since an earlier answer
            try:
                self._connection.request(method, path, body=data, headers=headers)
                response = self._connection.getresponse()
                status, raw = response.status, response.read()
                retry_after = float(response.headers.get("Retry-After") or 1)
                break
            except (OSError, http.client.HTTPException) as error:
                self._connection.close()
                self._connection = self._connect()
                # gunicorn closes a connection idle for its keepalive (5 s) unannounced: the request
                # then meets a closed socket, unread. Sent again (with the same Idempotency-Key), it is
                # no refusal; any other failure, or a second one, is counted as status 0.
                if not (attempt == 0 and reused and isinstance(error, (ConnectionResetError, BrokenPipeError))):
                    self.statuses[0] += 1
                    return 0, None, 1.0
        answer = json.loads(raw) if raw else None
        self.statuses[f"{status} {answer.get('code')}" if status >= 400 and isinstance(answer, dict) else status] += 1
        return status, answer, retry_after


def polls(deadline: float, every: float = POLL_SECONDS) -> Iterator[int]:
    """The rounds of a loop that waits on the server: ``every`` seconds apart, until ``deadline`` (of
    ``time.monotonic``); so their count is bounded by the time left too."""
    for number in range(math.ceil(max(deadline - time.monotonic(), 0.0) / every) + 1):
        if time.monotonic() > deadline:
            return
        yield number
        time.sleep(every)


def play_out(client: Client, game: dict[str, Any], seat: int, token: str, deadline: float) -> bool:
    """Play the person's cards (the first in hand: no duty to follow suit) on its turns until the game
    ends; False if it did not by ``deadline``. The worker deals and moves the bots in between."""
    game_id = game["id"]
    for _ in polls(deadline):
        if game["status"] == "finished":
            return True
        if game["status"] == "playing" and game["turn"] == seat:
            status, hand = client.call("GET", f"/v1/games/{game_id}/hand", token=token)
            if status == 200 and hand["cards"]:
                client.call("POST", f"/v1/games/{game_id}/plays", {"card": hand["cards"][0]}, token=token)
        status, game = client.call("GET", f"/v1/games/{game_id}")
        if status != 200:
            return False
    return False


def rematches(port: int, seconds: float) -> dict[str, Any]:
    client, deadline, made = Client(port, "127.0.0.2"), time.monotonic() + seconds, 0
    seats = [{"name": "Ana"}, {"bot": "random"}, {"bot": "random"}]
    status, game = client.call("POST", "/v1/games", {"seats": seats, "target_score": 1, "auto_deal": True})
    if status != 201:
        return {"error": status}
    seat, token, made = game["credentials"][0]["seat"], game["credentials"][0]["token"], 1
    for _ in range(MAX_REQUESTS):
        if time.monotonic() > deadline or not play_out(client, game, seat, token, deadline):
            break
        status, rematch = client.call("POST", f"/v1/games/{game['id']}/rematch", token=token)
        if status == 429:
            time.sleep(0.05)  # as an attacker would: try again at once, not after Retry-After
            continue
        if status not in (200, 201):
            break
        game, seat, token, made = rematch["game"], rematch["seat"], rematch["token"], made + (status == 201)
    return {"games": made, "statuses": dict(client.statuses)}


def bots_only(port: int, seconds: float) -> dict[str, Any]:
    client, deadline, made = Client(port, "127.0.0.3"), time.monotonic() + seconds, 0
    body = {"seats": [{"bot": "expert"}] * 3, "target_score": 100, "auto_deal": True}
    for _ in range(MAX_REQUESTS):
        if time.monotonic() > deadline:
            break
        status, _ = client.call("POST", "/v1/games", body)
        made += status == 201
    return {"games": made, "statuses": dict(client.statuses)}


def unauthenticated(port: int, seconds: float, database: Path) -> dict[str, Any]:
    client, deadline = Client(port, "127.0.0.4"), time.monotonic() + seconds
    people = [{"name": "Ana"}, {"name": "Bo"}, {"name": "Cy"}]
    _, game = Client(port, "127.0.0.1").call("POST", "/v1/games", {"seats": people})  # a game of another address
    paths = [f"/v1/games/{game['id']}/hands", f"/v1/games/{game['id']}/rematch", f"/v1/games/{game['id']}/plays"]
    paths.append("/v1/games/01ARZ3NDEKTSV4RRFFQ69G5FAV/hands")  # a game that does not exist
    before, sent = _rows(database), 0
    for number in range(MAX_REQUESTS):
        if time.monotonic() > deadline:
            break
        body = {"card": "ace-coins"} if paths[number % 4].endswith("/plays") else None
        client.call("POST", paths[number % 4], body, token=uuid.uuid4().hex)
        sent += 1
    after = _rows(database)
    return {"requests": sent, "rows_added": {table: after[table] - before[table] for table in after},
            "statuses": dict(client.statuses)}  # fmt: skip


def _rows(database: Path) -> dict[str, int]:
    with sqlite3.connect(database) as connection:
        return {
            table: connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("idempotency_keys", "rate_limits")
        }


# -- issue 31: farming a rating with throw-away accounts -------------------------------------------

FARM_TARGET = 1
GAME_SECONDS = 120.0  # a game to 1 point takes a few seconds at pace 0: one still going is given up


class Account:
    """A player the attacker holds: its key, and its own client (address)."""

    def __init__(self, client: Client, name: str) -> None:
        self.client, self.name = client, name
        self.id = self.key = ""

    def create(self, maker: Client) -> None:
        for _ in range(5):  # a loaded machine may drop a connection: tried again
            status, answer = maker.call("POST", "/v1/players", {"name": self.name}, wait_429=True)
            if status == 201:
                break
            time.sleep(1)
        else:
            raise RuntimeError(f"createPlayer: {status} {answer}")
        self.id, self.key = answer["id"], answer["key"]

    def rating(self) -> dict[str, Any]:
        for _ in range(5):
            status, profile = self.client.call("GET", f"/v1/players/{self.id}")
            if status == 200:
                return dict(profile["rating"])
            time.sleep(1)
        raise RuntimeError(f"getPlayer {self.id}: {status} {profile}")


def greedy_card(hand: list[str], plays: list[dict[str, Any]]) -> str:
    """The farmer's card: last to a trick with a coin, the cheapest card that takes it; else no coin
    given away (the lowest card that is not a coin, if it has one)."""
    cards = [parse_card(code) for code in hand]
    on_table = [parse_card(play["card"]) for play in plays]
    plain = sorted((card for card in cards if card.suit.value != "coins"), key=lambda card: -card.rank_index)
    if len(on_table) == 2:
        takes = [card for card in cards if trick_winner([*on_table, card]) == 2]
        worth = [card for card in takes if card.suit.value == "coins" or any(c.suit.value == "coins" for c in on_table)]
        if worth:
            return max(worth, key=lambda card: (card.suit.value == "coins", card.rank_index)).code
    return (plain or sorted(cards, key=lambda card: -card.rank_index))[0].code


def play_game(
    game_id: str, seats: dict[int, Account], farmer: Account, how: str, rng: random.Random, deadline: float
) -> dict[str, Any]:
    """Play the game to its end: the accounts leave at once (``leave``) or play random cards; the
    farmer plays :func:`greedy_card`. The last state read (not finished if ``deadline`` came first)."""
    if how == "leave":
        for seat, account in seats.items():
            if account is not farmer:
                account.client.call("POST", f"/v1/games/{game_id}/players/{seat}/leave", {"bot": "basic"}, account.key)
    game: dict[str, Any] = {}
    for _ in polls(deadline):
        status, game = farmer.client.call("GET", f"/v1/games/{game_id}")
        if status != 200 or game["status"] == "finished":
            return game
        player = seats.get(game["turn"])
        if player is None or (how == "leave" and player is not farmer) or game["status"] != "playing":
            continue  # a bot's or the server's move (a deal), or a seat not ours any more
        _, hand = player.client.call("GET", f"/v1/games/{game_id}/hand", token=player.key)
        if not hand or not hand.get("cards"):
            continue
        plays = (game.get("trick") or {}).get("plays", [])
        card = greedy_card(hand["cards"], plays) if player is farmer else rng.choice(hand["cards"])
        player.client.call("POST", f"/v1/games/{game_id}/plays", {"card": card}, player.key)
    return game


def created_game(farmer: Account, accounts: list[Account]) -> tuple[str, dict[int, Account]] | None:
    """createGame by the farmer (two open seats), joined by the two accounts."""
    body = {"seats": [{"player": "me"}, None, None], "rated": True, "target_score": FARM_TARGET, "auto_deal": True}
    status, game = farmer.client.call("POST", "/v1/games", body, farmer.key, wait_429=True)
    if status != 201:
        return None
    seats = {0: farmer}
    for account in accounts:
        status, joined = account.client.call(
            "POST", f"/v1/games/{game['id']}/players", {"player": "me"}, account.key, wait_429=True
        )
        if status != 201:
            return None
        seats[joined["seat"]] = account
    return game["id"], seats


def queued_game(farmer: Account, accounts: list[Account], deadline: float) -> tuple[str, dict[int, Account]] | None:
    """The three queue for quick play at once (target 1, rated, no bots) and wait for their match."""
    body = {"target_score": FARM_TARGET, "rated": True, "bots_after": None}
    tickets = {}
    for account in (farmer, *accounts):
        status, ticket = account.client.call("POST", "/v1/queue", body, account.key, wait_429=True)
        waiting = re.search(r"\(([0-9a-z]{26})\)", ticket.get("detail", "")) if status == 409 and ticket else None
        if status == 201:
            tickets[account] = ticket["id"]
        elif waiting is not None:  # a ticket a dropped answer left waiting
            tickets[account] = waiting.group(1)
        else:
            return None
    seats: dict[int, Account] = {}
    game_id = None
    for _ in polls(deadline, every=0.2):
        if len(seats) == 3:
            break
        for account, ticket_id in tickets.items():
            if account in seats.values():
                continue
            _, ticket = account.client.call("GET", f"/v1/queue/{ticket_id}", token=account.key)
            if ticket and ticket.get("status") == "matched":
                seats[ticket["seat"]], game_id = account, ticket["game"]
            elif not ticket or ticket.get("status") != "waiting":
                return None
    return (game_id, seats) if game_id and len(seats) == 3 else None


def listed(client: Client, ids: set[str]) -> dict[str, list[str]]:
    """Which of ``ids`` the leaderboard lists: ranked, and rising (``provisional=true``: 1.3; an older
    service answers it 422, shown as ``n/a``)."""
    found: dict[str, list[str]] = {}
    for name, query in (("ranked", ""), ("rising", "&provisional=true")):
        status, page = client.call("GET", f"/v1/leaderboard?limit=100{query}")
        found[name] = (
            sorted(item["player"]["id"] for item in page["items"] if item["player"]["id"] in ids)
            if status == 200
            else ["n/a"]
        )
    return found


def farm(port: int, *, via: str, how: str, addresses: int, games: int, seconds: float) -> dict[str, Any]:
    """One variant of the farm (see the module's docstring): its figures."""
    sources = ["127.0.0.2", "127.0.0.3", "127.0.0.4"][:addresses]
    maker = Client(port, sources[0])
    farmer = Account(Client(port, sources[0]), "Farmer")
    accounts = [Account(Client(port, sources[(i + 1) % len(sources)]), f"Throwaway {i + 1}") for i in range(2)]
    for account in (farmer, *accounts):
        account.create(maker)  # one address makes the three
    before, rng, deadline = farmer.rating(), random.Random(31), time.monotonic() + seconds
    played = won = 0
    started = time.monotonic()
    for _ in range(2 * games):  # a game refused (a limit's 429 past its retries) is tried again
        if played == games or time.monotonic() > deadline:
            break
        table = created_game(farmer, accounts) if via == "create" else queued_game(farmer, accounts, deadline)
        if table is None:
            continue
        game_id, seats = table
        final = play_game(game_id, seats, farmer, how, rng, min(deadline, time.monotonic() + GAME_SECONDS))
        if final.get("status") == "finished":
            played += 1
            won += final.get("winner") is not None and seats.get(final["winner"]) is farmer
    time.sleep(1.5)  # results are applied within a second of a game's end
    after = farmer.rating()
    return {
        "via": via, "how": how, "addresses": addresses, "games": played, "farmer_won": won,
        "seconds": round(time.monotonic() - started), "farmer_before": before["value"], "farmer_after": after["value"],
        "farmer_gain": after["value"] - before["value"], "farmer_provisional": after["provisional"],
        "accounts": [account.rating() for account in accounts],
        "leaderboard": listed(farmer.client, {account.id for account in accounts}),
        "refusals": {
            str(status): count
            for client in {farmer.client, *(account.client for account in accounts)}
            for status, count in client.statuses.items()
            if str(status)[:1] in "045"
        },
    }  # fmt: skip


def farming(args: argparse.Namespace) -> None:
    """Each variant of the farm on a fresh server (a fresh SQLite database), as deployed, limits on."""
    results = []
    for via in args.via.split(","):
        for how in args.how.split(","):
            for addresses in (int(n) for n in args.addresses.split(",")):
                with tempfile.TemporaryDirectory() as folder, _server(Path(folder), queue_seconds=5) as port:
                    results.append(
                        farm(port, via=via, how=how, addresses=addresses, games=args.games, seconds=args.seconds)
                    )
                print(json.dumps(results[-1]), flush=True)
    print("attacks=" + json.dumps({"games": args.games, "seconds": args.seconds, "farming": results}))


@contextlib.contextmanager
def _server(folder: Path, *, queue_seconds: int | None = None) -> Iterator[int]:
    """The README's serve command on a fresh SQLite database in ``folder``, once the worker is up: its port."""
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{folder / 'coins.sqlite3'}",
        "BIND": f"127.0.0.1:{port}",
        "LOG_LEVEL": "WARNING",
        # The bots' pace off: the worker deals and moves the bots as soon as a move is due. The
        # attacks measure the defences (the limits, the ratings' rules); at the deployed pace (a
        # second a bot's move, 1.5 s after a trick) the waits between moves, not the defences,
        # would bound what an attack gets in its seconds.
        "BOT_PACE_MS": "0",
        "TRICK_PAUSE_MS": "0",
    }
    for name in ("PROMETHEUS_MULTIPROC_DIR", "RATE_LIMITS", "WEB_CONCURRENCY", "REDIS_URL", "QUEUE_MATCH_SECONDS"):
        env.pop(name, None)
    if queue_seconds is not None:
        env["QUEUE_MATCH_SECONDS"] = str(queue_seconds)
    command = [str(Path(sys.executable).with_name("gunicorn")), "-c", "gunicorn.conf.py", "wsgi:app"]
    with (
        serve(command, port=port, env=env, cwd=ROOT, log=folder / "gunicorn.log", start_seconds=180),
        worker_beside(env, cwd=ROOT, log=folder / "worker.log"),  # the results, the feeds, the waves
    ):
        asyncio.run(worker_up(port))  # begun before it, an attack's seconds would time its start-up
        yield port


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--seconds", type=float, default=30.0, help="each attack's length (--farming: each variant's bound)"
    )
    parser.add_argument("--farming", action="store_true", help="issue 31's rating farm instead of issue 25's attacks")
    parser.add_argument("--games", type=int, default=90, help="--farming: the games of each variant")
    parser.add_argument("--via", default="create,queue", help="--farming: create, queue or both")
    parser.add_argument("--how", default="leave,random", help="--farming: leave, random or both")
    parser.add_argument("--addresses", default="1,3", help="--farming: 1, 3 or both")
    args = parser.parse_args()
    if args.farming:
        if "--seconds" not in sys.argv:
            args.seconds = 1800.0
        farming(args)
        return
    with tempfile.TemporaryDirectory() as folder, _server(Path(folder)) as port:
        database = Path(folder) / "coins.sqlite3"
        summary = {
            "seconds": args.seconds,
            "rematches": rematches(port, args.seconds),
            "bots_only": bots_only(port, args.seconds),
            "unauthenticated": unauthenticated(port, args.seconds, database),
        }
    for name in ("rematches", "bots_only", "unauthenticated"):
        print(f"{name:16} {summary[name]}")
    print("attacks=" + json.dumps(summary))


if __name__ == "__main__":
    main()
