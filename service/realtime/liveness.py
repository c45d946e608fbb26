"""The real-time role's liveness marks: the games it follows, and itself (none is a change of a game).

Two marks the rest of the service reads:

- a game of bots alone moves only while someone follows it (contract 1.3): the role marks the
  games its connections follow as followed for a while, every few seconds, and the worker moves
  such a game only while the mark holds (:meth:`.DueWork.mark_followed`);
- ``/readyz`` reports each role, up or down, from the marks each process writes every few seconds
  (:meth:`.DueWork.beat`), so a real-time role that is down shows there and in the metrics, never as
  a failing status of the web role; likewise a process whose listener for the changes of games is
  lost (its streams then hear of changes only at their heartbeats).

Both are written in short transactions of their own (:class:`.DueWork`), on a background thread.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Collection
from datetime import UTC, datetime, timedelta
from typing import Protocol

from ..store import GameStore

__all__ = ["ROLE", "Liveness", "StoreLiveness"]

ROLE = "realtime"


class Liveness(Protocol):
    """Where the real-time role writes its liveness marks."""

    def games_followed(self, game_ids: Collection[str], *, seconds: float) -> None:
        """These games are followed now, and for ``seconds`` more unless marked again."""

    def alive(self, *, listening: bool) -> None:
        """This process is alive, and hears the changes of games (``listening``) or not."""


class StoreLiveness:
    """The marks in the store."""

    def __init__(self, store: GameStore, instance: str | None = None) -> None:
        self._due = store.due
        self.instance = instance or f"{socket.gethostname()}:{os.getpid()}"

    def games_followed(self, game_ids: Collection[str], *, seconds: float) -> None:
        if game_ids:
            self._due.mark_followed(game_ids, datetime.now(UTC) + timedelta(seconds=seconds))

    def alive(self, *, listening: bool) -> None:
        self._due.beat(ROLE, self.instance, datetime.now(UTC), listening=listening)
