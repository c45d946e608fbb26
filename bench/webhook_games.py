"""Webhooks while games are played: every ``your_turn`` delivered, commit to receipt, plays/s with and
without webhooks in one run; and a receiver that is down for minutes (``--down-minutes``).

The service runs as the README serves it on one machine (``coins-realtime`` on a free port of
127.0.0.1, ``coins-worker`` beside it in its own process: the worker delivers the webhooks as
deployed; the bench begins once ``/readyz`` says it is up), on a fresh database (``--db postgres``:
a fresh schema; ``sqlite``: a fresh file), with ``WEBHOOK_ALLOW_NETWORKS=127.0.0.0/8`` and
``WEBHOOK_CA_BUNDLE`` naming the receiver's CA (test settings: loopback is never allowed in
production). The receiver is tests/support/webhook_receiver.py
in a process of its own (its certificate names 127.0.0.1, which the service's own resolver reaches),
so that its threads and TLS do not share this process's interpreter with the clients.

``--players`` players (1,000) are created, each with a webhook to the receiver. Then, in the order
``--order`` (``hooks,none,none,hooks``: A/B/B/A, so that a drift of the machine favours neither),
each round plays the same ``--games`` games (100; seeded, the same cards chosen by the same
random generator), game *i* by players 3i, 3i+1, 3i+2 through the HTTP API, one client connection
per game, all at once: create (``{"player": "me"}``), two joins, deal, read the hands and ``--plays``
plays (48: one whole hand), at once or one move every ``--pace`` seconds (a person's pace).
Before a ``none`` round every webhook is deleted, before a ``hooks`` round every player has one
again. Plays/s of a round: its plays over its time. After each round, once the worker has emptied
the outbox (what the games' changes owe the players' feeds, read from the database; ``--timeout``
at most), the players' feeds are read once (``GET /v1/players/me/events``); after a ``hooks`` round
every ``your_turn`` of the round's games is owed to its player's webhook, and the bench waits
(``--timeout``) until each has arrived (``webhook-id`` is ``msg_<webhook>_<event>``). The latency
of a delivery is its receipt minus the sending of the request that made its version (an upper
bound of commit to receipt: the commit is between the request's sending and its answer), minus
the answer (a lower bound), and minus the time of the change itself (``*_from_change_s``: the
deal's or play's ``created_at`` in the game's actions, the service's clock in the change's
transaction, before its commit; an upper bound still, without the request's wait for the web
role, which the first includes); with nothing owed or nothing delivered, no figures but
``latency`` saying so. Each round also reports the CPU time ``coins-realtime`` (the web app too,
on one port), ``coins-worker`` and the receiver spent per play (``cpu_ms_per_play``, from /proc:
the feeds read after the round and a ``hooks`` round's deliveries included), so that what the
deliveries cost shows as the difference of the two kinds.

With ``--down-minutes M`` it instead plays ``--games`` games without end, one move every
``--pace`` seconds each, stops the receiver after ``WARM_SECONDS`` for M minutes, starts it again
(the same port and certificate), plays ``AFTER_SECONDS`` more, then waits until every ``your_turn``
owed has arrived (bounded: the retry schedule's worst gap plus ``--timeout``), and reports how long
after the restart they came.

    .venv/bin/python -m bench.webhook_games [--db postgres] [--players 1000] [--games 100] [--plays 48]
        [--order hooks,none,none,hooks] [--pace 0] [--down-minutes 0] [--postgres-url URL] [--json out.json]

Everything talks to 127.0.0.1 only; every loop is bounded in count and time. The last line is
``webhook_games=<json summary>``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import statistics
import tempfile
import time
from collections import Counter
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from bench.http_client import Http, one_port, percentile, worker_up
from bench.http_load import POSTGRES_URL, postgres_schema_url
from service.config import Settings
from service.store import Database
from service.store.models import OutboxRow
from tests.support.processes import children, cpu_seconds

POSTGRES_SCHEMA = "coins_webhook_games_bench"
ADDRESS = "127.0.0.1"  # the receiver's address and its certificate's name
CONCURRENCY = 20  # requests in flight while players and webhooks are made
WARM_SECONDS = 20.0  # --down-minutes: play this long before the receiver stops
AFTER_SECONDS = 30.0  # --down-minutes: and this long after it is back
MAX_MOVES = 100_000  # a bound on any game's moves, on top of the time
OUTBOX_POLL_SECONDS = 0.1  # between two reads of the outbox while the worker empties it


def serve_receiver(folder: str, commands: Connection) -> None:
    """The receiver's process: answers ``stop``, ``start`` (same port, same CA), ``dump`` (every
    receipt so far: its time.monotonic() and ``webhook-id``) and ``quit``."""
    import trustme

    from tests.support.webhook_receiver import Received, Receiver, receiver

    ca, port = trustme.CA(), 0
    earlier: list[Received] = []  # what the receivers stopped so far received
    running: AbstractContextManager[Receiver] | None  # None while stopped
    running = receiver(Path(folder), ca=ca, host=ADDRESS, port=port)
    hooks = running.__enter__()
    port = hooks.port
    commands.send((hooks.url, hooks.ca_file))
    while True:
        command = commands.recv()
        if command == "stop" and running is not None:
            running.__exit__(None, None, None)
            earlier += hooks.received
            running = None
        elif command == "start" and running is None:
            running = receiver(Path(folder), ca=ca, host=ADDRESS, port=port)
            hooks = running.__enter__()
        elif command == "dump":
            current = [] if running is None else list(hooks.received)
            commands.send([(got.at, got.headers.get("webhook-id", "")) for got in earlier + current])
            continue
        elif command == "quit":
            if running is not None:
                running.__exit__(None, None, None)
            commands.send("bye")
            return
        commands.send("ok")


class ReceiverProcess:
    """The receiver in a process of its own (see :func:`serve_receiver`)."""

    def __init__(self, folder: str) -> None:
        context = multiprocessing.get_context("spawn")
        self._pipe, child = context.Pipe()
        self.process = context.Process(target=serve_receiver, args=(folder, child), daemon=True)
        self.process.start()
        self.pid = self.process.pid or 0
        self.url, self.ca_file = self._answer(60.0)

    def _answer(self, seconds: float) -> Any:
        if not self._pipe.poll(seconds):
            raise RuntimeError("the receiver did not answer")
        return self._pipe.recv()

    def ask(self, command: str) -> Any:
        self._pipe.send(command)
        return self._answer(60.0)

    def close(self) -> None:
        try:
            self.ask("quit")
        finally:
            self.process.join(10.0)
            if self.process.is_alive():
                self.process.kill()


def load() -> float:
    """The machine's load average over the last minute."""
    return float(Path("/proc/loadavg").read_text().split()[0])


