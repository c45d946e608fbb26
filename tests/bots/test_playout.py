"""The playout simulator plays a hand exactly as the engine does with basic bots in every seat."""

from __future__ import annotations

import random

import pytest

from service.bots import Bot
from service.bots.bits import bit_of, mask_of
from service.bots.playout import play_out
from service.engine import Game, Status, private_view

from .conftest import bots_for, new_game

STRENGTHS = ("basic", "basic", "basic")


def simulate_from(game: Game) -> tuple[list[int], int | None]:
    """Scores and winner when the playout simulator finishes the hand in progress."""
    hands = [mask_of(game.hand(seat)) for seat in range(3)]
    trick = [bit_of(play.card) for play in game.trick]
    played = mask_of(play.card for done in game.hand_tricks for play in done.plays) | mask_of(
        play.card for play in game.trick
    )
    assert game.leader is not None
    scores = list(game.scores)
    winner = play_out(hands, played, trick, game.leader, scores, game.target_score)
    return scores, winner


def play_card(game: Game, bots: list[Bot]) -> None:
    seat = game.turn
    assert seat is not None
    game.play(seat, bots[seat].decide(private_view(game, seat)).card)


@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize("target", [5, 15])
def test_playouts_finish_a_hand_as_the_engine_does(seed: int, target: int) -> None:
    game = new_game(f"playout/{seed}", target=target, first_dealer=seed % 3)
    bots = bots_for(STRENGTHS, seed)
    game.deal(game.dealer)
    for _ in range(seed % 3 + 3 * (seed % 5)):  # start mid-trick, some tricks in
        play_card(game, bots)
    scores, winner = simulate_from(game)
    while game.status is Status.PLAYING:
        play_card(game, bots)
    assert scores == list(game.scores)
    assert winner == game.winner


class CountingRandom(random.Random):
    """An RNG that counts its draws of :meth:`random`: one for each play a noisy playout may randomise."""

    def __init__(self, seed: object) -> None:
        super().__init__(str(seed))
        self.draws = 0

    def random(self) -> float:
        self.draws += 1
        return super().random()

    def getrandbits(self, k: int, /) -> int:  # defined, so that randrange draws on it and not on random
        return super().getrandbits(k)


def start_of_hand(seed: int) -> tuple[list[int], int]:
    game = new_game(f"playout/noise/{seed}", target=40, first_dealer=seed % 3)
    game.deal(game.dealer)
    assert game.leader is not None
    return [mask_of(game.hand(seat)) for seat in range(3)], game.leader


@pytest.mark.parametrize("seed", range(20))
def test_noise_randomises_the_other_seats_only_and_keeps_the_rules(seed: int) -> None:
    hands, leader = start_of_hand(seed)
    dealt = hands.copy()
    scores = [0, 0, 0]
    searcher = seed % 3
    rng = CountingRandom(seed)
    assert play_out(hands, 0, [], leader, scores, 40, noise=1.0, rng=rng, searcher=searcher) is None
    assert hands == [0, 0, 0]  # every card played: a hand holds only 12 coins, short of 40
    assert sum(scores) == 12
    assert rng.draws == 32  # a draw for each of the other seats' 16 plays, none for the searcher's
    assert dealt[searcher].bit_count() == 16


@pytest.mark.parametrize("seed", range(10))
def test_noisy_playouts_are_reproducible_and_differ_from_greedy_ones(seed: int) -> None:
    def noisy(rng_seed: object) -> list[int]:
        hands, leader = start_of_hand(seed)
        scores = [0, 0, 0]
        play_out(hands, 0, [], leader, scores, 40, noise=1.0, rng=random.Random(str(rng_seed)), searcher=0)
        return scores

    assert noisy("same") == noisy("same")
    hands, leader = start_of_hand(seed)
    greedy = [0, 0, 0]
    play_out(hands, 0, [], leader, greedy, 40, noise=0.0, rng=random.Random(0), searcher=0)
    assert any(noisy(n) != greedy for n in range(5))
