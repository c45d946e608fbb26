"""Players' ratings: the finishing order of a game, the Plackett-Luce update, inactivity and the display scale.

The model (this package's names) is pure: the standard library and openskill only (pyproject.toml's
[tool.importlinter] says so); the use cases call it, and store what it returns. Beside it, not
imported here: :mod:`.apply` (a rated game's result applied to its players' ratings, once) and
:mod:`.reads` (ratings as shown, histories, the leaderboard). docs/ratings.md explains the model.
"""

from .display import Shown, display, provisional_from
from .finish import finishing_order
from .inactivity import current_sigma
from .model import NEW_RATING, Rating, rate
from .parameters import (
    BETA,
    DISPLAY_BASE,
    DISPLAY_SCALE,
    KAPPA,
    MIN_RATED_GAMES,
    MU_0,
    SIGMA_0,
    SIGMA_PROVISIONAL,
    TAU,
    TAU_PER_DAY,
)

__all__ = [
    "BETA",
    "DISPLAY_BASE",
    "DISPLAY_SCALE",
    "KAPPA",
    "MIN_RATED_GAMES",
    "MU_0",
    "NEW_RATING",
    "SIGMA_0",
    "SIGMA_PROVISIONAL",
    "TAU",
    "TAU_PER_DAY",
    "Rating",
    "Shown",
    "current_sigma",
    "display",
    "finishing_order",
    "provisional_from",
    "rate",
]
