"""What the store tells after a commit that added events: "game X changed" (the event feed listens).

The store does not know how the message travels (PostgreSQL NOTIFY, Redis, nothing at all on an
SQLite file): the event feed's channel (:mod:`service.events.notifications`) is handed to it.
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["Notifications", "Unheard"]


class Notifications(Protocol):
    """Tells the processes that serve a game's feed that the game changed."""

    def publish(self, game_id: str, connection: Any) -> None:
        """Say that ``game_id`` changed (its write has committed); ``connection`` is the writer's
        driver connection, in autocommit, for a database that notifies through it."""


class Unheard:
    """For a store without a feed (scripts, the purge, benchmarks): nobody is told."""

    def publish(self, game_id: str, connection: Any) -> None:
        return None
