"""The actions players take (deal, play) and what each one does (dealt, played, a trick completed,
a hand ended), as frozen values: the engine's record of a game, from which the use cases make
their domain events."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple

from .cards import Card

__all__ = [
    "Status",
    "FirstDealerReason",
    "Play",
    "CompletedTrick",
    "DealAction",
    "PlayAction",
    "Action",
    "Dealt",
    "HandEnded",
    "Played",
]


class Status(enum.Enum):
    """Where a game stands. (Open seats are the service's concern, not the engine's.)"""

    WAITING_FOR_DEAL = "waiting_for_deal"
    PLAYING = "playing"
    FINISHED = "finished"


class FirstDealerReason(enum.Enum):
    """How the first dealer was chosen."""

    NAMED = "named"  # the game's creator named the seat
    OLDEST = "oldest"  # the oldest player by age, as the rules say
    DRAWN = "drawn"  # ages missing or tied: a random draw


class Play(NamedTuple):
    """One card put on the table by one seat."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class CompletedTrick:
    """A trick of three plays, with its winner and the coins it was worth."""

    hand_number: int
    trick_number: int  # 1 to 16 within the hand
    leader: int
    plays: tuple[Play, Play, Play]
    winner: int
    points: int


@dataclass(frozen=True, slots=True)
class DealAction:
    """The dealer deals a hand from ``seed`` (secret until the hand is over)."""

    seat: int
    seed: bytes


@dataclass(frozen=True, slots=True)
class PlayAction:
    """A seat plays a card."""

    seat: int
    card: Card


Action = DealAction | PlayAction


@dataclass(frozen=True, slots=True)
class Dealt:
    """What a deal did. Public: the commitment is a hash of the seed, not the seed."""

    hand_number: int
    dealer: int
    shuffler: int
    cutter: int
    leader: int
    commitment: str


@dataclass(frozen=True, slots=True)
class HandEnded:
    """A hand is over (sixteen tricks, or the game was won in it): its seed is revealed."""

    hand_number: int
    seed: bytes
    commitment: str
    next_dealer: int | None  # None when the game is over


@dataclass(frozen=True, slots=True)
class Played:
    """What a play did: the card, the trick as it now stands, and any consequences."""

    seat: int
    card: Card
    hand_number: int
    trick_number: int
    trick: tuple[Play, ...]  # the plays of this trick so far, this one included
    completed: CompletedTrick | None  # set when this play was the third of the trick
    hand_ended: HandEnded | None
    winner: int | None  # the game's winner, when this play ended the game
