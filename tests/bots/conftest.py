"""Helpers for the bot tests: full games through the engine with a bot in every seat."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from service.bots import Bot, make_bot
from service.engine import Game, GameSetup, PrivateView, Status, private_view

Check = Callable[[PrivateView, Bot], None]


def bots_for(strengths: tuple[str, str, str], seed: object, **options: int) -> list[Bot]:
    return [
        make_bot(strength, seat, random.Random(f"{seed}/{seat}"), **(options if strength == "expert" else {}))
        for seat, strength in enumerate(strengths)
    ]


def play_game(game: Game, bots: list[Bot], stop_after: int | None = None) -> Iterator[PrivateView]:
    """Play ``game`` with ``bots``, yielding each view a bot decides from (the game is live while paused)."""
    plays = 0
    while game.status is not Status.FINISHED and (stop_after is None or plays < stop_after):
        if game.status is Status.WAITING_FOR_DEAL:
            game.deal(game.dealer)
            continue
        seat = game.turn
        assert seat is not None
        view = private_view(game, seat)
        yield view
        decision = bots[seat].decide(view)
        assert decision.card in view.legal_cards
        game.play(seat, decision.card)
        plays += 1


def new_game(seed: object, target: int = 15, first_dealer: int = 0) -> Game:
    return Game(GameSetup(target_score=target, first_dealer=first_dealer, seed=f"tests/bots/{seed}"))


def game_at(seed: object, plays: int, strengths: tuple[str, str, str] = ("basic", "random", "basic")) -> Game:
    """A game after ``plays`` cards played by seeded bots: a position mid-hand to decide in."""
    game = new_game(seed, target=40)
    game.deal(game.dealer)
    for _ in play_game(game, bots_for(strengths, seed), stop_after=plays):
        pass
    return game
