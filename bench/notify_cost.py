"""What notifying other processes of a change costs on PostgreSQL, at 1 and 8 concurrent writers.

Part 1, the service: writer processes play games through the service's own use cases
(:class:`service.games.GameService` over :class:`service.store.GameStore`, no HTTP), each its
own game, dealing when a hand is due and otherwise playing the first card of whoever's turn it
is, from a fresh game when one ends. Every deal and play is timed: load, rules, the save (one
statement) and then, with ``notify``, the service's ``NOTIFY`` in autocommit after the commit
(what production runs); with ``noop``, ``GameService(store, signals=NoSignals())``,
which sends nothing. A listener (as each service process has one) drains the channel meanwhile.

Part 2, for the record, with raw psycopg on a scratch table (one row per writer: no row
contention) in a schema of its own: where the NOTIFY goes. ``update`` (autocommit) against
``update; notify`` (two autocommit statements: the service's way), and ``begin; update; commit``
against ``begin; update; notify; commit`` (NOTIFY inside the write's transaction: at commit it
takes a database-wide lock, held through the commit's WAL flush, so notifying writers commit
one at a time).

Each mode runs ``--repeats`` windows of ``--seconds`` per level of concurrency, the modes of a
level interleaved (so they share whatever else the machine does); it prints the medians over
the windows of writes/s and of each window's p50/p99 latency, and the ratio of each mode's
writes/s to its baseline (``noop``; ``update``; ``begin; update; commit``).

    .venv/bin/python -m bench.notify_cost [--postgres-url postgresql://postgres@127.0.0.1:5432/test]
        [--levels 1,8] [--seconds 4] [--repeats 3] [--parts service,raw] [--json out.json]

Talks to 127.0.0.1's PostgreSQL only (schemas coins_bench_notify and coins_bench_notify_raw,
dropped at the end); every loop is bounded in count and time. The last line is
``notify_cost=<json summary>``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg

from bench.bots import percentile
from service.events.channels import CHANNEL, channel_for
from service.games import GameService, NewGame, NewPlayer
from service.store import GameStore
from service.store.db import Database
from service.store.migrate import upgrade
from service.work import NoSignals

POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"
SERVICE_SCHEMA = "coins_bench_notify"
RAW_SCHEMA = "coins_bench_notify_raw"
RAW_CHANNEL = "coins_bench_notify"
MAX_WRITES_PER_WINDOW = 200_000  # per writer: a bound on top of the time window
START_DELAY = 2.0  # seconds from launching the writers to the window's start: set-up, then warm-up writes
PLAYERS = (NewPlayer("Ana", 41), NewPlayer("Bo", 35), NewPlayer("Cy", 29))
SERVICE_MODES = ("noop", "notify")
RAW_MODES = ("update", "update; notify", "begin; update; commit", "begin; update; notify; commit")
BASELINE = {
    "notify": "noop",
    "update; notify": "update",
    "begin; update; notify; commit": "begin; update; commit",
}


def in_schema(url: str, schema: str) -> str:
    separator = "&" if "?" in url else "?"
    return f"{url}{separator}options={quote(f'-csearch_path={schema}')}"


# -- the writers (each in its own process) ----------------------------------------------------


@dataclass(frozen=True)
class Task:
    part: str  # "service" or "raw"
    mode: str
    url: str
    writer: int
    start: float  # time.time() of the window's start
    seconds: float


def run_writer(task: Task) -> list[float]:
    """The latencies (seconds) of the writes this writer finished inside the window."""
    return (service_writer if task.part == "service" else raw_writer)(task)


def service_writer(task: Task) -> list[float]:
    db = Database(task.url, pool_size=1)
    signals = NoSignals() if task.mode == "noop" else channel_for(db)  # the service's own
    games = GameService(GameStore(db), signals=signals)
    latencies: list[float] = []
    game_id, tokens, state = "", [""], None
    try:
        warming = True  # until the window starts: connections, prepared statements, the engine's code
        end = time.perf_counter() + task.start - time.time() + task.seconds
        for _ in range(MAX_WRITES_PER_WINDOW):
            if warming and time.time() >= task.start:
                warming, latencies = False, []
            if state is None or state.status == "finished":
                created = games.create(NewGame(target_score=30, seats=PLAYERS, seed=f"notify/{task.writer}"))
                game_id, tokens = created.game.id, [c.token for c in created.credentials]
                state = created.game
            if state.status == "waiting_for_deal":
                assert state.dealer is not None
                started = time.perf_counter()
                state = games.deal(game_id, tokens[state.dealer], if_match=None).game
            else:
                assert state.turn is not None
                token = tokens[state.turn]
                card = games.hand(game_id, token).cards[0]
                started = time.perf_counter()
                state = games.play(game_id, token, card, if_match=None).game
            finished = time.perf_counter()
            if finished > end:
                break
            latencies.append(finished - started)
    finally:
        db.dispose()
    return latencies


def raw_writer(task: Task) -> list[float]:
    latencies: list[float] = []
    with psycopg.connect(task.url, autocommit=task.mode.startswith("update")) as connection:
        update = "UPDATE rows SET n = n + 1 WHERE id = %s"
        notify = "SELECT pg_notify(%s, %s)"
        row, payload = (task.writer,), (RAW_CHANNEL, str(task.writer))
        warming = True  # until the window starts: the connection, prepared statements
        end = time.perf_counter() + task.start - time.time() + task.seconds
        for _ in range(MAX_WRITES_PER_WINDOW):
            if warming and time.time() >= task.start:
                warming, latencies = False, []
            started = time.perf_counter()
            connection.execute(update, row, prepare=True)
            if "notify" in task.mode:
                connection.execute(notify, payload, prepare=True)
            if task.mode.startswith("begin"):
                connection.commit()
            finished = time.perf_counter()
            if finished > end:
                break
            latencies.append(finished - started)
    return latencies


# -- the runs -----------------------------------------------------------------------------------


@dataclass
class Window:
    part: str
    mode: str
    writers: int
    writes: int
    seconds: float
    p50_ms: float
    p99_ms: float

    @property
    def rate(self) -> float:
        return self.writes / self.seconds


def ready(seconds: float) -> None:
    """A task that only waits: given one per process before the first window, it has every
    process started (its imports done) before any window's clock runs."""
    time.sleep(seconds)


