"""One per process: the games its readers watch, each one's recent events, and when each is next due.

The hub's one thread does every per-change job of
the process. Told that games changed (by the channel's listener, :mod:`.notifications`, or by a
reader), it reads their heads (each game's last event id and turn deadline) in one statement,
then the new events of those that have any in another, into a short cache per game (every seat's
events), and wakes each game's readers once; each reader takes what follows its own last id and
is public or its seat's.

It also keeps each watched game's next due moment, from the game's turn deadline: when a
person's turn runs out (a stand-in plays), or, while the server owes moves (a bot's turn, an
auto-deal), every :data:`SERVER_MOVE_PACE` seconds. Then it has the game looked at as a request
would (the use cases make the moves owed), on a small pool of threads, so what is due happens at
its moment without a request to trigger it. Every process watching the game does so; the
game's row lock lets the first make the moves, and the others find nothing owed.

A reader that starts (or falls behind the cache) reads for itself, then asks the hub to look
once more, so that a change saved while it read is not missed; a reader that idles for its
heartbeat asks too: a notification that never came makes events late, never lost.
"""

from __future__ import annotations

import bisect
import logging
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime

__all__ = ["SERVER_MOVE_PACE", "Hub", "Item", "StreamsFull", "Watch"]

CACHED_EVENTS = 512  # per watched game: enough for every stream that keeps up
SERVER_MOVE_PACE = 0.25  # seconds between looks at a game while the server owes it moves
LONGEST_SLEEP = 1.0  # the hub's thread wakes at least this often (to see that it should stop)
LOOKERS = 2  # threads that look at due games
log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Item:
    """One event as the feed sends it: its id, its type, the only seat that may see it (None: anyone)
    and its JSON text, rendered once in this process."""

    id: int
    type: str
    seat: int | None
    data: str


#: Several games' events (every seat's), each game's numbered after its own id, at most ``limit``
#: of each, in one round trip: ``read({game_id: after, ...}, limit)``.
ReadEvents = Callable[[Mapping[str, int], int], dict[str, list[Item]]]
#: Several games' heads: each one's last event id and turn deadline (None: nothing due).
ReadHeads = Callable[[Collection[str]], dict[str, tuple[int, datetime | None]]]
#: Look at a game as a request would, making the moves it owes.
LookAt = Callable[[str], object]


class StreamsFull(Exception):
    """This process already serves as many streams as it may."""


@dataclass(eq=False)
class _Game:
    """What the hub knows of one watched game: the events after ``start``, to the last one read,
    and when it is next due."""

    lock: threading.Lock = field(default_factory=threading.Lock)  # the cache's
    grew: threading.Event = field(default_factory=threading.Event)  # set, and replaced, when the cache grows
    readers: int = 0
    start: int = -1  # -1: nothing read yet (the first reader's own read fills the cache)
    events: list[Item] = field(default_factory=list)
    due: float | None = None  # time.monotonic() of the turn deadline; None: nothing due
    looked: float = float("-inf")  # when it was last looked at
    looking: bool = False
    stirs: int = 0  # grows when the readers are to look up from their wait (see Hub.stir)

    @property
    def last(self) -> int:
        return self.events[-1].id if self.events else self.start

    def add(self, new: list[Item]) -> None:
        """Append events read after :attr:`last`, keeping the newest :data:`CACHED_EVENTS`."""
        self.events.extend(event for event in new if event.id > self.last)
        if len(self.events) > CACHED_EVENTS:
            self.start = self.events[-CACHED_EVENTS - 1].id
            del self.events[: len(self.events) - CACHED_EVENTS]

    def wake(self) -> None:
        """Wake every reader waiting on the game (under :attr:`lock`). One event per generation: a
        wait allocates nothing, and one set wakes every waiter."""
        grew, self.grew = self.grew, threading.Event()
        grew.set()

    def next_look(self) -> float | None:
        """When to look at the game next (time.monotonic()), if anything is due."""
        if self.due is None or self.looking:
            return None
        return max(self.due, self.looked + SERVER_MOVE_PACE)


