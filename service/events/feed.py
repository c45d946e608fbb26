"""A game's feed for one reader: the whole state first, then each change after it, none missing.

A reader is a stream or a long poll. It starts from the game's state (the ``game`` event) or
resumes after an event id, and then takes the events that follow as they are saved, the public
ones and its own seat's. Ids resume exactly: a reader that resumes after ``n`` gets every event
after ``n`` that it may see, once.

A reader whose game waits on the server (the last event shows a bot's turn, or an auto-deal: moves
a request left owed, see :mod:`service.games.server_moves`) does not wait for its heartbeat: every
:data:`SERVER_MOVE_PACE` seconds without news it reads the game as a request would, which makes the
next moves (once per game and pace in a process, however many streams watch it). So a game of
bots watched by spectators plays on at a steady pace.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from .. import jsonio
from ..games import GameService
from ..store import GameStore, StoredEvent, StoreSession
from .hub import Hub, Watch

__all__ = ["EventFeed", "Item", "Reader"]

GAME_FINISHED = "game_finished"
SERVER_MOVE_PACE = 0.25  # seconds between a stream's reads of a game that waits on the server


@dataclass(frozen=True, slots=True)
class Item:
    """One event as sent: its id, its type and its JSON text."""

    id: int
    type: str
    data: str


class EventFeed:
    """The feeds of every game, for the readers of this process (at most ``max_streams`` at once)."""

    def __init__(self, games: GameService, store: GameStore, *, max_streams: int, idle_seconds: float = 15.0) -> None:
        self._games = games
        self._store = store
        self.hub = Hub(self._read, max_streams=max_streams, read_kept=_KeptReads(store))
        self.idle_seconds = idle_seconds
        self._listening_pid = 0
        self._lock = threading.Lock()
        self._looked_at: dict[str, float] = {}  # game -> when a reader last looked at it unprompted

    @contextmanager
    def open(self, game_id: str, token: str | None, *, after: int | None, listen: bool = True) -> Iterator[Reader]:
        """A reader of ``game_id``'s feed, as the seat of ``token`` (or a spectator without one),
        from the start (``after`` None) or after that event. Raises the use cases' errors (no such
        game, a token not of this game) and :class:`.StreamsFull`. ``listen=False``: the reader
        only takes its first events here (another process streams the rest), so this process
        need not hear the store's notifications for it (:meth:`listen` if it must after all)."""
        if listen:
            self.listen()
        start = self._games.feed_start(game_id, token)  # on a connection this thread does not keep
        with self.hub.watch(game_id) as watch:
            yield Reader(self, game_id, watch, start.seat, start.last_id, start.finished, start.text, after)

    @contextmanager
    def follow(self, game_id: str, seat: int | None, *, after: int, owed: bool) -> Iterator[Reader]:
        """A reader that goes on with a stream another process started: its seat (checked there),
        the last event it sent, and whether the game then waited on the server's moves."""
        self.listen()
        with self.hub.watch(game_id) as watch:
            reader = Reader(self, game_id, watch, seat, after, False, "", after)
            reader.owed = owed
            yield reader

    def close(self) -> None:
        """End every reader of this process (it is stopping)."""
        self.hub.close()

    def look_at(self, game_id: str, *, owed: bool = False) -> bool:
        """A reader found nothing for a while: read the game as a request would, once per idle period
        per game, so that a stand-in moves for a player whose turn ran out (its events then follow);
        once per :data:`SERVER_MOVE_PACE` when the game is ``owed`` server moves, which that read makes.
        False if another reader looked too recently."""
        now = time.monotonic()
        every = SERVER_MOVE_PACE if owed else self.idle_seconds / 2
        with self._lock:
            if now - self._looked_at.get(game_id, 0.0) < every:
                return False
            self._looked_at[game_id] = now
            if len(self._looked_at) > 4 * max(self.hub.max_streams, 1):
                self._looked_at = {
                    game: when for game, when in self._looked_at.items() if now - when < self.idle_seconds
                }
        self._games.get(game_id)
        return True

    def listen(self) -> None:
        """Hear the store's notifications from now on (once per process: a forked worker listens anew)."""
        with self._lock:
            if self._listening_pid == os.getpid():
                return
            self._listening_pid = os.getpid()
        self._store.notifications.listen(self.hub.notice, self.hub.loop())

    def _read(self, after: Mapping[str, int], limit: int) -> dict[str, list[StoredEvent]]:
        with self._store.session(keep=False) as session:
            return session.new_events(after, limit=limit)


