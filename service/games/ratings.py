"""Ratings: how a rating's stored state is shown. The ratings' model and its updates live here too (to come).

A player's rating is stored as the two numbers of a Plackett-Luce (openskill) rating, ``mu`` and
``sigma``, with the count of rated games it counts: a new player's are openskill's defaults.
"""

from __future__ import annotations

__all__ = ["INITIAL_MU", "INITIAL_SIGMA", "PROVISIONAL_GAMES", "display"]

INITIAL_MU = 25.0
INITIAL_SIGMA = 25.0 / 3
PROVISIONAL_GAMES = 10  # rated games before a rating is no longer provisional
POINTS_PER_MU = 60  # the display scale: a new player at 1500


def display(mu: float, sigma: float, rated_games: int) -> tuple[int, bool]:
    """The rating as shown: its value on a scale where a new player is at 1500, and whether it is
    provisional (fewer than :data:`PROVISIONAL_GAMES` rated games, or still as uncertain as a new one's)."""
    value = round(1500 + POINTS_PER_MU * (mu - INITIAL_MU))
    return value, rated_games < PROVISIONAL_GAMES or sigma >= INITIAL_SIGMA