def role_cpu(receiver: int) -> dict[str, float]:
    """CPU seconds used so far by this bench's ``coins-realtime`` (the web app too, on one port),
    ``coins-worker`` and the receiver's process (pid ``receiver``)."""
    used = {"realtime": 0.0, "worker": 0.0, "receiver": cpu_seconds([receiver])}
    for pid in children(os.getpid()):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        for role in ("realtime", "worker"):
            if f"coins-{role}".encode() in command:
                used[role] += cpu_seconds([pid])
    return used


@dataclass
class Player:
    id: str
    key: str
    hook: str | None = None  # its webhook's id while it has one
    after: int = 0  # the last event id of its feed read so far


@dataclass
class Moves:
    """What the clients did: by (game, version) the sending and the answer of the move that made it."""

    made: dict[tuple[str, int], tuple[float, float]] = field(default_factory=dict)
    changes: dict[str, list[tuple[int, str]]] = field(default_factory=dict)  # by game, its deals' and plays' versions
    plays: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    games: list[str] = field(default_factory=list)


async def call(http: Http, moves: Moves, kind: str, method: str, path: str, body: Any, key: str) -> Any:
    """One request; a 2xx's game state recorded against its version, anything else raised."""
    sent = time.monotonic()
    status, answer = await http.call(method, path, body, token=key)
    if not 200 <= status < 300:
        moves.failures[f"{kind} {status} {(answer or {}).get('code')}"] += 1
        raise RuntimeError(f"{kind} answered {status}")
    game = answer.get("game", answer) if kind != "hand" else None
    if game is not None:
        moves.made[(game["id"], game["version"])] = (sent, time.monotonic())
        if kind in ("deal", "play"):
            moves.changes.setdefault(game["id"], []).append((game["version"], kind))
    return game if kind != "hand" else answer


