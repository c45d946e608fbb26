"""Benchmark of the computer players: seat-rotated matches through the engine, with Wilson intervals.

Each match seats the tested player against two copies of another, rotating the tested
bot's seat and the first dealer over all nine combinations, and plays every game to a
target of 15 through the engine's :class:`Game` (seeded deals). It prints each match's win
rate with a 95% Wilson interval (a fair share is 33.3%) and the tested player's CPU time per
move (p50, p99, max). The last line is ``bots=<json>``: by match, the games, the wins, the win rate
and its interval, and the tested player's CPU and wall-clock milliseconds per move; and whether
``--minutes`` stopped the run early.

Players: the service's strengths by name (``random``, ``basic``, ``expert``, ``master``);
``expert-35``, the expert as it was before issue 35 (its search without inference-weighted
deals or the exact endgame, the same code path and budget); ``pimc``, an independent
perfect-information Monte Carlo player (:mod:`bench.pimc`: 40 sampled deals a move, every card
tried, greedy playouts).

    .venv/bin/python -m bench.bots [--games 300] [--seed 1] [--workers 2] [--matches all]

A game is a function of its number and the seed, so a run stopped early can be finished with ``--first``:
the games already played are the same whenever and wherever they are played again.

``--duplicate`` deals as duplicate bridge does: games 3k, 3k+1 and 3k+2 share one deal (and first
dealer), the tested player in seats 0, 1 and 2 in turn, so that each hand dealt is played once by the
tested player and twice by the others: the tested player's cards are exactly as good as theirs. It then
also prints an interval from the spread of the triples' win rates (a normal one over the deals), which
would be narrower than Wilson's if the luck of the deal decided the games; on 2026-12-07 (100 deals, both
matches) it was as wide: the cards are not what spreads the results.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import statistics
import time
from dataclasses import dataclass
from typing import Any

from bench.pimc import PimcBot
from service.bots import Bot, ExpertBot, make_bot
from service.engine import Game, GameSetup, Status, private_view

MATCHES = {
    "random-vs-random": ("random", "random"),
    "basic-vs-random": ("basic", "random"),
    "expert-vs-random": ("expert", "random"),
    "expert-vs-basic": ("expert", "basic"),
    "expert-vs-expert-35": ("expert", "expert-35"),
    "expert-vs-pimc": ("expert", "pimc"),
    "expert-35-vs-pimc": ("expert-35", "pimc"),
}
TARGET = 15


@dataclass(frozen=True)
class Game_:
    """One game of a match: who sits where, and the seeds."""

    tested: str
    other: str
    number: int
    seed: int
    duplicate: bool = False  # the deal of game number // 3, shared by three games (the module's docstring)

    @property
    def deal(self) -> int:
        """The number the game's deals are seeded with: its own, or its triple's with ``duplicate``."""
        return self.number // 3 if self.duplicate else self.number


@dataclass(frozen=True)
class Result:
    number: int  # the game's
    won: bool
    seconds: tuple[float, ...]  # wall-clock time of each decision of the tested player in the game
    cpu_seconds: tuple[float, ...]  # the same decisions in CPU time (unaffected by other load)


def player(name: str, seat: int, rng: random.Random) -> Bot:
    """A bench player by name: a strength of the service, ``expert-35`` or ``pimc``."""
    if name == "expert-35":
        return ExpertBot(seat, rng, inference=False, endgame=False)
    if name == "pimc":
        return PimcBot(seat, rng)
    return make_bot(name, seat, rng)


def play(task: Game_) -> Result:
    """Play one game; the tested bot sits in seat ``number % 3``, the first dealer is ``number // 3 % 3``."""
    seat, first_dealer = task.number % 3, task.number // 3 % 3
    setup = GameSetup(target_score=TARGET, first_dealer=first_dealer, seed=f"bench/{task.seed}/{task.deal}")
    game = Game(setup)
    strengths = [task.other] * 3
    strengths[seat] = task.tested
    bots = [player(s, i, random.Random(f"{task.seed}/{task.number}/{i}")) for i, s in enumerate(strengths)]
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
        if turn == seat:
            timings.append(time.perf_counter() - start)
            cpu_timings.append(time.process_time() - cpu_start)
        game.play(turn, decision.card)
    return Result(task.number, game.winner == seat, tuple(timings), tuple(cpu_timings))


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    p = wins / games
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    return centre - half, centre + half


