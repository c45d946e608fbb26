"""A rating as players see it: a number on an Elo-like scale where newcomers start at 1500, and whether it is provisional."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import NamedTuple

from .inactivity import SECONDS_PER_DAY
from .parameters import DISPLAY_BASE, DISPLAY_SCALE, MIN_RATED_GAMES, MU_0, SIGMA_PROVISIONAL, TAU_PER_DAY


class Shown(NamedTuple):
    """What a profile and the leaderboard show of a rating."""

    value: int
    provisional: bool


def display(mu: float, sigma: float, rated_games: int) -> Shown:
    """The value ``round(DISPLAY_BASE + DISPLAY_SCALE · (mu - MU_0))`` and whether it is provisional.

    ``sigma`` is the current one (:func:`~service.ratings.current_sigma`, grown by the time away):
    the rating is provisional while the player has fewer than MIN_RATED_GAMES rated games or that
    sigma is above SIGMA_PROVISIONAL.
    """
    value = round(DISPLAY_BASE + DISPLAY_SCALE * (mu - MU_0))
    return Shown(value, rated_games < MIN_RATED_GAMES or sigma > SIGMA_PROVISIONAL)


def provisional_from(sigma: float, rated_at: datetime | None, rated_games: int) -> datetime | None:
    """When a rating last changed at ``rated_at`` to ``sigma`` turns provisional by time away; None if it is already.

    Until that moment :func:`display` of its current sigma says not provisional (the leaderboard
    lists it), from then on provisional: a store can keep this moment and list the players whose
    moment is still ahead.
    """
    if rated_at is None or rated_games < MIN_RATED_GAMES or sigma > SIGMA_PROVISIONAL:
        return None
    days = (SIGMA_PROVISIONAL**2 - sigma**2) / TAU_PER_DAY**2
    return rated_at + timedelta(seconds=days * SECONDS_PER_DAY)