async def play(port: int, table: list[Player], seed: str, moves: Moves, plays: int, pace: float, end: float) -> None:
    """One game: created by the first player, joined by the others, dealt and played (any card held
    is legal) until ``plays`` plays or ``end``, ``pace`` seconds between moves."""
    http, rng = Http(port), random.Random(seed)
    try:
        body = {"seats": [{"player": "me"}, None, None], "seed": seed, "first_dealer": 0, "target_score": 100}
        game = await call(http, moves, "create", "POST", "/v1/games", body, table[0].key)
        game_id = game["id"]
        moves.games.append(game_id)
        for seat in (1, 2):
            path = f"/v1/games/{game_id}/players"
            game = await call(http, moves, "join", "POST", path, {"player": "me", "seat": seat}, table[seat].key)
        hands: dict[int, list[str]] = {}
        for _ in range(MAX_MOVES):
            if plays <= 0 or time.monotonic() >= end or game["status"] == "finished":
                return
            if pace:
                await asyncio.sleep(pace)
            if game["status"] == "waiting_for_deal":
                key = table[game["dealer"]].key
                game = await call(http, moves, "deal", "POST", f"/v1/games/{game_id}/hands", None, key)
                for seat, player in enumerate(table):
                    hand = await call(http, moves, "hand", "GET", f"/v1/games/{game_id}/hand", None, player.key)
                    hands[seat] = list(hand["cards"])
                continue
            seat = game["turn"]
            card = hands[seat].pop(rng.randrange(len(hands[seat])))
            path = f"/v1/games/{game_id}/plays"
            game = await call(http, moves, "play", "POST", path, {"card": card}, table[seat].key)
            moves.plays += 1
            plays -= 1
    except Exception as error:  # counted in moves.failures (or here): the other games go on
        moves.failures[f"game stopped: {type(error).__name__}"] += 1
    finally:
        http.close()


async def action_times(port: int, moves: Moves) -> dict[tuple[str, int], float]:
    """By (game, version), the time (``time.time()``) of the deal or play that made it, as the game's
    actions say: the service's clock in the change's transaction, before its commit."""
    times: dict[tuple[str, int], float] = {}
    https = [Http(port) for _ in range(CONCURRENCY)]

    async def one(n: int) -> None:
        game_id = moves.games[n]
        status, page = await https[n % CONCURRENCY].call("GET", f"/v1/games/{game_id}/actions?limit=500")
        if status != 200:
            raise RuntimeError(f"listActions answered {status}")
        actions = sorted(page["items"], key=lambda action: action["seq"])
        for (version, kind), action in zip(moves.changes.get(game_id, []), actions, strict=False):
            if action["kind"] == kind:  # the clients' deals and plays are the game's only actions here
                times[(game_id, version)] = datetime.fromisoformat(action["created_at"]).timestamp()

    await in_turn(len(moves.games), one)
    for http in https:
        http.close()
    return times


async def in_turn(count: int, job: Any) -> None:
    """``job(i)`` for i below ``count``, :data:`CONCURRENCY` at once."""

    async def lane(first: int) -> None:
        for n in range(first, count, CONCURRENCY):
            await job(n)

    await asyncio.gather(*(lane(first) for first in range(CONCURRENCY)))


async def make_players(port: int, count: int) -> list[Player]:
    players: list[Player | None] = [None] * count
    https = [Http(port) for _ in range(CONCURRENCY)]

    async def one(n: int) -> None:
        status, made = await https[n % CONCURRENCY].call("POST", "/v1/players", {"name": f"Hooked {n}"})
        if status != 201:
            raise RuntimeError(f"createPlayer answered {status}: {made}")
        players[n] = Player(made["id"], made["key"])

    await in_turn(count, one)
    for http in https:
        http.close()
    return [player for player in players if player is not None]


