"""The random bot: any legal card, uniformly at random. A baseline, and a gentle opponent."""

from __future__ import annotations

import random

from service.engine import PrivateView

from .protocol import Decision, check_turn

__all__ = ["RandomBot"]


class RandomBot:
    """Plays a uniformly random legal card, drawn from its injected RNG."""

    def __init__(self, seat: int, rng: random.Random) -> None:
        self.seat = seat
        self.rng = rng

    def decide(self, view: PrivateView) -> Decision:
        check_turn(self.seat, view)
        return Decision(self.rng.choice(view.legal_cards), "a random legal card")
