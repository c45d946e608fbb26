#!/usr/bin/env python3
"""Play a whole game of Coins against a Coins server: three seats, random cards, every trick printed.

On the coins-client package (clients/python, docs/sdk.md: its generated operations) and coins_http.py
beside it (retries with one Idempotency-Key per POST). Usage:

    python examples/play_random.py --base-url http://127.0.0.1:8000 --target-score 10 --seed 7

It creates a game with all three seats taken (so it holds every token), deals when a hand is
due, plays a random card from the hand of whoever's turn it is (Coins has no duty to follow
suit: any card you hold is legal), prints each trick as it completes and the final scores.
"""

from __future__ import annotations

import argparse
import random
import sys

import httpx
from coins_client.api.games import create_game, get_scores
from coins_client.api.hands import deal_hand, get_hand
from coins_client.api.plays import play_card
from coins_client.api.tricks import list_tricks
from coins_client.models import CreateGame, GameStatus, NewPerson, PlayCard, Trick
from coins_client.types import UNSET
from coins_http import Problem, anonymous, connect, ok


def describe(trick: Trick, names: dict[int, str]) -> str:
    cards = ", ".join(f"{names[play.seat]} {play.card}" for play in trick.plays)
    points, winner = trick.points, trick.winner if trick.winner is not None else -1
    return (
        f"hand {trick.hand_number} trick {trick.trick_number:2}: {cards}"
        f" -> {names[winner]} takes {points} coin{'s' if points != 1 else ''}"
    )


def play(base_url: str, target_score: int, rng: random.Random, game_seed: str | None) -> int:
    coins = anonymous(base_url)
    seats = [NewPerson(name="Ana", age=41), NewPerson(name="Bo", age=35), NewPerson(name="Cy", age=29)]
    body = CreateGame(target_score=target_score, seats=list(seats), seed=game_seed if game_seed else UNSET)
    # The key is optional here (`security: [{}, playerKey]`); openapi-python-client 0.29.1 still types
    # the client as an AuthenticatedClient: a plain Client is what it takes at run time.
    created = ok(create_game.sync(client=coins, body=body))  # type: ignore[arg-type]
    game_id = created.id
    seat_clients = {credential.seat: connect(base_url, credential.token) for credential in created.credentials}
    names = {seat.seat: seat.name or f"seat {seat.seat}" for seat in created.seats}
    print(f"game {game_id}: first to {target_score}, {names[created.dealer or 0]} deals first")

    status, turn = created.status, created.turn
    while status != GameStatus.FINISHED:
        seat = seat_clients[turn if turn is not None else 0]
        if status == GameStatus.WAITING_FOR_DEAL:
            dealt = ok(deal_hand.sync(game_id, client=seat))
            print(f"hand {dealt.hand_number}: {names[dealt.dealer]} deals, {names[dealt.leader]} leads")
            status, turn = dealt.game.status, dealt.game.turn
            continue
        hand = ok(get_hand.sync(game_id, client=seat))
        result = ok(play_card.sync(game_id, client=seat, body=PlayCard(card=rng.choice(hand.cards))))
        if result.trick.winner is not None:
            print(describe(result.trick, names))
        status, turn = result.game.status, result.game.turn

    scores = ok(get_scores.sync(game_id, client=coins))
    print("final scores: " + ", ".join(f"{s.name} {s.score}" for s in scores.scores))
    print(f"winner: {names[scores.winner if scores.winner is not None else -1]}")
    tricks, cursor = 0, UNSET
    while True:  # the trick history, a page at a time
        page = ok(list_tricks.sync(game_id, client=coins, limit=200, cursor=cursor))
        tricks += len(page.items)
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    print(f"{tricks} tricks")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8000", help="the server (default %(default)s)")
    parser.add_argument("--target-score", type=int, default=10, help="points that win (default %(default)s)")
    parser.add_argument("--seed", type=int, help="seed for the random card choices")
    parser.add_argument("--game-seed", help="seed the game's deals too (a fully reproducible game)")
    args = parser.parse_args(argv)
    try:
        return play(args.base_url, args.target_score, random.Random(args.seed), args.game_seed)
    except (Problem, httpx.TransportError) as problem:  # TransportError: no answer, after the retries
        print(f"error: {problem}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
