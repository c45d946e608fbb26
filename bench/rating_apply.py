"""Rated games ending at once against one bot, on PostgreSQL: results applied per second, and the lag from a game's end to its ratings.

``--games`` rated games, each of two new players and the expert bot, end on ``--threads`` threads
at once (each thread ends its games back to back, as that many finishing requests would). A
game's end is what the finishing save adds for the ratings, its ``game_results`` row, committed
on its own; then the thread runs what the unit of work runs after a commit,
:meth:`service.ratings.apply.RatingApplier.apply`: step 1 (the game's persons) and step 2
(the bot's batch). Every rated game updates the one bot player's row.

Two modes, the same games: ``batched`` (the service: the bot's row taken ``FOR UPDATE SKIP LOCKED``,
its holder applying every pending game of the bot) and ``queued`` (each game waits for the bot's row
``FOR UPDATE``, as a per-game update would: the hot-row queue this design avoids). Printed for each:
results/s (games / (last bot update − first game end)), the lag from a game's end until ``apply``
returned on its thread (p50/p99: its persons' ratings written, and the bot's batch run or left to
the thread that holds the bot's row), the lag to the bot's rating (p50/p99: the batch's
``applied_at``), and how many bot transactions wrote the bot's row.

    .venv/bin/python -m bench.rating_apply [--postgres-url postgresql://postgres@127.0.0.1:5432/test]
        [--games 400] [--threads 16] [--modes batched,queued]

Talks to 127.0.0.1's PostgreSQL only (schema coins_bench_ratings, dropped at the end); every loop is
bounded by the count of games. The last line is ``rating_apply=<json summary>``.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from datetime import UTC, datetime
from typing import Any
from unittest import mock
from urllib.parse import quote

import psycopg
from sqlalchemy import text

from bench.bots import percentile
from service.games.ids import BOT_PLAYER_IDS, new_game_id
from service.ratings import MU_0, SIGMA_0
from service.ratings.apply import RatingApplier
from service.store import RatingStore, RatingTransaction, StoredEntry, StoredPlayer, StoredResult
from service.store.db import Database
from service.store.migrate import upgrade
from service.store.repository import result_values

POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"
SCHEMA = "coins_bench_ratings"
EXPERT = BOT_PLAYER_IDS["expert"]


def _in_schema(url: str) -> str:
    separator = "&" if "?" in url else "?"
    return f"{url}{separator}options={quote(f'-csearch_path={SCHEMA}')}"


def _reset(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
        connection.execute(f"CREATE SCHEMA {SCHEMA}")


def _drop(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")


def _games(db: Database, count: int) -> list[tuple[str, str, str]]:
    """``count`` finished rated games (their rows only) and two new players for each."""
    now = datetime.now(UTC)
    games = [(new_game_id(), new_game_id(), new_game_id()) for _ in range(count)]
    with db.engine.begin() as connection:
        for game_id, ana, bo in games:
            connection.execute(
                text(
                    "INSERT INTO games (id, version, status, target_score, auto_deal, open_seats, trick_count,"
                    " action_count, event_count, created_at, updated_at, rated)"
                    " VALUES (:id, 2, 'finished', 1, false, 0, 0, 0, 0, :now, :now, true)"
                ),
                {"id": game_id, "now": now},
            )
            for player_id in (ana, bo):
                connection.execute(
                    text(
                        "INSERT INTO players (id, name, mu, sigma, rated_games, created_at)"
                        " VALUES (:id, 'P', :mu, :sigma, 0, :now)"
                    ),
                    {"id": player_id, "mu": MU_0, "sigma": SIGMA_0, "now": now},
                )
    return games


def _end(db: Database, game: tuple[str, str, str], index: int) -> datetime:
    """The game's end as its finishing save records it: its result row, committed."""
    game_id, ana, bo = game
    places = [(1, 2, 3), (2, 1, 3), (3, 2, 1)][index % 3]
    entries = (
        StoredEntry(0, ana, False, places[0], 1, False),
        StoredEntry(1, bo, False, places[1], 0, False),
        StoredEntry(2, EXPERT, True, places[2], 0, False),
    )
    finished = datetime.now(UTC)
    values = result_values(game_id, StoredResult(game_id, finished, entries))
    with db.engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO game_results (game_id, finished_at, entries, applied_at)"
                " VALUES (:game_id, :finished_at, CAST(:entries AS jsonb), NULL)"
            ),
            {**values, "entries": json.dumps(values["entries"])},
        )
    return finished


