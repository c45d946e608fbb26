"""The ratings' stored values: a rated game's result (written as it finishes) and a player's rating history."""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime

__all__ = ["HISTORY_COLUMNS", "StoredEntry", "StoredHistory", "StoredResult"]


@dataclass(frozen=True, slots=True)
class StoredEntry:
    """One seat of a rated game's result: its player (a bot seat's is the bot's player; a seat left
    to a bot keeps the player who left), whether that player is a bot, the place, the score."""

    seat: int
    player: str
    bot: bool
    place: int
    score: int
    left: bool
    address: str | None = None  # the keyed hash of the address the seat was taken from


@dataclass(frozen=True, slots=True)
class StoredResult:
    """What rating a finished rated game needs, keyed by the game: written in its finishing change."""

    game_id: str
    finished_at: datetime
    entries: tuple[StoredEntry, ...]
    applied_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class StoredHistory:
    """One player's rating history entry for one game (``mu_after`` None: a bot's, still pending)."""

    player_id: str
    game_id: str
    finished_at: datetime
    seat: int
    place: int
    score: int
    left: bool
    mu_before: float
    sigma_before: float
    games_before: int
    mu_after: float | None
    sigma_after: float | None
    applied_at: datetime | None
    weight: float = 1.0  # how much the game counted for the player (service.ratings.fairness)


HISTORY_COLUMNS = tuple(f.name for f in fields(StoredHistory))
