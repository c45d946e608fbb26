"""One per process: the games its streams watch, each one's recent events, and the one thread that serves them.

The hub's thread runs an event loop (:mod:`asyncio`, callbacks only) that does every per-change
job of the process: the store's notification source ("game X changed", from
:mod:`service.store.notifications`) is one of its readers; it reads the new events of every game
changed since its last read, in one statement for them all, once for the whole process (every
seat's, kept in a short cache), on a connection it keeps; then it wakes the readers waiting on
each game once (long polls, streams written by their own thread) and tells its subscribers (the
process's stream writer, service.api.stream_writer, whose sockets are the loop's writers too)
which games have news. Each reader takes what follows its own last id and is its seat's or public.
One thread, not a listener, a reader and a writer handing each change on to each other: each
hand-off woke a thread that had to take the GIL back from the requests (docs/benchmarks.md,
"Live events", "After the third fix"). Notifications that come while it reads wait in their
socket or connection and are read together after it, in one read.

A stream that starts (or falls behind the cache) reads for itself, then asks the hub to look
once more, so that a change saved while it read is not missed. A stream that idles for its
heartbeat asks too: a notification that never came makes events late, never lost; after the
listener was cut off, every watched game is read again.
"""

from __future__ import annotations

import asyncio
import bisect
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
#: Told, from the hub's thread, which games' caches it just brought up to date (``None``: the hub is closing).
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
    """The watched games of this process, its thread, and how many streams it may hold at once."""

    def __init__(self, read: ReadEvents, *, max_streams: int, read_kept: ReadEvents | None = None) -> None:
        """``read``: for a stream's own reads, from its thread; ``read_kept``: the hub thread's reads,
        on a connection that thread keeps (default: ``read``)."""
        self._read = read
        self._read_kept = read_kept or read
        self.max_streams = max_streams
        self._lock = threading.RLock()
        self._games: dict[str, _Game] = {}
        self._changed: set[str] = set()  # watched games to read again
        self._read_due = False  # a read is scheduled on the loop
        self._streams = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_pid = 0
        self._subscribers: list[Subscriber] = []
        self.closing = threading.Event()

    def loop(self) -> asyncio.AbstractEventLoop:
        """The hub's event loop, running in its thread (started by the first call in this process,
        anew in a forked worker). Other threads hand it work with ``call_soon_threadsafe``."""
        with self._lock:
            return self._running_loop()

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None or self._loop_pid != os.getpid():
            self._loop, self._loop_pid = asyncio.new_event_loop(), os.getpid()
            self._read_due = False
            threading.Thread(target=_run, args=(self._loop,), name="coins-events", daemon=True).start()
        return self._loop

    def subscribe(self, subscriber: Subscriber) -> None:
        """Also tell ``subscriber``, on the hub's thread, the games whose caches it brought up to date, once per
        read (after their streams were woken), and ``None`` when the hub closes."""
        self._subscribers.append(subscriber)

    def notice(self, game_id: str | None) -> None:
        """A game changed (``None``: any may have): the hub's thread reads it and wakes its streams.
        From any thread; notices that come before that read starts share it."""
        with self._lock:
            if game_id is None:
                self._changed.update(self._games)
            elif game_id in self._games:
                self._changed.add(game_id)
            if not self._changed or self._read_due or self._loop_pid != os.getpid() or self._loop is None:
                return
            self._read_due = True
            loop = self._loop
        loop.call_soon_threadsafe(self._read_changes)

    def close(self) -> None:
        """The process is stopping: every stream ends (its client reconnects elsewhere)."""
        self.closing.set()
        with self._lock:
            games = list(self._games.values())
            loop = self._loop if self._loop_pid == os.getpid() else None
        for game in games:
            with game.changed:
                game.changed.notify_all()
        if loop is not None:  # the loop runs on (a stream handed over late is ended at once)
            loop.call_soon_threadsafe(self._tell_closing)

    def _tell_closing(self) -> None:
        for subscriber in self._subscribers:
            try:
                subscriber(None)
            except Exception:
                log.exception("a subscriber of the event hub failed to stop")

    @contextmanager
    def watch(self, game_id: str) -> Iterator[Watch]:
        """Take one of the process's stream slots and watch ``game_id`` until the block ends."""
        with self._lock:
            if self._streams >= self.max_streams:
                raise StreamsFull(f"this process serves {self.max_streams} streams already")
            self._streams += 1
            game = self._join(game_id)
            self._running_loop()  # the first stream of this process (a forked worker's too) starts it
        watch = Watch(self, game_id, game)
        try:
            yield watch
        finally:
            with self._lock:
                self._streams -= 1
            watch.leave()

    def _join(self, game_id: str) -> _Game:
        with self._lock:
            game = self._games.get(game_id)
            if game is None:
                game = self._games[game_id] = _Game(threading.Condition())
            game.readers += 1
            return game

    def _leave(self, game_id: str, game: _Game) -> None:
        with self._lock:
            game.readers -= 1
            if game.readers == 0:
                del self._games[game_id]
                self._changed.discard(game_id)

    def _read_changes(self) -> None:
        """On the hub's thread: read the new events of every game changed since the last read, in one
        round trip, into their caches, then wake each game's streams once."""
        with self._lock:
            changed, self._changed, self._read_due = self._changed, set(), False
            games = {game_id: self._games[game_id] for game_id in changed if game_id in self._games}
        if self.closing.is_set() or not games:
            return
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
        new = self._read_kept(after, CACHED_EVENTS) if after else {}
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


def _event_id(event: StoredEvent) -> int:
    return event.id


def _run(loop: asyncio.AbstractEventLoop) -> None:
    try:
        loop.run_forever()
    finally:
        loop.close()


class Watch:
    """One stream's view of a watched game."""

    def __init__(self, hub: Hub, game_id: str, game: _Game) -> None:
        self._hub = hub
        self._game_id = game_id
        self._game = game
        self._left = False

    def leave(self) -> None:
        """Stop watching the game, keeping the stream's slot until the watch's block ends: a stream
        another process serves from now on (service.api.stream_relay) costs this one nothing per change."""
        if not self._left:
            self._left = True
            self._hub._leave(self._game_id, self._game)

    def rejoin(self) -> None:
        """Watch the game again after :meth:`leave` (the other process did not take the stream)."""
        if self._left:
            self._game, self._left = self._hub._join(self._game_id), False

    def take(self, after: int, seat: int | None) -> tuple[list[StoredEvent], int]:
        """The events after ``after`` that ``seat`` may see (``None``: public ones only), oldest
        first, and the id of the last event looked at (seen or not: the next ``after``)."""
        game = self._game
        with game.changed:
            covered = game.start != -1 and after >= game.start
            newer = game.events[bisect.bisect_right(game.events, after, key=_event_id) :] if covered else []
        if not covered:  # starting, or behind the cache: read for itself, then have the hub look again
            newer = self._hub._read({self._game_id: after}, CACHED_EVENTS).get(self._game_id, [])
            with game.changed:
                if game.start == -1 and len(newer) < CACHED_EVENTS:
                    game.start, game.events = after, list(newer)
            self.ask()
        visible = [event for event in newer if event.seat is None or event.seat == seat]
        return visible, newer[-1].id if newer else after

    def ask(self) -> None:
        """Have the hub read this game again (a heartbeat's check, or after a stream's own read)."""
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