async def set_webhooks(port: int, players: list[Player], url: str | None, owner: dict[str, Player]) -> None:
    """Every player with a webhook to ``url``, or (None) with none."""
    https = [Http(port) for _ in range(CONCURRENCY)]

    async def one(n: int) -> None:
        player, http = players[n], https[n % CONCURRENCY]
        if url is not None and player.hook is None:
            status, made = await http.call("POST", "/v1/players/me/webhooks", {"url": url}, token=player.key)
            if status != 201:
                raise RuntimeError(f"createWebhook answered {status}: {made}")
            player.hook = made["id"]
            owner[made["id"]] = player
        elif url is None and player.hook is not None:
            status, _ = await http.call("DELETE", f"/v1/players/me/webhooks/{player.hook}", token=player.key)
            if status != 204:
                raise RuntimeError(f"deleteWebhook answered {status}")
            player.hook = None

    await in_turn(len(players), one)
    for http in https:
        http.close()


async def read_feeds(port: int, players: list[Player]) -> list[tuple[Player, dict[str, Any]]]:
    """The events after each player's last read one (pages until none)."""
    found: list[tuple[Player, dict[str, Any]]] = []
    https = [Http(port) for _ in range(CONCURRENCY)]

    async def one(n: int) -> None:
        player, http = players[n], https[n % CONCURRENCY]
        for _ in range(10_000):
            status, page = await http.call(
                "GET", f"/v1/players/me/events?after={player.after}&wait=0", token=player.key
            )
            if status != 200:
                raise RuntimeError(f"getPlayerEvents answered {status}")
            if not page["items"]:
                return
            found.extend((player, event) for event in page["items"])
            player.after = page["last_id"]

    await in_turn(len(players), one)
    for http in https:
        http.close()
    return found


class Outbox:
    """The service's outbox, read from its database: the events that games' changes still owe
    players' feeds. Each change writes its rows in its own transaction; the worker appends them to
    the feeds, queues the deliveries the webhooks are owed and deletes them, all in one transaction."""

    def __init__(self, database_url: str) -> None:
        self._db = Database(Settings(database_url=database_url).sqlalchemy_url, pool_size=1)

    def rows(self) -> int:
        """How many events the outbox holds now."""
        with self._db.transaction(write=False) as connection:
            return int(connection.execute(select(func.count()).select_from(OutboxRow)).scalar_one())

    async def emptied(self, seconds: float) -> None:
        """Return once the outbox is empty, so that every change answered so far is on the feeds (and
        its deliveries queued); raise if it is not within ``seconds``."""
        deadline = time.monotonic() + seconds
        for _ in range(int(seconds / OUTBOX_POLL_SECONDS) + 1):
            left = self.rows()
            if not left:
                return
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(OUTBOX_POLL_SECONDS)
        raise RuntimeError(
            f"the worker left {left} events in the outbox after {seconds:g} s: the owed count would be short"
        )

    def close(self) -> None:
        self._db.dispose()


async def owed_turns(
    port: int, players: list[Player], games: set[str], outbox: Outbox, seconds: float
) -> dict[str, dict[str, Any]]:
    """By delivery id (``msg_<webhook>_<event>``), the ``your_turn`` events of ``games`` owed to the
    players' webhooks: read from their feeds once, after the worker has emptied the outbox (within
    ``seconds``). Its fan-out can lag the plays by seconds (while it also delivers), so feeds read at
    any set time after the round could miss the last turns."""
    await outbox.emptied(seconds)
    owed: dict[str, dict[str, Any]] = {}
    for player, event in await read_feeds(port, players):
        if event["type"] == "your_turn" and event["game"] in games and player.hook is not None:
            owed[f"msg_{player.hook}_{event['id']}"] = event  # a player without a webhook is owed nothing
    return owed


async def arrivals(receiver: ReceiverProcess, owed: dict[str, Any], seconds: float) -> dict[str, list[float]]:
    """Every receipt by delivery id, once all of ``owed`` has arrived or ``seconds`` have passed."""
    deadline = time.monotonic() + seconds
    while True:
        got: dict[str, list[float]] = {}
        for at, message in receiver.ask("dump"):
            got.setdefault(message, []).append(at)
        if all(message in got for message in owed) or time.monotonic() > deadline:
            return got
        await asyncio.sleep(1.0)


