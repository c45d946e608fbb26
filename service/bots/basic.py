"""The basic bot: greedy rules that track the cards gone and reason about the cards unseen."""

from __future__ import annotations

import random

from service.engine import PrivateView

from .bits import card_of
from .knowledge import knowledge_of
from .policy import choose
from .protocol import Decision, check_turn

__all__ = ["BasicBot"]


class BasicBot:
    """Takes coins as cheaply as it can, never hands a coin over when a plain card will do.

    It needs no randomness: the RNG is accepted so that every strength is built alike.
    """

    def __init__(self, seat: int, rng: random.Random) -> None:
        self.seat = seat
        self.rng = rng

    def decide(self, view: PrivateView) -> Decision:
        check_turn(self.seat, view)
        know = knowledge_of(view)
        bit, reason = choose(know.legal, know.unseen, know.trick)
        return Decision(card_of(bit), reason)