def by_deal(results: list[Result], z: float = 1.96) -> tuple[int, float, float, float] | None:
    """With ``--duplicate``: the complete triples (games sharing a deal), their mean win rate and its 95%
    interval from the spread of the triples' rates; None with fewer than two triples."""
    triples: dict[int, list[bool]] = {}
    for result in results:
        triples.setdefault(result.number // 3, []).append(result.won)
    rates = [sum(wins) / 3 for wins in triples.values() if len(wins) == 3]
    if len(rates) < 2:
        return None
    mean = statistics.fmean(rates)
    half = z * statistics.stdev(rates) / math.sqrt(len(rates))
    return len(rates), mean, mean - half, mean + half


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games per match (default 300)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the deals and the bots' RNGs (default 1)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--matches", default="all", help=f"comma-separated, from {', '.join(MATCHES)} (default all)")
    parser.add_argument("--duplicate", action="store_true", help="each deal played three times, from every seat")
    parser.add_argument("--every", type=int, default=0, help="also print each match's standing every N of its games")
    parser.add_argument("--minutes", type=float, default=0, help="stop after this long and report the games played")
    parser.add_argument(
        "--first",
        type=int,
        default=0,
        help="play games FIRST to GAMES-1 only: finishes a run stopped early (default 0)",
    )
    args = parser.parse_args()
    names = list(MATCHES) if args.matches == "all" else args.matches.split(",")

    # The matches' games interleaved, so that a run stopped early has played them all alike far.
    tasks = [
        (name, Game_(*MATCHES[name], number, args.seed, args.duplicate))
        for number in range(args.first, args.games)
        for name in names
    ]
    results: dict[str, list[Result]] = {name: [] for name in names}
    start = time.perf_counter()
    stop = start + args.minutes * 60 if args.minutes else math.inf
    stopped = False
    with multiprocessing.Pool(args.workers) as pool:
        for name, result in pool.imap(_play_named, tasks, chunksize=1):
            results[name].append(result)
            if args.every and len(results[name]) % args.every == 0:
                report(name, results[name], time.perf_counter() - start, duplicate=args.duplicate)
            if time.perf_counter() > stop:
                print(f"stopped after {args.minutes:g} minutes (--minutes): the games finished so far", flush=True)
                stopped = True
                break
    for name in names:
        if results[name]:
            report(name, results[name], time.perf_counter() - start, timings=True, duplicate=args.duplicate)
    summary = {
        "stopped_early": stopped,
        "elapsed_s": round(time.perf_counter() - start),
        "duplicate": args.duplicate,
        "matches": {name: figures(results[name], duplicate=args.duplicate) for name in names if results[name]},
    }
    print("bots=" + json.dumps(summary))


def _play_named(task: tuple[str, Game_]) -> tuple[str, Result]:
    return task[0], play(task[1])


def figures(results: list[Result], *, duplicate: bool = False) -> dict[str, Any]:
    """One match's figures for the last line: as :func:`report` prints them, rounded."""
    wins = sum(result.won for result in results)
    low, high = wilson(wins, len(results))
    summary: dict[str, Any] = {
        "games": len(results),
        "wins": wins,
        "win_rate": round(wins / len(results), 3),
        "ci95_low": round(low, 3),
        "ci95_high": round(high, 3),
    }
    if duplicate and (dealt := by_deal(results)) is not None:
        deals, mean, low, high = dealt
        summary["by_deal"] = {
            "deals": deals,
            "win_rate": round(mean, 3),
            "ci95_low": round(low, 3),
            "ci95_high": round(high, 3),
        }
    for clock, values in (
        ("cpu", [t for result in results for t in result.cpu_seconds]),
        ("wall", [t for result in results for t in result.seconds]),
    ):
        summary[f"{clock}_per_move"] = {
            "moves": len(values),
            "p50_ms": round(statistics.median(values) * 1000, 3),
            "p99_ms": round(percentile(values, 0.99) * 1000, 3),
            "max_ms": round(max(values) * 1000, 3),
        }
    return summary


def report(name: str, results: list[Result], elapsed: float, *, timings: bool = False, duplicate: bool = False) -> None:
    """One match's win share with its 95% Wilson interval, and the tested player's time per move."""
    games = len(results)
    wins = sum(result.won for result in results)
    low, high = wilson(wins, games)
    print(
        f"{name:20} {wins:4}/{games} won = {wins / games:6.1%}  95% CI [{low:6.1%}, {high:6.1%}]  ({elapsed:.0f} s)",
        flush=True,
    )
    if duplicate and (dealt := by_deal(results)) is not None:
        deals, mean, low, high = dealt
        print(f"{'':20} over {deals} deals, each played from every seat: {mean:6.1%}  95% CI [{low:6.1%}, {high:6.1%}]")
    if not timings:
        return
    tested = MATCHES[name][0]
    for clock, values in (
        ("CPU", [t for result in results for t in result.cpu_seconds]),
        ("wall-clock", [t for result in results for t in result.seconds]),
    ):
        print(
            f"  {tested} {clock} time per move over {len(values)} moves: median"
            f" {statistics.median(values) * 1000:.1f} ms, p99 {percentile(values, 0.99) * 1000:.1f} ms,"
            f" max {max(values) * 1000:.1f} ms",
            flush=True,
        )


if __name__ == "__main__":
    main()
