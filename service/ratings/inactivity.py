"""How a rating's uncertainty grows again while its player plays no rated game."""

from __future__ import annotations

import math
from datetime import datetime

from .parameters import SIGMA_0, TAU_PER_DAY

SECONDS_PER_DAY = 86_400.0


def days_between(earlier: datetime, later: datetime) -> float:
    """Days (fractional) from ``earlier`` to ``later``; 0 if ``later`` is not after it (a clock's step back)."""
    return max(0.0, (later - earlier).total_seconds() / SECONDS_PER_DAY)


def current_sigma(sigma: float, rated_at: datetime | None, now: datetime) -> float:
    """``sigma`` grown by the time since the last rated game ``rated_at`` (None: never rated), at most SIGMA_0.

    ``min(SIGMA_0, sqrt(sigma² + TAU_PER_DAY² · days))``: applied before a game is rated, and when a
    profile or the leaderboard shows the rating. A sigma already above SIGMA_0 is left as it is.
    """
    if rated_at is None:
        return sigma
    grown = math.sqrt(sigma * sigma + TAU_PER_DAY * TAU_PER_DAY * days_between(rated_at, now))
    return max(sigma, min(SIGMA_0, grown))