class Hub:
    """The watched games of this process, its thread, and how many streams it may hold at once."""

    def __init__(
        self,
        read: ReadEvents,
        *,
        max_streams: int,
        read_kept: ReadEvents | None = None,
        read_heads: ReadHeads | None = None,
        look_at: LookAt | None = None,
    ) -> None:
        """``read``: a reader's own reads, from its thread; ``read_kept``: the hub thread's (default
        ``read``); ``read_heads``: the hub thread's reads of the games' heads (without it, every
        changed game's events are read, and nothing is ever due); ``look_at``: what to do with a
        game that is due."""
        self._read = read
        self._read_kept = read_kept or read
        self._read_heads = read_heads
        self._look_at = look_at
        self.max_streams = max_streams
        self._lock = threading.RLock()
        self._games: dict[str, _Game] = {}
        self._changed: set[str] = set()  # watched games to read again
        self._streams = 0
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._lookers: ThreadPoolExecutor | None = None
        self.closing = threading.Event()

    def notice(self, game_id: str | None) -> None:
        """A game changed (``None``: any may have): the hub's thread reads it and wakes its readers.
        From any thread; notices that come before that read starts share it."""
        with self._lock:
            if game_id is None:
                self._changed.update(self._games)
            elif game_id in self._games:
                self._changed.add(game_id)
            else:
                return
        self._wake.set()

    def stir(self, key: str | None, *, prefix: str = "") -> None:
        """Have the readers of ``key`` (``None``: of every watched key that starts with ``prefix``)
        look up from their wait at once, with or without new events (a player's key may have been
        replaced: their readers check it)."""
        with self._lock:
            if key is None:
                games = [game for name, game in self._games.items() if name.startswith(prefix)]
            else:
                games = [game for game in [self._games.get(key)] if game is not None]
        for game in games:
            with game.lock:
                game.stirs += 1
                game.wake()

    def close(self) -> None:
        """The process is stopping: every reader ends (its client reconnects elsewhere). Safe in a
        signal handler: the hub's thread wakes the readers."""
        self.closing.set()
        self._wake.set()

    @contextmanager
    def watch(self, game_id: str) -> Iterator[Watch]:
        """Take one of the process's stream slots and watch ``game_id`` until the block ends."""
        with self._lock:
            if self._streams >= self.max_streams:
                raise StreamsFull(f"this process serves {self.max_streams} streams already")
            self._streams += 1
            game = self._games.get(game_id)
            if game is None:
                game = self._games[game_id] = _Game()
            game.readers += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="coins-events", daemon=True)
                self._thread.start()
        try:
            yield Watch(self, game_id, game)
        finally:
            with self._lock:
                self._streams -= 1
                game.readers -= 1
                if game.readers == 0:
                    del self._games[game_id]
                    self._changed.discard(game_id)

    # -- the hub's thread ---------------------------------------------------------------

    def _run(self) -> None:
        while not self.closing.is_set():
            self._wake.wait(self._seconds_to_next_look())
            self._wake.clear()
            if self.closing.is_set():
                break
            try:
                self._read_changes()
                self._look_at_due_games()
            except Exception:  # a bug here must not stop every stream of the process
                log.exception("the event hub failed a round")
        with self._lock:
            games = list(self._games.values())
        for game in games:  # closing: every reader wakes and ends
            with game.lock:
                game.wake()
        if self._lookers is not None:
            self._lookers.shutdown(wait=False, cancel_futures=True)

    def _read_changes(self) -> None:
        """Read the heads of every game changed since the last round, then, in one round trip, the
        new events of those that have any, into their caches; wake each game's readers once, and
        note when each game is next due."""
        with self._lock:
            changed, self._changed = self._changed, set()
            games = {game_id: self._games[game_id] for game_id in changed if game_id in self._games}
        if not games:
            return
        try:
            heads = self._read_heads(list(games)) if self._read_heads is not None else None
            after: dict[str, int] = {}
            for game_id, game in games.items():
                with game.lock:  # a game no reader has read yet: the first one's own read fills the cache
                    if game.start != -1 and (heads is None or heads.get(game_id, (0, None))[0] > game.last):
                        after[game_id] = game.last
            new = self._read_kept(after, CACHED_EVENTS) if after else {}
        except Exception as error:  # the database is away: the readers' heartbeats ask again
            log.warning("could not read the changes of %d games: %s", len(games), type(error).__name__)
            return
        for game_id, last in after.items():
            game = games[game_id]
            with game.lock:
                if game.start != -1 and game.last == last:  # not replaced meanwhile by a reader's own read
                    game.add(new.get(game_id, []))
                if game.last > last:
                    game.wake()
        for game_id, events in new.items():
            if len(events) == CACHED_EVENTS:  # cut short: read the rest
                self.notice(game_id)
        if heads is not None:
            self._note_due_moments(games, heads)

    def _note_due_moments(self, games: dict[str, _Game], heads: dict[str, tuple[int, datetime | None]]) -> None:
        now, wall = time.monotonic(), datetime.now(UTC)
        with self._lock:
            for game_id, game in games.items():
                deadline = heads.get(game_id, (0, None))[1]
                game.due = None if deadline is None else now + (deadline - wall).total_seconds()

    def _seconds_to_next_look(self) -> float:
        now = time.monotonic()
        with self._lock:
            looks = [moment for game in self._games.values() if (moment := game.next_look()) is not None]
        return min([LONGEST_SLEEP, *(max(moment - now, 0.0) for moment in looks)])

    def _look_at_due_games(self) -> None:
        if self._look_at is None:
            return
        now = time.monotonic()
        with self._lock:
            due = [(game_id, game) for game_id, game in self._games.items() if (game.next_look() or now + 1) <= now]
            for _, game in due:
                game.looking, game.looked = True, now
            if due and self._lookers is None:
                self._lookers = ThreadPoolExecutor(LOOKERS, thread_name_prefix="coins-look")
        for game_id, game in due:
            assert self._lookers is not None
            self._lookers.submit(self._look, game_id, game)

    def _look(self, game_id: str, game: _Game) -> None:
        """On a looker's thread: look at the game (its moves' events then come as any change's),
        then have the hub read its due moment again."""
        try:
            assert self._look_at is not None
            self._look_at(game_id)
        except Exception as error:
            log.warning("could not look at game %s: %s", game_id, type(error).__name__)
        finally:
            with self._lock:
                game.looking = False
            self.notice(game_id)  # its head (and due moment) is read again


