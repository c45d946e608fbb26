"""Benchmark of the Coins engine: complete random games through its public API, every check on.

Each game is seeded (so the deals are reproducible), played to a target of 15 with a fixed
``random.Random`` choosing each card among :meth:`Game.legal_cards`, dealing whenever a hand
is due. Prints one line per repeat and the medians. The last line is ``engine=<json>``: the
medians of the games and plays per CPU second and of the games per wall-clock second, the games and
plays of a repeat, the repeats and the target.

Rates are per second of this process's CPU time (``time.process_time``): the throughput of
one core, which stays meaningful when other work shares the machine. The wall-clock rate is
printed alongside; on an idle machine the two agree.

    .venv/bin/python -m bench.engine [--games 2000] [--repeats 5] [--target 15]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from service.engine import Game, GameSetup, Status


def play_game(number: int, target: int, rng: random.Random) -> int:
    """Play one complete game; return the number of cards played."""
    game = Game(GameSetup(target_score=target, first_dealer=number % 3, seed=f"bench/{number}"))
    plays = 0
    while game.status is not Status.FINISHED:
        if game.status is Status.WAITING_FOR_DEAL:
            game.deal(game.dealer)
            continue
        seat = game.turn
        assert seat is not None
        game.play(seat, rng.choice(game.legal_cards(seat)))
        plays += 1
    return plays


def run(games: int, target: int, seed: int) -> tuple[float, float, int]:
    """Play ``games`` games; return the CPU seconds, the wall-clock seconds and the number of plays."""
    rng = random.Random(seed)
    plays = 0
    cpu, wall = time.process_time(), time.perf_counter()
    for number in range(games):
        plays += play_game(number, target, rng)
    return time.process_time() - cpu, time.perf_counter() - wall, plays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per repeat (default 2000)")
    parser.add_argument("--repeats", type=int, default=5, help="timed repeats (default 5)")
    parser.add_argument("--target", type=int, default=15, help="target score (default 15)")
    parser.add_argument("--seed", type=int, default=20221001, help="seed of the card choices")
    args = parser.parse_args()

    run(min(args.games, 200), args.target, args.seed)  # warm-up
    games_rates, plays_rates, wall_rates = [], [], []
    for repeat in range(1, args.repeats + 1):
        cpu, wall, plays = run(args.games, args.target, args.seed)
        games_rates.append(args.games / cpu)
        plays_rates.append(plays / cpu)
        wall_rates.append(args.games / wall)
        print(
            f"repeat {repeat}: {args.games} games, {plays} plays in {cpu:.3f} s CPU ({wall:.3f} s wall): "
            f"{games_rates[-1]:,.0f} games/s, {plays_rates[-1]:,.0f} plays/s ({wall_rates[-1]:,.0f} games/s wall)"
        )
    print(
        f"median of {args.repeats}: {statistics.median(games_rates):,.0f} games/s, "
        f"{statistics.median(plays_rates):,.0f} plays/s, {statistics.median(wall_rates):,.0f} games/s wall-clock"
    )
    summary = {
        "games_per_second": round(statistics.median(games_rates)),
        "plays_per_second": round(statistics.median(plays_rates)),
        "wall_games_per_second": round(statistics.median(wall_rates)),
        "games_per_repeat": args.games,
        "plays_per_repeat": plays,
        "repeats": args.repeats,
        "target": args.target,
    }
    print("engine=" + json.dumps(summary))


if __name__ == "__main__":
    main()
