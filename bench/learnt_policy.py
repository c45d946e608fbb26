"""A playout policy learnt from the searching players' plays (issue 35, tried and not kept in the service).

A linear softmax over a few features of each candidate card: in each suit the seat holds, its
cheapest and its strongest card, (second or last to play) its cheapest card of the suit that takes
the trick as it stands, and the greedy rule's card (:mod:`service.bots.policy`); each is scored by
:data:`WEIGHTS` (one row per place in the trick) over :func:`features`, and the policy plays the best
(:func:`choose`) or draws one at a temperature (:func:`sample`). The weights were fitted by
``python -m bench.playout_policy train`` to 127 games of three expert-35 (docs/bots.md).

:func:`play_out` is :func:`service.bots.playout.play_out` with its first plays by this policy, and
:class:`LearntExpert` the expert whose playouts use it: ``python -m bench.learnt_policy`` runs
:mod:`bench.bots` with it as a player (``learnt<K>``, ``learnt<K>t<T>``: K plays of each playout
by the policy, drawn at temperature T).
"""

from __future__ import annotations

import math
import random
import re
import sys
from collections.abc import Sequence

import bench.bots
from service.bots import Bot, Decision, ExpertBot
from service.bots import expert as expert_module
from service.bots.bits import ALL_CARDS, COINS, SUIT_MASKS, resolve, winning_seconds, winning_thirds
from service.bots.endgame import standing
from service.bots.knowledge import Knowledge
from service.bots.policy import choose as greedy_choice
from service.bots.policy import close, follow, lead
from service.engine import PrivateView

__all__ = [
    "FEATURES", "WEIGHTS", "candidates", "features", "score", "choose", "sample", "play_out", "LearntExpert",
]  # fmt: skip

FEATURES = (
    "coin", "strength", "strongest", "master", "suit length", "unseen of suit", "unseen beating suit",
    "unseen beaten suit", "cups", "swords", "clubs", "coin strength", "singleton",
    "wins", "wins x coins at stake", "wins coin", "loses coin", "wins the game",
    "pairs over the lead", "pairs under the lead", "next suit", "opposite suit",
    "greedy", "cheapest plain", "sure", "coin x cards left", "master strength", "cheapest taker",
)  # fmt: skip

WEIGHTS: tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]] = (
    (0.847, 1.250, -0.952, 0.837, 0.793, -0.315, -0.235, -0.088, -0.139, -0.230, -0.479, -2.208, 0.017, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 1.329, -0.623, 0.000, -2.032, -1.427, 0.000),  # leading
    (-0.121, 1.007, -0.732, 0.778, 0.168, -0.044, 0.378, 0.263, -0.164, 0.233, 0.052, -1.068, -0.028, 0.370, 1.368, -0.592, 0.471, 1.214, -0.078, 0.385, 0.169, 0.007, 0.812, -0.119, 0.331, -1.033, -1.166, 0.000),  # second
    (1.694, 1.443, -0.929, 0.688, 0.450, -0.218, 0.566, 0.252, -0.705, -0.378, -0.611, -5.093, 0.168, -0.214, 2.235, 1.085, 0.609, -0.363, 0.000, 0.000, 0.000, 0.000, 0.142, 0.363, -0.214, -2.001, -1.377, 0.050),  # last
)  # fmt: skip
"""One row for each place in the trick (leading, second, last), one weight for each of :data:`FEATURES`."""


def candidates(hand: int, trick: tuple[int, ...], greedy: int) -> list[int]:
    """The cards worth scoring: each suit's cheapest and strongest, and its cheapest that takes the trick."""
    if len(trick) == 2:
        takes = hand & winning_thirds(trick[0], trick[1])
    elif trick:
        lead = trick[0]
        takes = hand & SUIT_MASKS[lead & 3] & ~((2 << lead) - 1)
    else:
        takes = 0
    found = []
    for suit in SUIT_MASKS:
        held = hand & suit
        if not held:
            continue
        low = (held & -held).bit_length() - 1
        found.append(low)
        high = held.bit_length() - 1
        if high != low:
            found.append(high)
        take = held & takes
        if take:
            cheapest = (take & -take).bit_length() - 1
            if cheapest != low and cheapest != high:
                found.append(cheapest)
    if greedy not in found:
        found.append(greedy)
    return found