def _event_id(event: Item) -> int:
    return event.id


class Watch:
    """One reader's view of a watched game."""

    def __init__(self, hub: Hub, game_id: str, game: _Game) -> None:
        self._hub = hub
        self._game_id = game_id
        self._game = game

    def take(self, after: int, seat: int | None) -> tuple[list[Item], int]:
        """The events after ``after`` that ``seat`` may see (``None``: public ones only), oldest
        first, and the id of the last event looked at (seen or not: the next ``after``)."""
        game = self._game
        with game.lock:
            covered = game.start != -1 and after >= game.start
            newer = game.events[bisect.bisect_right(game.events, after, key=_event_id) :] if covered else []
        if not covered:  # starting, or behind the cache: read for itself, then have the hub look again
            newer = self._hub._read({self._game_id: after}, CACHED_EVENTS).get(self._game_id, [])
            with game.lock:
                if game.start == -1 and len(newer) < CACHED_EVENTS:
                    game.start, game.events = after, list(newer)
                    game.wake()
            self.ask()
        visible = [event for event in newer if event.seat is None or event.seat == seat]
        return visible, newer[-1].id if newer else after

    def ask(self) -> None:
        """Have the hub read this game again (a heartbeat's check, or after a reader's own read)."""
        self._hub.notice(self._game_id)

    def wait(self, after: int, timeout: float) -> bool:
        """Sleep until this game has events after ``after`` (True), or the process stops,
        ``timeout`` passes or the hub stirs its readers (False)."""
        game, closing = self._game, self._hub.closing
        deadline = time.monotonic() + timeout
        stirs = game.stirs
        while not closing.is_set():
            with game.lock:
                if game.last > after and game.start != -1:
                    return True
                if game.stirs != stirs:
                    return False
                grew = game.grew
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            grew.wait(remaining)
        return False