def window(pool: Any, part: str, mode: str, url: str, writers: int, seconds: float) -> Window:
    start = time.time() + START_DELAY
    tasks = [Task(part, mode, url, writer, start, seconds) for writer in range(writers)]
    results = pool.map(run_writer, tasks)
    latencies = [value for result in results for value in result]
    if not latencies:
        raise SystemExit(f"{part} {mode} with {writers} writers: no write finished inside the window")
    return Window(
        part,
        mode,
        writers,
        len(latencies),
        seconds,
        1000 * percentile(latencies, 0.50),
        1000 * percentile(latencies, 0.99),
    )


class Listener:
    """One LISTEN connection, as each service process has, draining the channels while we write."""

    def __init__(self, url: str) -> None:
        self.heard = 0
        self._stop = threading.Event()
        self._connection = psycopg.connect(url, autocommit=True)
        self._connection.execute(f"LISTEN {CHANNEL}")
        self._connection.execute(f"LISTEN {RAW_CHANNEL}")
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while not self._stop.is_set():
            for _ in self._connection.notifies(timeout=0.5):
                self.heard += 1

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self._connection.close()


def prepare(url: str, levels: list[int], parts: list[str]) -> None:
    with psycopg.connect(url, autocommit=True) as connection:
        for schema in (SERVICE_SCHEMA, RAW_SCHEMA):
            connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            connection.execute(f'CREATE SCHEMA "{schema}"')
        connection.execute(f'CREATE TABLE "{RAW_SCHEMA}".rows (id integer PRIMARY KEY, n bigint NOT NULL)')
        connection.execute(
            f'INSERT INTO "{RAW_SCHEMA}".rows SELECT g, 0 FROM generate_series(0, %s) AS g', (max(levels),)
        )
    if "service" in parts:
        db = Database(in_schema(url, SERVICE_SCHEMA), pool_size=1)
        try:
            upgrade(db)
        finally:
            db.dispose()