def features(
    hand: int,
    unseen: int,
    trick: tuple[int, ...],
    card: int,
    scores: Sequence[int],
    seat: int,
    target: int,
    greedy: int,
) -> list[float]:
    """The features of playing ``card`` (a bit of ``hand``), in the order of :data:`FEATURES`."""
    suit = card & 3
    suit_mask = SUIT_MASKS[suit]
    coin = 1.0 if suit == 1 else 0.0
    strength = (card >> 2) / 11
    held = hand & suit_mask
    row = [
        coin,
        strength,
        1.0 if held >> card == 1 and held & ((1 << card) - 1) else 0.0,
        0.0 if unseen & suit_mask & ~((2 << card) - 1) else 1.0,
        held.bit_count() / 8,
        (unseen & suit_mask).bit_count() / 8,
        (unseen & SUIT_MASKS[(suit - 1) % 4]).bit_count() / 8,
        (unseen & SUIT_MASKS[(suit + 1) % 4]).bit_count() / 8,
        1.0 if suit == 0 else 0.0,
        1.0 if suit == 2 else 0.0,
        1.0 if suit == 3 else 0.0,
        coin * strength,
        1.0 if held.bit_count() == 1 else 0.0,
    ]
    wins = 0.0
    at_stake = coin
    pair_over = pair_under = next_suit = opposite = 0.0
    if len(trick) == 2:
        wins = 1.0 if winning_thirds(trick[0], trick[1]) >> card & 1 else 0.0
        at_stake += (COINS >> trick[0] & 1) + (COINS >> trick[1] & 1)
    elif trick:
        lead = trick[0]
        left = unseen.bit_count()
        wins = (unseen & winning_seconds(lead, card)).bit_count() / left if left else 0.0
        at_stake += COINS >> lead & 1
        relation = (suit - lead) & 3
        pair_over = 1.0 if relation == 0 and card > lead else 0.0
        pair_under = 1.0 if relation == 0 and card < lead else 0.0
        next_suit = 1.0 if relation == 1 else 0.0
        opposite = 1.0 if relation == 2 else 0.0
    game = 1.0 if trick and scores[seat] + at_stake >= target else 0.0
    row += [wins, wins * at_stake, wins * coin, (1 - wins) * coin if trick else 0.0, wins * game]
    row += [pair_over, pair_under, next_suit, opposite]
    plain = hand & ~COINS
    cheapest = (plain & -plain).bit_length() - 1 if plain else -1
    master = row[3]
    taker = 0.0
    if len(trick) == 2:
        takes = hand & winning_thirds(trick[0], trick[1])
        taker = 1.0 if takes and (takes & -takes).bit_length() - 1 == card else 0.0
    row += [
        1.0 if card == greedy else 0.0,
        1.0 if card == cheapest else 0.0,
        1.0 if wins == 1.0 else 0.0,
        coin * hand.bit_count() / 16,
        master * strength,
        taker,
    ]
    return row


def score(weights: tuple[float, ...], row: list[float]) -> float:
    return sum(w * x for w, x in zip(weights, row, strict=True))


