"""Players' benchmark: quick play's matching latency and rate, and player feeds while games are played.

For each database (SQLite, PostgreSQL) it starts the service as the README serves it on one
machine (``coins-realtime``: every role's requests on one port) on a free port of 127.0.0.1 with a
fresh database, with the limits off for this one-address load (``RATE_LIMITS=off``, ``STREAMS_PER_ADDRESS=0``),
creates ``--players`` players (1,000) and opens every player's feed (``GET /v1/players/me/events``
as Server-Sent Events, one socket each, read by one asyncio loop in this process). Once every feed
is open and ``/readyz`` says the worker is up (it matches and fans out; its start-up is not timed):

1. **Matching.** ``--queuers`` of them (300) queue at once (``POST /v1/queue``, unrated, target 100
   so that no game ends during the run, ``bots_after: null``), ``--concurrency`` requests in flight.
   For each match, the *matching latency* is the time from the sending of the third of its tickets
   (the last to be sent) to the arrival of ``match_found`` on each of its three players' feeds.
   Reported: p50 and p99 over the players matched, and matches formed per second (matches over
   the time from the first ticket sent to the last ``match_found`` received).
2. **Feeds while games are played.** The matched games (100 with 300 queuers) are played, each by
   a driver that acts only on its players' feeds: on ``your_turn`` it reads the player's hand and
   plays a random card (any card held is legal), while every one of the ``--players`` feeds stays
   open (the other 700 idle but for heartbeats). For every ``your_turn``, the *event latency* is
   the time from the answer (201) of the play that made the change to the event's arrival on the
   feed (0 or less: the event came before the play's own answer). ``--seconds`` of play, bounded.

The client shares the machine's cores with the server: its latencies are upper bounds.

    .venv/bin/python -m bench.players [--db sqlite,postgres] [--players 1000] [--queuers 300]
        [--seconds 20] [--concurrency 50] [--postgres-url postgresql://postgres@127.0.0.1:5432/test] [--json out.json]

Everything talks to 127.0.0.1 only; every loop is bounded in count and time; every stream is
closed and the server stopped at the end. The last line is ``players=<json summary>``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.http_client import HOST, Http, HttpError, one_port, percentile, worker_up
from bench.http_load import POSTGRES_URL, postgres_schema_url

POSTGRES_SCHEMA = "coins_players_bench"
OPEN_SECONDS = 120.0  # every feed open (its `player` event received) by then, or the run fails
OPEN_ATTEMPTS = 60  # per feed, on a 503
OPEN_CONCURRENCY = 50  # feeds being opened at once
MATCH_SECONDS = 60.0  # every queuer's match_found by then
MAX_PLAYS = 200_000  # a bound on top of --seconds


@dataclass
class Feed:
    """One player's open feed: the arrival time of each event, by type."""

    key: str
    player: str
    events: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    opened: asyncio.Event = field(default_factory=asyncio.Event)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    writer: asyncio.StreamWriter | None = None
    refused: int = 0  # 503 answers before it opened

    async def follow(self, port: int, opening: asyncio.Semaphore) -> None:
        """Read the stream (chunked SSE) until it is closed; each event timed as its frame completes.
        A 503 (too_many_streams, database_unavailable) is retried, at most ``OPEN_ATTEMPTS`` times."""
        async with opening:
            for _ in range(OPEN_ATTEMPTS):
                reader, self.writer = await asyncio.open_connection(HOST, port)
                head = f"GET /v1/players/me/events HTTP/1.1\r\nHost: {HOST}\r\nAccept: text/event-stream\r\n"
                self.writer.write(f"{head}Authorization: Bearer {self.key}\r\n\r\n".encode())
                status = await reader.readuntil(b"\r\n\r\n")
                if status[9:12] == b"200":
                    break
                self.close()
                self.refused += 1
                await asyncio.sleep(0.5)
            else:
                raise RuntimeError(f"feed refused {OPEN_ATTEMPTS} times, last {status[:12]!r}")
        text = b""
        while True:
            size = int((await reader.readline()).split(b";")[0], 16)
            if size == 0:
                return
            text += (await reader.readexactly(size + 2))[:-2]
            *frames, text = text.split(b"\n\n")
            now = time.perf_counter()
            for frame in frames:
                data = [line[5:].strip() for line in frame.split(b"\n") if line.startswith(b"data:")]
                if data:
                    self.events.append((now, json.loads(b"\n".join(data))))
                    self.opened.set()
                    self.wake.set()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def create_players(port: int, count: int, concurrency: int) -> list[Feed]:
    feeds: list[Feed] = []

    async def one(worker: int) -> None:
        http = Http(port)
        for n in range(worker, count, concurrency):
            status, created = await http.call("POST", "/v1/players", {"name": f"Bench {n}"})
            if status != 201:
                raise RuntimeError(f"createPlayer answered {status}: {created}")
            feeds.append(Feed(created["key"], created["id"]))
        http.close()

    await asyncio.gather(*(one(worker) for worker in range(concurrency)))
    return feeds


