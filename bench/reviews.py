"""CPU of the master's moves and of a game's review, through the engine (seeded deals, target 15).

The master's moves: seat 0 is the master, the other two basic bots; every master decision is timed
(this thread's CPU, ``time.thread_time``) until ``--master-moves`` are. The reviews: games of three
basic bots, every play judged by :func:`service.bots.review_play` (its fixed number of deals, as the
worker judges it), timed per play and per game. The last line is ``reviews=<json>``: the figures
printed, CPU milliseconds a master move and a judged play, CPU seconds a game's review.

    .venv/bin/python -m bench.reviews [--games 4] [--master-moves 150] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable

from service.bots import MASTER_PLAYOUTS, REVIEW_DEALS, make_bot, review_play
from service.engine import Card, Game, GameSetup, PrivateView, Status, private_view

TARGET = 15


def _play(seed: str, choose: Callable[[int, PrivateView, int], Card]) -> int:
    """Play one game to TARGET, each card from ``choose(seat, view, move)``; the number of plays."""
    game = Game(GameSetup.choose(TARGET, ages=[None, None, None], first_dealer=0, seed=seed))
    move = 0
    while not game.is_over:
        if game.status is Status.WAITING_FOR_DEAL:
            game.deal(game.dealer)
            continue
        seat = game.turn
        assert seat is not None
        game.play(seat, choose(seat, private_view(game, seat), move))
        move += 1
    return move


def master_moves(count: int, seed: int) -> list[float]:
    """CPU seconds of ``count`` master decisions (seat 0, against two basic bots)."""
    times: list[float] = []
    number = 0
    while len(times) < count:
        _master_game(seed, number, times, count)
        number += 1
    return times


def _master_game(seed: int, number: int, times: list[float], count: int) -> None:
    basics = [make_bot("basic", seat, random.Random(f"{seed}/{number}/{seat}")) for seat in range(3)]

    def choose(seat: int, view: PrivateView, move: int) -> Card:
        if seat != 0 or len(times) >= count:
            return basics[seat].decide(view).card
        started = time.thread_time()
        card = make_bot("master", 0, random.Random(f"{seed}/{number}/{move}")).decide(view).card
        times.append(time.thread_time() - started)
        return card

    _play(f"bench/master/{seed}/{number}", choose)


def reviews(games: int, seed: int) -> tuple[list[float], list[float]]:
    """CPU seconds of each judged play, and of each game's whole review."""
    per_play: list[float] = []
    per_game: list[float] = []
    for number in range(games):
        before = len(per_play)
        _reviewed_game(seed, number, per_play)
        per_game.append(sum(per_play[before:]))
    return per_play, per_game


def _reviewed_game(seed: int, number: int, per_play: list[float]) -> None:
    bots = [make_bot("basic", seat, random.Random(f"{seed}/{number}/{seat}")) for seat in range(3)]

    def choose(seat: int, view: PrivateView, move: int) -> Card:
        card = bots[seat].decide(view).card
        started = time.thread_time()
        review_play(view, card, random.Random(f"review/{seed}/{number}/{move}"))
        per_play.append(time.thread_time() - started)
        return card

    _play(f"bench/review/{seed}/{number}", choose)


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="games reviewed")
    parser.add_argument("--master-moves", type=int, default=150, help="master decisions timed")
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    moves = master_moves(options.master_moves, options.seed)
    print(
        f"master ({MASTER_PLAYOUTS} playouts): {len(moves)} moves, CPU p50 {_quantile(moves, 0.5) * 1000:.0f} ms, "
        f"p99 {_quantile(moves, 0.99) * 1000:.0f} ms, max {max(moves) * 1000:.0f} ms"
    )
    plays, games = reviews(options.games, options.seed)
    print(
        f"review ({REVIEW_DEALS} deals a play): {len(plays)} plays, CPU a play p50 {_quantile(plays, 0.5) * 1000:.0f} ms, "
        f"mean {statistics.mean(plays) * 1000:.0f} ms, p99 {_quantile(plays, 0.99) * 1000:.0f} ms, "
        f"max {max(plays) * 1000:.0f} ms; a game to {TARGET}: mean {statistics.mean(games):.1f} s, max {max(games):.1f} s"
    )
    summary = {
        "master": {
            "playouts": MASTER_PLAYOUTS,
            "moves": len(moves),
            "p50_ms": round(_quantile(moves, 0.5) * 1000, 1),
            "p99_ms": round(_quantile(moves, 0.99) * 1000, 1),
            "max_ms": round(max(moves) * 1000, 1),
        },
        "review": {
            "deals": REVIEW_DEALS,
            "plays": len(plays),
            "p50_ms": round(_quantile(plays, 0.5) * 1000, 1),
            "mean_ms": round(statistics.mean(plays) * 1000, 1),
            "p99_ms": round(_quantile(plays, 0.99) * 1000, 1),
            "max_ms": round(max(plays) * 1000, 1),
            "games": len(games),
            "target": TARGET,
            "game_mean_s": round(statistics.mean(games), 2),
            "game_max_s": round(max(games), 2),
        },
    }
    print("reviews=" + json.dumps(summary))


if __name__ == "__main__":
    main()