def choose(hand: int, unseen: int, trick: tuple[int, ...], scores: Sequence[int], seat: int, target: int) -> int:
    """The bit of the best-scored candidate card: :func:`score` of :func:`features`, summed from tables."""
    place = len(trick)
    w = WEIGHTS[place]
    greedy = greedy_choice(hand, unseen, trick)[0]
    plain = hand & ~COINS
    cheapest = (plain & -plain).bit_length() - 1 if plain else -1
    static = _STATIC[place]
    on_master = _MASTER[place]
    by_suit = [
        (unseen & SUIT_MASKS[0]).bit_count() / 8,
        (unseen & SUIT_MASKS[1]).bit_count() / 8,
        (unseen & SUIT_MASKS[2]).bit_count() / 8,
        (unseen & SUIT_MASKS[3]).bit_count() / 8,
    ]
    left = unseen.bit_count()
    takes = stake_on_table = 0
    relation: tuple[float, ...] = ()
    lead = 0
    if place == 2:
        takes = winning_thirds(trick[0], trick[1])
        stake_on_table = (COINS >> trick[0] & 1) + (COINS >> trick[1] & 1)
    elif place == 1:
        lead = trick[0]
        stake_on_table = COINS >> lead & 1
        relation = _RELATION[lead]
    own = scores[seat]
    best, best_score = -1, -math.inf
    for card in candidates(hand, trick, greedy):
        suit = card & 3
        held = hand & SUIT_MASKS[suit]
        length = held.bit_count()
        value = static[card] + w[4] * length / 8 + w[5] * by_suit[suit] + w[6] * by_suit[(suit - 1) & 3]
        value += w[7] * by_suit[(suit + 1) & 3]
        if length == 1:
            value += w[12]
        if held >> card == 1 and held & ((1 << card) - 1):
            value += w[2]
        if not unseen & SUIT_MASKS[suit] & ~((2 << card) - 1):
            value += on_master[card]
        if card == greedy:
            value += w[22]
        if card == cheapest:
            value += w[23]
        coin = 1 if suit == 1 else 0
        if coin:
            value += w[25] * hand.bit_count() / 16
        if place:
            if place == 2:
                wins = float(takes >> card & 1)
                if wins and not (takes & hand & ((1 << card) - 1)):
                    value += w[27]
            else:
                wins = (unseen & winning_seconds(lead, card)).bit_count() / left if left else 0.0
                value += relation[card]
            stake = coin + stake_on_table
            value += wins * (w[13] + w[14] * stake + w[15] * coin) + w[16] * (1 - wins) * coin
            if wins == 1.0:
                value += w[24]
            if own + stake >= target:
                value += w[17] * wins
        if value > best_score or (value == best_score and card < best):
            best, best_score = card, value
    return best


def _static(w: tuple[float, ...]) -> tuple[float, ...]:
    """For each card, the part of its score that depends on the card alone."""
    row = []
    for card in range(48):
        suit, strength = card & 3, (card >> 2) / 11
        coin = 1.0 if suit == 1 else 0.0
        value = w[0] * coin + w[1] * strength + w[11] * coin * strength
        value += (w[8], 0.0, w[9], w[10])[suit]
        row.append(value)
    return tuple(row)


def _relation(w: tuple[float, ...]) -> tuple[tuple[float, ...], ...]:
    """For each card led and each card played second, the score of how their suits relate."""
    table = []
    for led in range(48):
        row = []
        for card in range(48):
            relation = (card - led) & 3
            value = 0.0
            if relation == 0:
                value = w[18] if card > led else w[19]
            elif relation == 1:
                value = w[20]
            elif relation == 2:
                value = w[21]
            row.append(value)
        table.append(tuple(row))
    return tuple(table)


_STATIC = tuple(_static(w) for w in WEIGHTS)
_MASTER = tuple(tuple(w[3] + w[26] * (card >> 2) / 11 for card in range(48)) for w in WEIGHTS)
_RELATION = _relation(WEIGHTS[1])


def choose_by_features(
    hand: int, unseen: int, trick: tuple[int, ...], scores: Sequence[int], seat: int, target: int
) -> int:
    """:func:`choose` spelt out: the candidate with the best :func:`score` of its :func:`features` (for tests)."""
    weights = WEIGHTS[len(trick)]
    greedy = greedy_choice(hand, unseen, trick)[0]
    best, best_score = -1, -math.inf
    for card in candidates(hand, trick, greedy):
        value = score(weights, features(hand, unseen, trick, card, scores, seat, target, greedy))
        if value > best_score or (value == best_score and card < best):
            best, best_score = card, value
    return best


