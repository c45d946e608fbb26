"""The after-commit signal: "these feeds changed", best effort, sent by a unit of work once its writes committed.

A feed is named by its id: a game's id, or ``player:<id>`` for a player's feed
(:func:`service.store.player_feed_id`). The signal carries only those ids; the listeners (the
real-time role's hub, the worker) read what changed from the store. Losing one delays a reader
until its next look, never more. The unit of work is handed a :class:`Signals` (the event feed's
channel, :mod:`service.events.channels`, in the service; :class:`NoSignals` in scripts).
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["NoSignals", "Signals"]


class Signals(Protocol):
    """Tells the other processes that feeds changed."""

    def signal(self, feed_ids: tuple[str, ...], connection: Any) -> None:
        """Say that each of ``feed_ids`` changed (their writes have committed), all at once;
        ``connection`` is the writer's driver connection, in autocommit, for a database that
        signals through it (else None)."""


class NoSignals:
    """For a unit of work whose changes nobody follows (scripts, the purge, benchmarks)."""

    def signal(self, feed_ids: tuple[str, ...], connection: Any) -> None:
        return None
