"""Does a play cost more late in a long game? Plays through the application, no server.

``--games`` games (three seats, target 100, so that none ends) are played side by side, a card
of each in turn, through Flask's test client on one fresh database (SQLite or PostgreSQL): a deal
when a hand is due, the three hands read after it, else a random card of the seat to play (any
card held is legal in Coins). Each ``POST /v1/games/{id}/plays`` is timed (wall clock, this one
process). Every ``--block`` plays it prints the median and p90 of that block's plays; the last line
is ``game_length=<json>`` with every block and the ratio of the last block's median to the
first's (1.0: a play costs the same however long the games have grown).

This isolates the service's own work per play from what a full benchmark adds (gunicorn, the
network, the load generator, the host): when a load benchmark's throughput falls over a run
(bench/http_load.py, bench/realtime.py), this shows how much of that the games' growth explains.

    .venv/bin/python -m bench.game_length [--db sqlite] [--games 100] [--plays 60000] [--block 5000]
        [--postgres-url postgresql://postgres@127.0.0.1:5432/test] [--seconds 600]

Rate limits are off (one caller plays every seat); every loop is bounded in count and time.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.http_load import POSTGRES_URL, database_urls

PLAYERS = [{"name": name} for name in ("Ann", "Bo", "Cy")]
TARGET_SCORE = 100


@dataclass
class Game:
    id: str
    tokens: list[str]
    state: dict[str, Any]
    hands: list[list[str]] = field(default_factory=list)


def _auth(game: Game, seat: int) -> dict[str, str]:
    return {"Authorization": f"Bearer {game.tokens[seat]}"}


def _answer(response: Any, status: int) -> Any:
    if response.status_code != status:
        raise RuntimeError(f"{response.status_code} {response.get_data(as_text=True)[:300]}")
    return response.get_json()


def run(database_url: str, args: argparse.Namespace) -> dict[str, Any]:
    from service import create_app
    from service.config import Settings

    settings = Settings(database_url=database_url, rate_limits="off", log_level="WARNING")  # no access log lines
    client = create_app(settings).test_client()
    games = []
    for _ in range(args.games):
        created = _answer(client.post("/v1/games", json={"seats": PLAYERS, "target_score": TARGET_SCORE}), 201)
        tokens = [credential["token"] for credential in sorted(created["credentials"], key=lambda c: c["seat"])]
        games.append(Game(created["id"], tokens, created))
    rng = random.Random(1)
    times: list[float] = []
    blocks: list[dict[str, float]] = []
    deadline = time.monotonic() + args.seconds
    while len(times) < args.plays and time.monotonic() < deadline:
        for game in games:
            if game.state["status"] == "finished":
                raise RuntimeError(f"game {game.id} finished: raise TARGET_SCORE or play fewer cards")
            if game.state["status"] == "waiting_for_deal":
                dealt = _answer(
                    client.post(f"/v1/games/{game.id}/hands", headers=_auth(game, game.state["dealer"])), 201
                )
                game.state = dealt["game"]
                game.hands = [
                    _answer(client.get(f"/v1/games/{game.id}/hand", headers=_auth(game, seat)), 200)["cards"]
                    for seat in range(3)
                ]
                continue
            seat = game.state["turn"]
            card = game.hands[seat].pop(rng.randrange(len(game.hands[seat])))
            started = time.perf_counter()
            response = client.post(f"/v1/games/{game.id}/plays", json={"card": card}, headers=_auth(game, seat))
            times.append(time.perf_counter() - started)
            game.state = _answer(response, 201)["game"]
            if len(times) % args.block == 0:
                block = sorted(times[-args.block :])
                blocks.append(
                    {
                        "plays": len(times),
                        "median_ms": round(statistics.median(block) * 1000, 3),
                        "p90_ms": round(block[int(len(block) * 0.9)] * 1000, 3),
                    }
                )
                print(
                    f"plays={len(times)} median={blocks[-1]['median_ms']} ms p90={blocks[-1]['p90_ms']} ms", flush=True
                )
    last_over_first = round(blocks[-1]["median_ms"] / blocks[0]["median_ms"], 3) if blocks else None
    return {
        "db": args.db,
        "games": args.games,
        "plays": len(times),
        "blocks": blocks,
        "last_over_first": last_over_first,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--plays", type=int, default=60000, help="plays timed in all (the games share them)")
    parser.add_argument("--block", type=int, default=5000, help="plays per reported median")
    parser.add_argument("--postgres-url", default=os.environ.get("BENCH_POSTGRES_URL", POSTGRES_URL))
    parser.add_argument("--seconds", type=float, default=600.0, help="stop after this long, whatever the count")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="coins-bench-") as workdir:
        database_url, _ = database_urls(args.db, Path(workdir), args.postgres_url)
        result = run(database_url, args)
    print("game_length=" + json.dumps(result))


if __name__ == "__main__":
    main()