def sample(
    hand: int,
    unseen: int,
    trick: tuple[int, ...],
    scores: Sequence[int],
    seat: int,
    target: int,
    rng: random.Random,
    temperature: float,
) -> int:
    """A candidate card drawn from the softmax of the scores divided by ``temperature``."""
    weights = WEIGHTS[len(trick)]
    greedy = greedy_choice(hand, unseen, trick)[0]
    options = candidates(hand, trick, greedy)
    values = [score(weights, features(hand, unseen, trick, card, scores, seat, target, greedy)) for card in options]
    top = max(values)
    odds = [math.exp((value - top) / temperature) for value in values]
    draw = rng.random() * sum(odds)
    for card, odd in zip(options, odds, strict=True):
        draw -= odd
        if draw < 0:
            return card
    return options[-1]


def play_out(
    hands: list[int],
    played: int,
    trick: list[int],
    leader: int,
    scores: list[int],
    target: int,
    learnt: int,
    rng: random.Random,
    temperature: float,
) -> int | None:
    """:func:`service.bots.playout.play_out` with its first ``learnt`` plays by this policy (drawn at ``temperature`` > 0)."""
    seat = (leader + len(trick)) % 3
    while True:
        while len(trick) < 3:
            hand = hands[seat]
            if not hand:
                return None
            if learnt > 0:
                learnt -= 1
                unseen = ALL_CARDS & ~played & ~hand
                if temperature > 0:
                    bit = sample(hand, unseen, tuple(trick), scores, seat, target, rng, temperature)
                else:
                    bit = choose(hand, unseen, tuple(trick), scores, seat, target)
            elif not trick:
                bit = lead(hand)[0]
            elif len(trick) == 1:
                bit = follow(hand, ALL_CARDS & ~played & ~hand, trick[0])[0]
            else:
                bit = close(hand, trick[0], trick[1])[0]
            card = 1 << bit
            hands[seat] = hand ^ card
            played |= card
            trick.append(bit)
            seat = (seat + 1) % 3
        a, b, c = trick
        winner = (leader + resolve(a, b, c)) % 3
        scores[winner] += ((1 << a | 1 << b | 1 << c) & COINS).bit_count()
        if scores[winner] >= target:
            return winner
        trick.clear()
        leader = seat = winner


_ACTIVE: list[LearntExpert | None] = [None]  # the learnt expert deciding now, in this process
_GREEDY_PLAYOUT = expert_module._playout


def _playout(know: Knowledge, hands: list[int], option: int) -> float:
    """The expert's playout, by this policy while a :class:`LearntExpert` decides, else greedy."""
    bot = _ACTIVE[0]
    if bot is None:
        return _GREEDY_PLAYOUT(know, hands, option)
    seat = know.seat
    hands = hands.copy()
    hands[seat] ^= 1 << option
    scores = list(know.scores)
    played = know.played | 1 << option
    trick = [*know.trick, option]
    winner = play_out(hands, played, trick, know.leader, scores, know.target, bot.plays, bot.rng, bot.temperature)
    return standing(scores, winner, seat, know.target)


class LearntExpert(ExpertBot):
    """The expert, its playouts' first ``plays`` plays by the learnt policy (drawn at ``temperature`` > 0)."""

    def __init__(self, seat: int, rng: random.Random, plays: int, temperature: float = 0.0) -> None:
        super().__init__(seat, rng)
        self.plays = plays
        self.temperature = temperature

    def decide(self, view: PrivateView) -> Decision:
        _ACTIVE[0] = self
        try:
            return super().decide(view)
        finally:
            _ACTIVE[0] = None


def _player(name: str, seat: int, rng: random.Random) -> Bot:
    found = re.fullmatch(r"learnt(\d+)(?:t([0-9.]+))?", name)
    if found:
        return LearntExpert(seat, rng, int(found[1]), float(found[2] or 0))
    return _BENCH_PLAYER(name, seat, rng)


_BENCH_PLAYER = bench.bots.player


def main() -> None:
    """``python -m bench.learnt_policy VARIANT [bench.bots options]``: the matches VARIANT-vs-expert-35 and -vs-pimc."""
    variant = sys.argv.pop(1)
    expert_module._playout = _playout
    bench.bots.player = _player
    bench.bots.MATCHES[f"{variant}-vs-expert-35"] = (variant, "expert-35")
    bench.bots.MATCHES[f"{variant}-vs-pimc"] = (variant, "pimc")
    bench.bots.main()


if __name__ == "__main__":
    main()