class _KeptReads:
    """The hub's reads, all from its one thread, on a store session that thread keeps: on
    PostgreSQL no pool checkout and pre-ping per read (a round trip, and a wait behind the requests
    for the pool). After a failed read the session is given back (a connection the database
    dropped is discarded) and the next read takes another."""

    def __init__(self, store: GameStore) -> None:
        self._store = store
        self._kept: tuple[int, contextlib.ExitStack, StoreSession] | None = None

    def __call__(self, after: Mapping[str, int], limit: int) -> dict[str, list[StoredEvent]]:
        if self._kept is None or self._kept[0] != os.getpid():  # a forked worker takes its own
            held = contextlib.ExitStack()
            self._kept = (os.getpid(), held, held.enter_context(self._store.session(keep=False)))
        _, held, session = self._kept
        try:
            return session.new_events(after, limit=limit)
        except BaseException as error:
            self._kept = None
            held.__exit__(type(error), error, error.__traceback__)
            raise


class Reader:
    """One reader's place in a game's feed."""

    def __init__(
        self,
        feed: EventFeed,
        game_id: str,
        watch: Watch,
        seat: int | None,
        last_id: int,
        finished: bool,
        state: str,
        after: int | None,
    ) -> None:
        self.seat = seat
        self.game_id = game_id
        self._feed = feed
        self._watch = watch
        self._last_id = last_id  # the last event when the reader started
        self._was_finished = finished
        self.position = last_id if after is None else after
        self._first = [Item(last_id, "game", state)] if after is None else []
        self.finished = finished and self.position >= last_id
        self.owed = _server_moves_next(state)  # the game waits on the server's moves
        self.last_taken: list[Item] = []  # what the last take returned

    def first(self) -> list[Item]:
        """Without ``after``: the ``game`` event (the whole state), then any event saved since it was
        read. Resuming: what follows ``after`` now. (This first take, on the reader's own thread,
        also fills the hub's cache of the game when it is the first to watch it.)"""
        first, self._first = self._first, []
        return first + self._take()

    def take(self) -> list[Item]:
        """The events that came since the last take, without waiting."""
        return self._take()

    def take_as(self, other: Reader) -> list[Item]:
        """What ``other`` just took, when this reader was where it was with the same seat: the same
        items, without looking at the game again (one stream takes for all its like)."""
        self.position, self.owed, self.finished = other.position, other.owed, other.finished
        return other.last_taken

    def next(self, timeout: float) -> list[Item]:
        """The next events this reader may see, waiting up to ``timeout`` seconds for one (then [])."""
        items = self._take()
        if items or self.finished:
            return items
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            owed = self.owed and remaining > SERVER_MOVE_PACE
            if self._watch.wait(self.position, SERVER_MOVE_PACE if owed else max(remaining, 0.0)):
                return self._take()
            if self._feed.hub.closing.is_set():
                return []
            looked = self._feed.look_at(self.game_id, owed=owed)
            items = self._take(refresh=looked or not owed)
            if items or self.finished or not owed:
                return items

    @property
    def closing(self) -> bool:
        return self._feed.hub.closing.is_set()

    @property
    def pace(self) -> float:
        """How long this reader waits for news before it looks at the game itself (:meth:`look_at`)."""
        return SERVER_MOVE_PACE if self.owed else self._feed.idle_seconds

    def look_at(self) -> bool:
        """Nothing came for :attr:`pace`: read the game as a request would (see :meth:`EventFeed.look_at`)."""
        return self._feed.look_at(self.game_id, owed=self.owed)

    def ask(self) -> None:
        """Have the hub read the game again (a notification may have been lost)."""
        self._watch.ask()

    def leave(self) -> None:
        """Another process serves this reader's stream from now on: this one stops watching its
        game (it reads nothing for it on a change) but keeps the stream's slot."""
        self._watch.leave()

    def rejoin(self) -> None:
        """The other process did not take the stream: watch the game again (hearing its changes)."""
        self._feed.listen()
        self._watch.rejoin()

    def _take(self, *, refresh: bool = False) -> list[Item]:
        if refresh:  # nothing came for a while: have the hub's reader look at the database again
            self._watch.ask()
        events, self.position = self._watch.take(self.position, self.seat)
        if events:
            self.owed = _server_moves_next(events[-1].data)
        if any(event.type == GAME_FINISHED for event in events) or (
            self._was_finished and self.position >= self._last_id
        ):
            self.finished = True
        self.last_taken = [Item(event.id, event.type, event.data) for event in events]
        return self.last_taken


@functools.lru_cache(maxsize=1024)  # every stream of the game asks of the same event: parse it once
def _server_moves_next(data: str) -> bool:
    """Whether an event (its JSON text) shows the server to move next: a bot's turn, or an auto-deal."""
    try:
        game = jsonio.loads(data)["game"]
        turn = game["turn"]
        if turn is None:
            return False
        return bool(game["seats"][turn]["bot"]) or (game["status"] == "waiting_for_deal" and bool(game["auto_deal"]))
    except (ValueError, KeyError, IndexError, TypeError):
        return False
