"""An independent PIMC player for bench/bots.py: perfect-information Monte Carlo from its published description.

Written for the benchmark from the description in issue 35 (and the PIMC literature: Ginsberg's
GIB, Long et al. 2010), not from the expert's code, so that the expert is measured against a
player it shares no code with but the engine: each move it samples :data:`DEALS` deals of the
cards it cannot see (uniformly, in the hand sizes everyone can see), tries every legal card on
every deal, plays each deal out with a simple greedy policy of its own, and plays the card with
the best total. A playout is worth the points this seat gains in the rest of the hand less the
most any other seat gains, and 100 more (or less) if a seat reaches the target in it.

Cards are numbers 0 to 47 (``suit_index * 12 + rank_index``, rank 0 the ace); the trick winner
comes from a table the engine's :func:`~service.engine.trick_winner` fills once per process.
"""

from __future__ import annotations

import random

from service.bots import Decision  # the bots' answer type, a plain record: no search code is shared
from service.engine import DECK, Card, NotYourTurn, PrivateView, trick_winner

__all__ = ["DEALS", "PimcBot"]

DEALS = 40
WIN = 100  # what reaching the target is worth in a playout, against a hand's 12 points

_BY_INDEX: list[Card] = sorted(DECK, key=lambda card: card.suit_index * 12 + card.rank_index)
_WINNER: list[int] = []  # at a * 2304 + b * 48 + c, the position of the trick's winner


def _winner_table() -> list[int]:
    if not _WINNER:
        table = [0] * (48 * 48 * 48)
        for a in range(48):
            for b in range(48):
                for c in range(48):
                    if a != b and b != c and a != c:
                        table[a * 2304 + b * 48 + c] = trick_winner((_BY_INDEX[a], _BY_INDEX[b], _BY_INDEX[c]))
        _WINNER.extend(table)
    return _WINNER


def _index(card: Card) -> int:
    return card.suit_index * 12 + card.rank_index


def _is_coin(card: int) -> bool:
    return card // 12 == 1


def _cheap(card: int) -> tuple[bool, int]:
    """Sort key: the lowest rank first, coins last."""
    return (_is_coin(card), -(card % 12))


class PimcBot:
    """Samples deals of the hidden cards and plays each out greedily; one fixed amount of work a move."""

    def __init__(self, seat: int, rng: random.Random, deals: int = DEALS) -> None:
        self.seat = seat
        self.rng = rng
        self.deals = deals
        self.table = _winner_table()

    def decide(self, view: PrivateView) -> Decision:
        if view.seat != self.seat or not view.legal_cards:
            raise NotYourTurn(f"seat {self.seat} has no card to play now")
        public = view.public
        mine = [_index(card) for card in view.hand]
        trick = [_index(play.card) for play in public.trick]
        gone = {_index(card) for card in public.played_cards}
        unseen = [index for index in range(48) if index not in gone and index not in mine]
        leader = public.leader if public.leader is not None else self.seat
        left, right = (self.seat + 1) % 3, (self.seat + 2) % 3
        options = sorted(_index(card) for card in view.legal_cards)
        totals = dict.fromkeys(options, 0.0)
        for _ in range(self.deals):
            self.rng.shuffle(unseen)
            count = public.cards_in_hand[left]
            hands = [[], [], []]  # type: list[list[int]]
            hands[self.seat] = mine
            hands[left] = unseen[:count]
            hands[right] = unseen[count:]
            for option in options:
                totals[option] += self._playout(hands, trick, leader, list(public.scores), public.target_score, option)
        best = max(options, key=lambda option: (totals[option], -option))
        return Decision(_BY_INDEX[best], f"best total over {self.deals} sampled deals")

    def _playout(
        self, dealt: list[list[int]], trick: list[int], leader: int, scores: list[int], target: int, option: int
    ) -> float:
        hands = [list(hand) for hand in dealt]
        hands[self.seat].remove(option)
        table = [*trick, option]
        start = list(scores)
        seat = (leader + len(table)) % 3
        while True:
            while len(table) < 3:
                card = _greedy(hands[seat], table, self.table)
                hands[seat].remove(card)
                table.append(card)
                seat = (seat + 1) % 3
            a, b, c = table
            winner = (leader + self.table[a * 2304 + b * 48 + c]) % 3
            scores[winner] += _is_coin(a) + _is_coin(b) + _is_coin(c)
            gained = [scores[s] - start[s] for s in range(3)]
            mine = gained[self.seat] - max(gained[s] for s in range(3) if s != self.seat)
            if scores[winner] >= target:
                return mine + (WIN if winner == self.seat else -WIN)
            if not hands[winner]:
                return mine
            table = []
            leader = seat = winner


def _greedy(hand: list[int], table: list[int], winners: list[int]) -> int:
    """Lead or follow with the cheapest card; play last to take coins when a card can, else dump cheaply."""
    if len(table) < 2:
        return min(hand, key=_cheap)
    a, b = table
    coins = _is_coin(a) + _is_coin(b)
    taking = [card for card in hand if winners[a * 2304 + b * 48 + card] == 2]
    if taking and (coins or any(_is_coin(card) for card in taking)):
        return max(taking, key=lambda card: (_is_coin(card), card % 12))  # a coin if it can, else the cheapest
    losing = [card for card in hand if card not in taking]
    return min(losing or hand, key=_cheap)