def _queued_lock(tx: RatingTransaction, player_id: str) -> StoredPlayer | None:
    """The bot's row waited for (``FOR UPDATE``), as a per-game update takes it."""
    return tx.lock_players([player_id]).get(player_id)


def run(url: str, games: int, threads: int, mode: str) -> dict[str, Any]:
    _reset(url)
    db = Database(_in_schema(url), pool_size=threads + 2)
    try:
        upgrade(db)
        made = _games(db, games)
        applier = RatingApplier(RatingStore(db), lambda: datetime.now(UTC))
        person_lag: list[float] = []
        ended: dict[str, datetime] = {}
        lock = threading.Lock()
        barrier = threading.Barrier(threads)

        def finisher(share: list[tuple[int, tuple[str, str, str]]]) -> None:
            barrier.wait(timeout=60)
            for index, game in share:
                finished = _end(db, game, index)
                started = time.perf_counter()  # the finishing commit has returned
                applier.apply([game[0]])
                with lock:
                    ended[game[0]] = finished
                    person_lag.append(time.perf_counter() - started)

        shares = [[(i, game) for i, game in enumerate(made) if i % threads == t] for t in range(threads)]
        patch = mock.patch.object(RatingTransaction, "lock_bot", _queued_lock) if mode == "queued" else None
        if patch is not None:
            patch.start()
        try:
            workers = [threading.Thread(target=finisher, args=(share,)) for share in shares]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join(timeout=600)
        finally:
            if patch is not None:
                patch.stop()
        with db.engine.connect() as connection:
            rows = connection.execute(
                text("SELECT game_id, applied_at FROM rating_history WHERE player_id = :bot"), {"bot": EXPERT}
            ).all()
            pending = connection.execute(text("SELECT count(*) FROM rating_history WHERE mu_after IS NULL")).scalar()
            batches = connection.execute(
                text("SELECT count(DISTINCT applied_at) FROM rating_history WHERE player_id = :bot"), {"bot": EXPERT}
            ).scalar()
            rated = connection.execute(
                text("SELECT rated_games FROM players WHERE id = :bot"), {"bot": EXPERT}
            ).scalar()
        bot_lag = [(applied - ended[game_id]).total_seconds() for game_id, applied in rows if applied is not None]
        span = (max(applied for _, applied in rows) - min(ended.values())).total_seconds()
        return {
            "mode": mode,
            "games": games,
            "threads": threads,
            "bot_rated_games": rated,
            "pending_left": pending,
            "bot_transactions": batches,
            "results_per_second": round(games / span, 1),
            "person_lag_ms": {"p50": round(percentile(person_lag, 0.5) * 1000, 1), "p99": round(percentile(person_lag, 0.99) * 1000, 1)},
            "bot_lag_ms": {"p50": round(percentile(bot_lag, 0.5) * 1000, 1), "p99": round(percentile(bot_lag, 0.99) * 1000, 1)},
        }  # fmt: skip
    finally:
        db.dispose()
        _drop(url)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres-url", default=POSTGRES_URL)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--modes", default="batched,queued")
    args = parser.parse_args()
    if "127.0.0.1" not in args.postgres_url:
        raise SystemExit("bench.rating_apply talks to 127.0.0.1's PostgreSQL only")
    results = [run(args.postgres_url, args.games, args.threads, mode) for mode in args.modes.split(",")]
    for result in results:
        print(
            f"{result['mode']:8} {result['games']} games on {result['threads']} threads: "
            f"{result['results_per_second']} results/s; persons' lag p50 {result['person_lag_ms']['p50']} ms "
            f"p99 {result['person_lag_ms']['p99']} ms; the bot's lag p50 {result['bot_lag_ms']['p50']} ms "
            f"p99 {result['bot_lag_ms']['p99']} ms; {result['bot_transactions']} bot transactions, "
            f"{result['bot_rated_games']} games on the bot, {result['pending_left']} left pending"
        )
    print("rating_apply=" + json.dumps(results))


if __name__ == "__main__":
    main()