def drop(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as connection:
        for schema in (SERVICE_SCHEMA, RAW_SCHEMA):
            connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def summarize(windows: list[Window]) -> list[dict[str, Any]]:
    rows = []
    order = [*SERVICE_MODES, *RAW_MODES]
    keys = sorted(
        {(w.part, w.writers, w.mode) for w in windows}, key=lambda k: (k[0] != "service", k[1], order.index(k[2]))
    )
    for part, writers, mode in keys:
        mine = [w for w in windows if (w.part, w.writers, w.mode) == (part, writers, mode)]
        row: dict[str, Any] = {
            "part": part,
            "writers": writers,
            "mode": mode,
            "writes_per_s": round(statistics.median(w.rate for w in mine), 1),
            "p50_ms": round(statistics.median(w.p50_ms for w in mine), 3),
            "p99_ms": round(statistics.median(w.p99_ms for w in mine), 3),
            "windows": len(mine),
        }
        baseline = BASELINE.get(mode)
        if baseline is not None:
            base = [w for w in windows if (w.part, w.writers, w.mode) == (part, writers, baseline)]
            ratios = [a.rate / b.rate for a, b in zip(mine, base, strict=True) if b.rate]  # same pair of windows
            row["ratio_to_" + baseline] = round(statistics.median(ratios), 3) if ratios else None
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres-url", default=POSTGRES_URL)
    parser.add_argument("--levels", default="1,8", help="concurrent writers (processes), comma-separated")
    parser.add_argument("--seconds", type=float, default=4.0, help="length of one measuring window")
    parser.add_argument("--repeats", type=int, default=3, help="windows per mode and level")
    parser.add_argument("--parts", default="service,raw", help="service, raw or both")
    parser.add_argument("--json", type=Path, help="also write the summary here")
    args = parser.parse_args()
    levels = [int(level) for level in args.levels.split(",")]
    parts = args.parts.split(",")
    if not 1 <= max(levels) <= 32 or not 0 < args.seconds <= 60 or not 1 <= args.repeats <= 20:
        parser.error("levels 1 to 32, seconds up to 60, repeats 1 to 20")

    load_before = os.getloadavg()[0]  # a busy machine spreads the figures: say how busy it was
    prepare(args.postgres_url, levels, parts)
    listener = Listener(args.postgres_url)
    windows: list[Window] = []
    context = multiprocessing.get_context("spawn")  # fresh processes: no pool or socket inherited
    try:
        with context.Pool(max(levels)) as pool:
            pool.map(ready, [1.0] * max(levels), chunksize=1)
            for part in parts:
                url = in_schema(args.postgres_url, SERVICE_SCHEMA if part == "service" else RAW_SCHEMA)
                modes = SERVICE_MODES if part == "service" else RAW_MODES
                for writers in levels:
                    for repeat in range(args.repeats):
                        order = modes if repeat % 2 == 0 else tuple(reversed(modes))
                        for mode in order:
                            result = window(pool, part, mode, url, writers, args.seconds)
                            windows.append(result)
                            print(
                                f"{part:8} writers={writers:<2} {mode:30} {result.rate:8.1f} writes/s  "
                                f"p50 {result.p50_ms:7.3f} ms  p99 {result.p99_ms:7.3f} ms",
                                flush=True,
                            )
    finally:
        listener.close()
        drop(args.postgres_url)

    rows = summarize(windows)
    print()
    for row in rows:
        ratio = next((f"  {key} {value}" for key, value in row.items() if key.startswith("ratio_to_")), "")
        print(
            f"{row['part']:8} writers={row['writers']:<2} {row['mode']:30} {row['writes_per_s']:8.1f} writes/s  "
            f"p50 {row['p50_ms']:7.3f} ms  p99 {row['p99_ms']:7.3f} ms{ratio}"
        )
    summary = {
        "rows": rows,
        "notifications_heard": listener.heard,
        "seconds": args.seconds,
        "repeats": args.repeats,
        "cores": os.cpu_count(),
        "load_average_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)],  # before, after
    }
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2))
    print("notify_cost=" + json.dumps(summary))


if __name__ == "__main__":
    main()