@dataclass
class Queued:
    sent: dict[str, float] = field(default_factory=dict)  # by player id: when its ticket's request was sent
    answer_ms: list[float] = field(default_factory=list)  # each POST /v1/queue's answer time
    failed: int = 0  # requests that timed out or were refused (their players may still be queued)


async def queue_all(port: int, feeds: list[Feed], concurrency: int) -> Queued:
    """Every feed's player queued, ``concurrency`` requests in flight."""
    queued = Queued()

    async def one(worker: int) -> None:
        http = Http(port)
        for feed in feeds[worker::concurrency]:
            sent = queued.sent[feed.player] = time.perf_counter()
            body = {"rated": False, "target_score": 100, "bots_after": None}
            try:
                status, _ = await http.call("POST", "/v1/queue", body, token=feed.key)
            except HttpError:
                status = 0
            queued.answer_ms.append((time.perf_counter() - sent) * 1000)
            queued.failed += status != 201
        http.close()

    await asyncio.gather(*(one(worker) for worker in range(concurrency)))
    return queued


def found(feed: Feed) -> tuple[float, str] | None:
    for arrived, event in feed.events:
        if event["type"] == "match_found":
            return arrived, event["game"]
    return None


async def measure_matching(
    port: int, queuers: list[Feed], concurrency: int
) -> tuple[dict[str, Any], dict[str, list[Feed]]]:
    start = time.perf_counter()
    queued = await queue_all(port, queuers, concurrency)
    sent = queued.sent
    deadline = time.perf_counter() + MATCH_SECONDS
    while any(found(feed) is None for feed in queuers) and time.perf_counter() < deadline:
        await asyncio.sleep(0.05)
    games: dict[str, list[Feed]] = defaultdict(list)
    for feed in queuers:
        match = found(feed)
        if match is not None:
            games[match[1]].append(feed)
    latencies, last = [], start
    for table in games.values():
        third = max(sent[feed.player] for feed in table)
        for feed in table:
            arrived = found(feed)
            assert arrived is not None
            latencies.append((arrived[0] - third) * 1000)
            last = max(last, arrived[0])
    summary = {
        "queued": len(queuers),
        "queue_failed": queued.failed,
        "queue_answer_p50_ms": round(percentile(queued.answer_ms, 50), 1),
        "queue_answer_p99_ms": round(percentile(queued.answer_ms, 99), 1),
        "matched_players": len(latencies),
        "matches": len(games),
        "match_p50_ms": round(percentile(latencies, 50), 1),
        "match_p99_ms": round(percentile(latencies, 99), 1),
        "match_max_ms": round(max(latencies, default=float("nan")), 1),
        "matches_per_s": round(len(games) / max(last - start, 1e-9), 1),
        "seconds": round(last - start, 2),
    }
    return summary, dict(games)


@dataclass
class Plays:
    answered: dict[tuple[str, int], float] = field(default_factory=dict)  # (game, version) -> the 201's time
    count: int = 0
    stale: int = 0  # a hand or play refused (the game moved on), timed out or dropped


async def drive(port: int, game: str, table: list[Feed], plays: Plays, end: float, rng: random.Random) -> None:
    """Play ``game`` from its players' feeds: on each new ``your_turn``, read the hand and play."""
    http = Http(port)
    seen = {feed.player: 0 for feed in table}
    done = -1
    while time.perf_counter() < end and plays.count < MAX_PLAYS:
        turn = None
        for feed in table:
            for _, event in feed.events[seen[feed.player] :]:
                if event["type"] == "your_turn" and event["game"] == game and event["version"] > done:
                    turn = (feed, event)
            seen[feed.player] = len(feed.events)
        if turn is None:
            waits = [asyncio.ensure_future(feed.wake.wait()) for feed in table]
            await asyncio.wait(waits, timeout=1.0, return_when=asyncio.FIRST_COMPLETED)
            for feed, waiting in zip(table, waits, strict=True):
                waiting.cancel()
                feed.wake.clear()
            continue
        feed, event = turn
        done = event["version"]
        try:
            status, hand = await http.call("GET", f"/v1/games/{game}/hand", token=feed.key)
            if status == 200 and hand["cards"]:
                card = {"card": rng.choice(hand["cards"])}
                status, result = await http.call("POST", f"/v1/games/{game}/plays", card, token=feed.key)
        except HttpError:  # timed out or dropped: the next your_turn says what to do
            status = 0
        if status != 201:
            plays.stale += 1
            continue
        plays.count += 1
        plays.answered[(game, result["game"]["version"])] = time.perf_counter()
    http.close()


