"""What is fixed before a game starts: the seats, the target score, and who deals first."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from .actions import FirstDealerReason
from .deal import DealStream
from .errors import InvalidSeat, InvalidSetup

__all__ = [
    "SEATS",
    "MIN_TARGET",
    "MAX_TARGET",
    "DEFAULT_TARGET",
    "GameSetup",
    "check_seat",
    "choose_first_dealer",
    "left_of",
    "right_of",
]

SEATS = (0, 1, 2)
MIN_TARGET = 1
MAX_TARGET = 100
DEFAULT_TARGET = 15


def left_of(seat: int) -> int:
    """The next seat clockwise: play passes to the left."""
    return (seat + 1) % 3


def right_of(seat: int) -> int:
    """The previous seat clockwise."""
    return (seat + 2) % 3


def check_seat(seat: object) -> int:
    if type(seat) is not int or seat not in SEATS:
        raise InvalidSeat(f"seat must be 0, 1 or 2, not {seat!r}")
    return seat


def choose_first_dealer(
    ages: Sequence[int | None] = (None, None, None),
    named: int | None = None,
    seed: str | None = None,
) -> tuple[int, FirstDealerReason]:
    """The first dealer: the named seat; else the oldest player; else a random draw.

    The oldest player is known only when all three ages are given and one is the
    greatest. A seeded game draws from its seed so that it replays exactly.
    """
    if len(ages) != 3:
        raise InvalidSetup("ages must list one entry per seat")
    for age in ages:
        if age is not None and (type(age) is not int or age < 0):
            raise InvalidSetup(f"an age is a whole number of years or None, not {age!r}")
    if named is not None:
        return check_seat(named), FirstDealerReason.NAMED
    if all(age is not None for age in ages):
        known = [age for age in ages if age is not None]
        oldest = max(known)
        if known.count(oldest) == 1:
            return known.index(oldest), FirstDealerReason.OLDEST
    if seed is not None:
        stream = DealStream(f"coins/v1/first-dealer/{seed}".encode())
        return stream.below(3), FirstDealerReason.DRAWN
    return secrets.randbelow(3), FirstDealerReason.DRAWN


@dataclass(frozen=True, slots=True)
class GameSetup:
    """Everything fixed when a game starts."""

    target_score: int = DEFAULT_TARGET
    first_dealer: int = 0
    first_dealer_reason: FirstDealerReason = FirstDealerReason.NAMED
    seed: str | None = None  # a caller's seed makes every deal reproducible

    def __post_init__(self) -> None:
        if type(self.target_score) is not int or not MIN_TARGET <= self.target_score <= MAX_TARGET:
            raise InvalidSetup(f"target_score must be a whole number from {MIN_TARGET} to {MAX_TARGET}")
        check_seat(self.first_dealer)

    @classmethod
    def choose(
        cls,
        target_score: int = DEFAULT_TARGET,
        *,
        ages: Sequence[int | None] = (None, None, None),
        first_dealer: int | None = None,
        seed: str | None = None,
    ) -> GameSetup:
        """A setup whose first dealer follows the rules (named, else oldest, else drawn)."""
        dealer, reason = choose_first_dealer(ages, first_dealer, seed)
        return cls(target_score, dealer, reason, seed)