def latencies(
    owed: dict[str, dict[str, Any]],
    got: dict[str, list[float]],
    moves: Moves,
    committed: dict[tuple[str, int], float] | None = None,
) -> dict[str, Any]:
    """Receipt minus the sending (and the answer) of the move that made each delivered event's
    version, and minus that move's time in its transaction (``committed``, ``time.time()``). With
    nothing to time, no figures (they would be NaN) but ``latency`` saying why."""
    from_sent, from_answer, from_change = [], [], []
    unordered = 0
    wall = time.time() - time.monotonic()  # the receiver's times are time.monotonic(), the same clock
    for message, event in owed.items():
        made = moves.made.get((event["game"], event["version"]))
        if message in got and made is not None:
            from_sent.append(min(got[message]) - made[0])
            from_answer.append(min(got[message]) - made[1])
        changed = (committed or {}).get((event["game"], event["version"]))
        if message in got and changed is not None:
            from_change.append(min(got[message]) + wall - changed)
            if made is not None and changed > made[1] + wall:
                unordered += 1  # the change's time after its answer: the clocks disagree
    counts = {
        "owed": len(owed),
        "delivered": sum(message in got for message in owed),
        "extra_receipts": sum(len(got[message]) - 1 for message in owed if message in got),
        "timed": len(from_sent),
    }
    if not from_sent:
        why = (
            "nothing was owed (no your_turn on the feed of a player with a webhook)"
            if not owed
            else "nothing owed was delivered"
        )
        return counts | {"latency": f"none: {why}"}
    changes = {}
    if committed is not None:
        changes = {
            "timed_from_change": len(from_change),
            "changes_after_their_answer": unordered,  # 0, or the figures from the change mean nothing
            "p50_from_change_s": round(percentile(from_change, 50), 3),
            "p99_from_change_s": round(percentile(from_change, 99), 3),
            "max_from_change_s": round(max(from_change, default=float("nan")), 3),
        }
    timed = {
        "p50_s": round(percentile(from_sent, 50), 3),
        "p99_s": round(percentile(from_sent, 99), 3),
        "max_s": round(max(from_sent), 3),
        "p99_from_answer_s": round(percentile(from_answer, 99), 3),
    }
    return changes | counts | timed


async def rounds(port: int, args: argparse.Namespace, receiver: ReceiverProcess, outbox: Outbox) -> dict[str, Any]:
    players = await make_players(port, args.players)
    owner: dict[str, Player] = {}
    playing = players[: 3 * args.games]
    results = []
    for number, kind in enumerate(args.order.split(",")):
        await set_webhooks(port, players, receiver.url if kind == "hooks" else None, owner)
        moves, before, cpu_before = Moves(), load(), role_cpu(receiver.pid)
        start = time.monotonic()
        end = start + args.timeout
        await asyncio.gather(
            *(
                play(port, playing[3 * i : 3 * i + 3], f"hooks-{i}", moves, args.plays, args.pace or 0.0, end)
                for i in range(args.games)
            )
        )
        seconds = time.monotonic() - start
        result: dict[str, Any] = {"round": number, "kind": kind, "plays": moves.plays, "seconds": round(seconds, 2)}
        result |= {"plays_per_s": round(moves.plays / seconds, 1), "failures": dict(moves.failures)}
        result["load"] = [before, load()]
        owed = await owed_turns(port, playing, set(moves.games), outbox, args.timeout)
        if kind == "hooks":
            got = await arrivals(receiver, owed, args.timeout)
            result |= latencies(owed, got, moves, await action_times(port, moves))
        cpu = role_cpu(receiver.pid)  # the deliveries after the round included
        result["cpu_ms_per_play"] = {
            role: round(1000 * (used - cpu_before[role]) / max(1, moves.plays), 2) for role, used in cpu.items()
        }
        print(json.dumps(result), flush=True)
        results.append(result)
    rates = {kind: [r["plays_per_s"] for r in results if r["kind"] == kind] for kind in ("hooks", "none")}
    ratio = statistics.median(rates["hooks"]) / statistics.median(rates["none"]) if all(rates.values()) else None
    return {"rounds": results, "plays_per_s": rates, "ratio_hooks_over_none": ratio and round(ratio, 3)}


