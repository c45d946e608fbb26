"""What every bot is: a seat that turns its private view into a decision with a reason."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from service.engine import Card, NotYourTurn, PrivateView, Status

__all__ = ["Decision", "Bot", "check_turn"]


@dataclass(frozen=True, slots=True)
class Decision:
    """The card a bot plays, and in a few words why (what a hint shows a player)."""

    card: Card
    reason: str


@runtime_checkable
class Bot(Protocol):
    """A computer player for one seat. It sees only that seat's :class:`PrivateView`."""

    seat: int

    def decide(self, view: PrivateView) -> Decision:
        """The card to play now; :class:`NotYourTurn` when the seat has no legal card."""
        ...


def check_turn(seat: int, view: PrivateView) -> None:
    """Raise unless ``view`` is ``seat``'s own view and ``seat`` is to play."""
    if view.seat != seat:
        raise ValueError(f"the bot of seat {seat} was given the view of seat {view.seat}")
    if not view.legal_cards:
        public = view.public
        why = f"seat {public.turn} is to play" if public.status is Status.PLAYING else "no hand is being played"
        raise NotYourTurn(f"seat {seat} has no card to play now: {why}")
