"""One per process: the games its streams watch, each one's recent events, and one reader that wakes them.

A notification ("game X changed", from :mod:`service.store.notifications`) only marks X as
changed. The hub's reader thread then reads the new events of every game marked since its last
read, in one statement for them all, once for the whole process (every seat's, kept in a short
cache), then wakes the readers waiting on each game once and tells its subscribers (the process's
stream writer, service.api.stream_writer) which games have news; each reader takes what follows
its own last id and is its seat's or public. (Reading the games one round trip at a time, the reader fell behind
on PostgreSQL with 100 games in play: docs/benchmarks.md, "Live events".) Measured with 2,000 open
streams (docs/benchmarks.md, "Live events"): waking every stream to let one of them read, then
waking them all again, cost more than the reads.

A stream that starts (or falls behind the cache) reads for itself, then asks the reader to look
once more, so that a change saved while it read is not missed. A stream that idles for its
heartbeat asks too: a notification that never came makes events late, never lost; after the
listener was cut off, every watched game is read again.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

from ..store import StoredEvent

__all__ = ["Hub", "StreamsFull", "Watch"]

CACHED_EVENTS = 512  # per watched game: enough for every stream that keeps up
log = logging.getLogger(__name__)

#: Reads several games' events (every seat's), each game's numbered after its own id, at most
#: ``limit`` of each, in one round trip: ``read({game_id: after, ...}, limit)``.
ReadEvents = Callable[[Mapping[str, int], int], dict[str, list[StoredEvent]]]
#: Told, from the reader thread, which games' caches it just brought up to date (``None``: the hub is closing).
Subscriber = Callable[[list[str] | None], None]


class StreamsFull(Exception):
    """This process already serves as many streams as it may."""


@dataclass(eq=False)
class _Game:
    """What the hub knows of one watched game: the events after ``start``, to the last one read."""

    changed: threading.Condition
    readers: int = 0
    start: int = -1  # -1: nothing read yet (the first stream's own read fills the cache)
    events: list[StoredEvent] = field(default_factory=list)

    @property
    def last(self) -> int:
        return self.events[-1].id if self.events else self.start

    def add(self, new: list[StoredEvent]) -> None:
        """Append events read after :attr:`last`, keeping the newest :data:`CACHED_EVENTS`."""
        self.events.extend(event for event in new if event.id > self.last)
        if len(self.events) > CACHED_EVENTS:
            self.start = self.events[-CACHED_EVENTS - 1].id
            del self.events[: len(self.events) - CACHED_EVENTS]


class Hub:
    """The watched games of this process, its reader, and how many streams it may hold at once."""

    def __init__(self, read: ReadEvents, *, max_streams: int) -> None:
        self._read = read
        self.max_streams = max_streams
        self._lock = threading.Condition()
        self._games: dict[str, _Game] = {}
        self._changed: set[str] = set()  # watched games to read again
        self._streams = 0
        self._reader_pid = 0
        self._subscribers: list[Subscriber] = []
        self.closing = threading.Event()

    def subscribe(self, subscriber: Subscriber) -> None:
        """Also tell ``subscriber`` the games whose caches the reader brought up to date, once per
        read (after their streams were woken), and ``None`` when the hub closes."""
        self._subscribers.append(subscriber)

    def notice(self, game_id: str | None) -> None:
        """A game changed (``None``: any may have): the reader reads it and wakes its streams."""
        with self._lock:
            if game_id is None:
                self._changed.update(self._games)
            elif game_id in self._games:
                self._changed.add(game_id)
            else:
                return
            self._lock.notify()

    def close(self) -> None:
        """The process is stopping: every stream ends (its client reconnects elsewhere)."""
        self.closing.set()
        with self._lock:
            games = list(self._games.values())
            self._lock.notify()
        for game in games:
            with game.changed:
                game.changed.notify_all()
        for subscriber in self._subscribers:
            subscriber(None)

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
            if self._reader_pid != os.getpid():  # first stream of this process (a forked worker's too)
                self._reader_pid = os.getpid()
                threading.Thread(target=self._read_changes, name="coins-events-reader", daemon=True).start()
        try:
            yield Watch(self, game_id, game)
        finally:
            with self._lock:
                self._streams -= 1
                game.readers -= 1
                if game.readers == 0:
                    del self._games[game_id]
                    self._changed.discard(game_id)

    def _read_changes(self) -> None:
        """The reader: reads the new events of every game changed since its last read, in one round
        trip, into their caches, then wakes each game's streams once."""
        while not self.closing.is_set():
            with self._lock:
                while not self._changed and not self.closing.is_set():
                    self._lock.wait()
                changed, self._changed = self._changed, set()
                games = {game_id: self._games[game_id] for game_id in changed if game_id in self._games}
            try:
                self._bring_up_to_date(games)
            except Exception as error:  # the database is away: the streams' heartbeats ask again
                log.warning("could not read the events of %d games: %s", len(games), type(error).__name__)

    def _bring_up_to_date(self, games: dict[str, _Game]) -> None:
        after: dict[str, int] = {}
        for game_id, game in games.items():
            with game.changed:
                if game.start != -1:  # else no stream has read it yet: the first one's own read fills the cache
                    after[game_id] = game.last
        new = self._read(after, CACHED_EVENTS) if after else {}
        for game_id, last in after.items():
            game = games[game_id]
            with game.changed:
                if game.start != -1 and game.last == last:  # not replaced meanwhile by a stream's own read
                    game.add(new.get(game_id, []))
                game.changed.notify_all()
        for subscriber in self._subscribers:
            subscriber(list(after))
        for game_id, events in new.items():
            if len(events) == CACHED_EVENTS:  # cut short: read the rest
                self.notice(game_id)


class Watch:
    """One stream's view of a watched game."""

    def __init__(self, hub: Hub, game_id: str, game: _Game) -> None:
        self._hub = hub
        self._game_id = game_id
        self._game = game

    def take(self, after: int, seat: int | None) -> tuple[list[StoredEvent], int]:
        """The events after ``after`` that ``seat`` may see (``None``: public ones only), oldest
        first, and the id of the last event looked at (seen or not: the next ``after``)."""
        game = self._game
        with game.changed:
            covered = game.start != -1 and after >= game.start
            newer = [event for event in game.events if event.id > after] if covered else []
        if not covered:  # starting, or behind the cache: read for itself, then have the reader look again
            newer = self._hub._read({self._game_id: after}, CACHED_EVENTS).get(self._game_id, [])
            with game.changed:
                if game.start == -1 and len(newer) < CACHED_EVENTS:
                    game.start, game.events = after, list(newer)
            self.ask()
        visible = [event for event in newer if event.seat is None or event.seat == seat]
        return visible, newer[-1].id if newer else after

    def ask(self) -> None:
        """Have the reader read this game again (a heartbeat's check, or after a stream's own read)."""
        self._hub.notice(self._game_id)

    def wait(self, after: int, timeout: float) -> bool:
        """Sleep until this game has events after ``after`` (True), or the process stops or
        ``timeout`` passes (False)."""
        game, closing = self._game, self._hub.closing
        deadline = time.monotonic() + timeout
        with game.changed:
            while not closing.is_set():
                if game.last > after and game.start != -1:
                    return True
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                game.changed.wait(remaining)
            return False