def event_latencies(feeds: list[Feed], plays: Plays, after: float) -> list[float]:
    """For each your_turn that arrived after ``after``: its arrival minus the 201 of the play that made it
    (the latest answered play of that game at or below the event's version)."""
    by_game: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for (game, version), answered in plays.answered.items():
        by_game[game].append((version, answered))
    latencies = []
    for feed in feeds:
        for arrived, event in feed.events:
            if event["type"] != "your_turn" or arrived < after:
                continue
            made = [answered for version, answered in by_game.get(event["game"], []) if version <= event["version"]]
            if made:
                latencies.append((arrived - max(made)) * 1000)
    return latencies


async def all_open(feeds: list[Feed], following: Sequence[asyncio.Future[None]]) -> None:
    """Return as soon as every feed is open (its first event received); raise if a feed's ``follow``
    task ends first (it failed, or its stream closed), or if ``OPEN_SECONDS`` pass."""

    async def every_feed_opened() -> None:
        for feed in feeds:
            await feed.opened.wait()

    opening = asyncio.ensure_future(every_feed_opened())  # not a gather: cancelled, that logs an error
    # FIRST_COMPLETED, not FIRST_EXCEPTION: a follow task runs as long as its stream, so with no
    # failure FIRST_EXCEPTION waits for every task to end, which is the whole of OPEN_SECONDS.
    await asyncio.wait([opening, *following], timeout=OPEN_SECONDS, return_when=asyncio.FIRST_COMPLETED)
    ended = [task.exception() or "stream closed" for task in following if task.done() and not task.cancelled()]
    if not opening.done() or ended:
        opening.cancel()
        raise RuntimeError(f"{sum(not feed.opened.is_set() for feed in feeds)} feeds not open: {ended[:3]}")


async def measure_db(db: str, args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    url = (
        f"sqlite:///{workdir / 'players.sqlite3'}"
        if db == "sqlite"
        else postgres_schema_url(args.postgres_url, POSTGRES_SCHEMA)
    )
    env = {"STREAMS_PER_ADDRESS": "0"}
    with one_port(f"{db}-players", url, workdir, env, "WARNING") as server:
        feeds = await create_players(server.port, args.players, args.concurrency)
        opening_slots = asyncio.Semaphore(OPEN_CONCURRENCY)
        tasks = [asyncio.ensure_future(feed.follow(server.port, opening_slots)) for feed in feeds]
        try:
            await all_open(feeds, tasks)
            await worker_up(server.port)
            matching, games = await measure_matching(server.port, feeds[: args.queuers], args.concurrency)
            print(f"{db}: matching {matching}", flush=True)
            plays = Plays()
            start = time.perf_counter()
            rng = random.Random(7)
            drivers = [
                drive(server.port, game, table, plays, start + args.seconds, rng) for game, table in games.items()
            ]
            await asyncio.gather(*drivers)
            await asyncio.sleep(1.0)  # the last plays' events
            latencies = event_latencies(feeds, plays, start)
        finally:
            for feed in feeds:
                feed.close()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    seconds = time.perf_counter() - start
    feed_summary = {
        "feeds_open": len(feeds),
        "feed_opens_refused": sum(feed.refused for feed in feeds),
        "games": len(games),
        "plays": plays.count,
        "plays_per_s": round(plays.count / seconds, 1),
        "stale": plays.stale,
        "your_turn_events": len(latencies),
        "event_p50_ms": round(percentile(latencies, 50), 1),
        "event_p99_ms": round(percentile(latencies, 99), 1),
        "event_max_ms": round(max(latencies, default=float("nan")), 1),
    }
    print(f"{db}: feeds {feed_summary}", flush=True)
    return {"db": db, "matching": matching, "feeds": feed_summary}


async def main_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    results = []
    with tempfile.TemporaryDirectory(prefix="coins-players-bench-") as folder:
        for db in args.db.split(","):
            results.append(await measure_db(db, args, Path(folder)))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="sqlite,postgres")
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--queuers", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--postgres-url", default=POSTGRES_URL)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if args.queuers > args.players or args.queuers % 3:
        parser.error("--queuers must be a multiple of 3, at most --players")
    results = asyncio.run(main_async(args))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    print("players=" + json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
