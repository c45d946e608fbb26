"""Benchmark of the computer players: seat-rotated matches through the engine, with Wilson intervals.

Each match seats the tested strength against two copies of another, rotating the tested
bot's seat and the first dealer over all nine combinations, and plays every game to a
target of 15 through the engine's :class:`Game` (seeded deals). It prints each match's win
rate with a 95% Wilson interval (a fair share is 33.3%) and the expert's time per move.

    .venv/bin/python -m bench.bots [--games 300] [--seed 1] [--workers 2] [--matches all]
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics
import time
from dataclasses import dataclass

from service.bots import make_bot
from service.engine import Game, GameSetup, Status, private_view

MATCHES = {
    "random-vs-random": ("random", "random"),
    "basic-vs-random": ("basic", "random"),
    "expert-vs-random": ("expert", "random"),
    "expert-vs-basic": ("expert", "basic"),
}
TARGET = 15


@dataclass(frozen=True)
class Game_:
    """One game of a match: who sits where, and the seeds."""

    tested: str
    other: str
    number: int
    seed: int


@dataclass(frozen=True)
class Result:
    won: bool
    expert_seconds: tuple[float, ...]  # wall-clock time of each expert decision in the game
    expert_cpu_seconds: tuple[float, ...]  # the same decisions in CPU time (unaffected by other load)


def play(task: Game_) -> Result:
    """Play one game; the tested bot sits in seat ``number % 3``, the first dealer is ``number // 3 % 3``."""
    seat, first_dealer = task.number % 3, task.number // 3 % 3
    setup = GameSetup(target_score=TARGET, first_dealer=first_dealer, seed=f"bench/{task.seed}/{task.number}")
    game = Game(setup)
    strengths = [task.other] * 3
    strengths[seat] = task.tested
    bots = [make_bot(s, i, random.Random(f"{task.seed}/{task.number}/{i}")) for i, s in enumerate(strengths)]
    timings: list[float] = []
    cpu_timings: list[float] = []
    while game.status is not Status.FINISHED:
        if game.status is Status.WAITING_FOR_DEAL:
            game.deal(game.dealer)
            continue
        turn = game.turn
        assert turn is not None
        start, cpu_start = time.perf_counter(), time.process_time()
        decision = bots[turn].decide(private_view(game, turn))
        if strengths[turn] == "expert":
            timings.append(time.perf_counter() - start)
            cpu_timings.append(time.process_time() - cpu_start)
        game.play(turn, decision.card)
    return Result(game.winner == seat, tuple(timings), tuple(cpu_timings))


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    p = wins / games
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    return centre - half, centre + half


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games per match (default 300)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the deals and the bots' RNGs (default 1)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--matches", default="all", help=f"comma-separated, from {', '.join(MATCHES)} (default all)")
    args = parser.parse_args()
    names = list(MATCHES) if args.matches == "all" else args.matches.split(",")

    timings: dict[str, list[float]] = {"wall-clock": [], "CPU": []}
    with multiprocessing.Pool(args.workers) as pool:
        for name in names:
            tested, other = MATCHES[name]
            tasks = [Game_(tested, other, number, args.seed) for number in range(args.games)]
            start = time.perf_counter()
            results = pool.map(play, tasks, chunksize=1)
            elapsed = time.perf_counter() - start
            wins = sum(result.won for result in results)
            low, high = wilson(wins, args.games)
            print(
                f"{name:18} {wins:4}/{args.games} won = {wins / args.games:6.1%}  "
                f"95% CI [{low:6.1%}, {high:6.1%}]  ({elapsed:.0f} s)",
                flush=True,
            )
            timings["wall-clock"].extend(t for result in results for t in result.expert_seconds)
            timings["CPU"].extend(t for result in results for t in result.expert_cpu_seconds)
    for clock, values in timings.items():
        if values:
            print(
                f"expert {clock} time per move over {len(values)} moves: median {statistics.median(values) * 1000:.1f}"
                f" ms, p99 {percentile(values, 0.99) * 1000:.1f} ms, max {max(values) * 1000:.1f} ms"
            )


if __name__ == "__main__":
    main()