def worst_wait(down: float) -> float:
    """The longest a delivery first tried while the receiver is down waits after it is back, by the
    retry schedule (each try at once when due)."""
    from service.webhooks.deliveries import RETRY_DELAYS

    worst = 0.0
    for first in range(int(down)):
        at = float(first)
        for delay in RETRY_DELAYS:
            if at >= down:
                break
            at += delay.total_seconds()
        worst = max(worst, at - down)
    return worst


async def down(port: int, args: argparse.Namespace, receiver: ReceiverProcess, outbox: Outbox) -> dict[str, Any]:
    players = await make_players(port, args.players)
    owner: dict[str, Player] = {}
    await set_webhooks(port, players, receiver.url, owner)
    playing, moves = players[: 3 * args.games], Moves()
    seconds = args.down_minutes * 60
    start = time.monotonic()
    end = start + WARM_SECONDS + seconds + AFTER_SECONDS

    async def switch() -> tuple[float, float, list[float]]:
        await asyncio.sleep(WARM_SECONDS)
        stopped, loads = time.monotonic(), [load()]
        receiver.ask("stop")
        await asyncio.sleep(seconds)
        receiver.ask("start")
        loads.append(load())
        return stopped, time.monotonic(), loads

    games = [
        play(port, playing[3 * i : 3 * i + 3], f"down-{i}", moves, MAX_MOVES, args.pace or 2.0, end)
        for i in range(args.games)
    ]
    (stopped, back, loads), _ = await asyncio.gather(switch(), asyncio.gather(*games))
    owed = await owed_turns(port, playing, set(moves.games), outbox, args.timeout)
    worst = worst_wait(seconds)
    got = await arrivals(receiver, owed, max(0.0, back + worst - time.monotonic()) + args.timeout)
    loads.append(load())
    while_down = [
        min(got[message]) - back
        for message, event in owed.items()
        if message in got and stopped <= moves.made.get((event["game"], event["version"]), (0.0, 0.0))[0] < back
    ]
    summary = latencies(owed, got, moves)
    return summary | {
        "plays": moves.plays,
        "failures": dict(moves.failures),
        "down_s": round(back - stopped, 1),
        "owed_while_down": len(while_down),
        "after_back_p50_s": round(percentile(while_down, 50), 1),
        "after_back_max_s": round(max(while_down, default=float("nan")), 1),
        "schedule_worst_after_back_s": worst,
        "load": loads,
    }


async def run(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    receiver = ReceiverProcess(str(folder))
    try:
        url = (
            f"sqlite:///{folder / 'hooks.sqlite3'}"
            if args.db == "sqlite"
            else postgres_schema_url(args.postgres_url, POSTGRES_SCHEMA + ("_down" if args.down_minutes else ""))
        )
        env = {"WEBHOOK_ALLOW_NETWORKS": "127.0.0.0/8", "WEBHOOK_CA_BUNDLE": receiver.ca_file}
        outbox = Outbox(url)
        try:
            with one_port(f"{args.db}-hooks", url, folder, env, "WARNING") as server:
                await worker_up(server.port)  # else the first round's latencies include its start-up
                measured = await (down if args.down_minutes else rounds)(server.port, args, receiver, outbox)
        finally:
            outbox.close()
        return {"db": args.db, "players": args.players, "games": args.games} | measured
    finally:
        receiver.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", choices=("postgres", "sqlite"), default="postgres")
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--plays", type=int, default=48, help="plays per game and round (48: one hand)")
    parser.add_argument("--order", default="hooks,none,none,hooks")
    parser.add_argument("--down-minutes", type=float, default=0.0, help="the receiver down this long (0: A/B rounds)")
    parser.add_argument(
        "--pace", type=float, help="seconds between a game's moves (default: none; 2 with --down-minutes)"
    )
    parser.add_argument("--timeout", type=float, default=180.0)
    parser.add_argument("--postgres-url", default=POSTGRES_URL)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if 3 * args.games > args.players:
        parser.error("--games needs 3 players each")
    with tempfile.TemporaryDirectory(prefix="coins-webhook-games-") as folder:
        summary = asyncio.run(run(args, Path(folder)))
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2))
    print("webhook_games=" + json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
