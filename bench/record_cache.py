"""CPU of getRecord for a long finished game, from the record cache and without it, in one run.

One long game (three random bots to ``--target`` points) is played to its end in process, then
its record is downloaded ``--reads`` times from each of two apps on the same database: one with
the default ``RECORD_CACHE_BYTES`` (the first read renders and keeps the record; it is left out),
one with ``RECORD_CACHE_BYTES=0``, alternating read by read. Each request is timed with
:func:`time.thread_time` (the serving thread's CPU) through Flask's test client; the script checks
both bodies are the same bytes and prints the medians, then, as its last line, ``record_cache=<json>``
with them::

    .venv/bin/python -m bench.record_cache [--target 100] [--reads 40] \\
        [--database-url postgresql://postgres@127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import replace
from typing import Any

from bench.request_cpu import MAX_READS, _database


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=int, default=100, help="the game's target score")
    parser.add_argument("--reads", type=int, default=40, help="downloads timed of each kind")
    parser.add_argument("--database-url", default="", help="a PostgreSQL server (default: SQLite)")
    options = parser.parse_args()

    from service import create_app
    from service.config import Settings

    with _database(options.database_url) as url:
        # No pace: the worker's steps below make the bots' moves due at once.
        settings = Settings(database_url=url, log_level="WARNING", rate_limits="off", bot_pace_ms=0, trick_pause_ms=0)
        cached_app = create_app(settings)
        uncached_app = create_app(replace(settings, record_cache_bytes=0, auto_migrate=False))
        cached, uncached = cached_app.test_client(), uncached_app.test_client()
        game_id = _finished_game(cached, options.target)
        path = f"/v1/games/{game_id}/record"
        first = cached.get(path)  # rendered and kept
        times: dict[str, list[float]] = {"cached": [], "uncached": []}
        for _ in range(options.reads):
            for kind, client in (("cached", cached), ("uncached", uncached)):
                started = time.thread_time()
                response = client.get(path)
                times[kind].append(time.thread_time() - started)
                assert response.status_code == 200 and response.get_data() == first.get_data()
        record = first.json
        assert record is not None, f"GET {path} answered without a JSON body"
        plays = sum(len(hand["plays"]) for hand in record["hands"])
        medians = {kind: statistics.median(spent) * 1000 for kind, spent in times.items()}
        print(
            f"getRecord of a finished game ({plays} plays, {len(first.get_data()) / 1024:.0f} KiB), "
            f"{'PostgreSQL' if options.database_url else 'SQLite'}, median of {options.reads}: "
            f"{medians['uncached']:.2f} ms of CPU without the cache, {medians['cached']:.2f} ms from it "
            f"({medians['uncached'] / medians['cached']:.0f}x less)"
        )
        summary = {
            "database": "postgresql" if options.database_url else "sqlite",
            "plays": plays,
            "record_kib": round(len(first.get_data()) / 1024, 1),
            "reads": options.reads,
            "uncached_p50_ms": round(medians["uncached"], 3),
            "cached_p50_ms": round(medians["cached"], 3),
            "times_less": round(medians["uncached"] / medians["cached"], 1),
        }
        for app in (cached_app, uncached_app):
            app.extensions["coins.feed"].close()
            app.extensions["coins.db"].dispose()
    print("record_cache=" + json.dumps(summary))


def _finished_game(client: Any, target: int) -> str:
    """Three random bots to ``target``, their moves made by the worker's step (``make_due_moves``,
    as in bench/request_cpu.py): no read makes a move."""
    body = {"target_score": target, "seats": [{"bot": "random"}] * 3, "seed": "record-cache"}
    game_id = str(client.post("/v1/games", json=body).json["id"])
    games = client.application.extensions["coins.games"]
    for _ in range(MAX_READS):
        if not games.make_due_moves(game_id):
            break
    if client.get(f"/v1/games/{game_id}").json["status"] != "finished":
        raise RuntimeError("the bots did not finish the game")
    return game_id


if __name__ == "__main__":
    main()
