"""One per process: the games its streams watch, a short cache of each one's new events, and wake-ups.

A notification ("game X changed", from :mod:`service.store.notifications`) wakes the streams
of X in this process. The first of them to look reads X's new events from the database, once
for all of them (every seat's, kept in a short cache); each stream then takes what follows its
own last id and is its seat's or public. A stream that wakes without a notification (its
heartbeat) reads the database anyway, so a notification that never came is only late, never
lost; after the listener was cut off, every watched game is read again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from ..store import StoredEvent

__all__ = ["Hub", "StreamsFull", "Watch"]

CACHED_EVENTS = 512  # per watched game: enough for every stream that keeps up

#: Reads a game's events (every seat's) numbered after an id: ``read(game_id, after, limit)``.
ReadEvents = Callable[[str, int, int], list[StoredEvent]]


class StreamsFull(Exception):
    """This process already serves as many streams as it may."""


@dataclass(eq=False)
class _Game:
    """What the hub knows of one watched game."""

    changed: threading.Condition
    readers: int = 0
    notices: int = 0  # notifications heard
    read_at: int = -1  # ``notices`` when the cache was last brought up to date
    start: int = -1  # the cache holds every event after this id … (-1: nothing read yet)
    events: list[StoredEvent] = field(default_factory=list)  # … to the last, in order
    reading: bool = False


class Hub:
    """The watched games of this process, and how many streams it may hold at once."""

    def __init__(self, read: ReadEvents, *, max_streams: int) -> None:
        self._read = read
        self.max_streams = max_streams
        self._lock = threading.Lock()
        self._games: dict[str, _Game] = {}
        self._streams = 0
        self.closing = threading.Event()

    @property
    def streams(self) -> int:
        return self._streams

    def notice(self, game_id: str | None) -> None:
        """A game changed (``None``: any may have): wake its streams."""
        with self._lock:
            games = (
                list(self._games.values())
                if game_id is None
                else [self._games[game_id]]
                if game_id in self._games
                else []
            )
        for game in games:
            with game.changed:
                game.notices += 1
                game.changed.notify_all()

    def close(self) -> None:
        """The process is stopping: every stream ends (its client reconnects elsewhere)."""
        self.closing.set()
        self.notice(None)

    @contextmanager
    def watch(self, game_id: str) -> Iterator[Watch]:
        """Take one of the process's stream slots and watch ``game_id`` until the block ends."""
        with self._lock:
            if self._streams >= self.max_streams:
                raise StreamsFull(f"this process serves {self.max_streams} streams already")
            self._streams += 1
            game = self._games.get(game_id)
            if game is None:
                game = self._games[game_id] = _Game(threading.Condition())
            game.readers += 1
        try:
            yield Watch(self, game_id, game)
        finally:
            with self._lock:
                self._streams -= 1
                game.readers -= 1
                if game.readers == 0:
                    del self._games[game_id]

    def _bring_up_to_date(self, game_id: str, game: _Game, after: int) -> None:
        """Read the game's new events into the cache if a notification came since the last read,
        or if the cache does not reach back to ``after``. One reader reads; the others wait for it."""
        with game.changed:
            while game.reading:
                game.changed.wait()
            covered = game.start != -1 and after >= game.start
            if covered and game.read_at == game.notices:
                return
            game.reading = True
            notices = game.notices
            start = game.start if covered else after
            last = game.events[-1].id if covered and game.events else start
        new: list[StoredEvent] = []
        try:
            new = self._read(game_id, last, CACHED_EVENTS)
        finally:
            with game.changed:
                game.reading = False
                if start != game.start:  # the first read, or one for a reader from before the cache
                    game.start, game.events = start, []
                game.events.extend(new)
                if len(game.events) > CACHED_EVENTS:
                    game.start = game.events[-CACHED_EVENTS - 1].id
                    del game.events[: len(game.events) - CACHED_EVENTS]
                if len(new) < CACHED_EVENTS:  # read to the end (else the next look reads on)
                    game.read_at = notices
                game.changed.notify_all()


class Watch:
    """One stream's view of a watched game."""

    def __init__(self, hub: Hub, game_id: str, game: _Game) -> None:
        self._hub = hub
        self._game_id = game_id
        self._game = game

    def take(self, after: int, seat: int | None, *, refresh: bool = False) -> tuple[list[StoredEvent], int]:
        """The events after ``after`` that ``seat`` may see (``None``: public ones only), oldest
        first, and the id of the last event looked at (seen or not: the next ``after``).
        ``refresh`` reads the database even if no notification came."""
        game = self._game
        if refresh:
            with game.changed:
                game.notices += 1
        self._hub._bring_up_to_date(self._game_id, game, after)
        with game.changed:
            newer = [event for event in game.events if event.id > after]
        visible = [event for event in newer if event.seat is None or event.seat == seat]
        return visible, newer[-1].id if newer else after

    def wait(self, after: int, timeout: float) -> bool:
        """Sleep until this game has news after ``after`` (True), or the process stops or
        ``timeout`` passes (False)."""
        game, closing = self._game, self._hub.closing
        deadline = time.monotonic() + timeout
        with game.changed:
            while not closing.is_set():
                if game.notices != game.read_at or (game.events and game.events[-1].id > after):
                    return True
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                game.changed.wait(remaining)
            return False
