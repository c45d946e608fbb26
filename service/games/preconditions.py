"""What a change to a game checks before anything else: the version ``If-Match`` names, and that the game has started."""

from __future__ import annotations

from collections.abc import Sequence

from ..engine import Game
from ..store import StoredGame
from .errors import GameCancelled, SeatsOpen, VersionMismatch
from .results import CANCELLED, etag_for

__all__ = ["check_version", "running"]


def check_version(stored: StoredGame, if_match: Sequence[str] | None) -> None:
    """Raise :class:`.VersionMismatch` unless ``If-Match`` is absent, ``*`` or names the game's version."""
    if if_match is None or "*" in if_match:
        return
    current = etag_for(stored.id, stored.version)
    if current not in if_match:
        raise VersionMismatch(f"the game is at version {stored.version}; read it again and retry", etag=current)


def running(stored: StoredGame, game: Game | None) -> Game:
    """The engine's game, or :class:`.SeatsOpen` while a seat is still open (:class:`.GameCancelled`
    once it never will be taken)."""
    if stored.status == CANCELLED:
        raise GameCancelled("the game was cancelled before it started: it never will")
    if game is None:
        raise SeatsOpen(f"{stored.open_seats} seat(s) still open: the game starts when all three are taken")
    return game
