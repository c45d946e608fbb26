"""A game's feed for one reader: the whole state first, then each change after it, none missing.

A reader is a stream or a long poll. It starts from the game's state (the ``game`` event) or
resumes after an event id, and then takes the events that follow as they are saved, the public
ones and its own seat's. Ids resume exactly: a reader that resumes after ``n`` gets every event
after ``n`` that it may see, once. A reader blocks its own thread while it waits (one of the
gthread worker's threads, which costs no CPU while it waits), woken by the process's hub
(:mod:`.hub`), which also makes what is due in the game happen at its moment.

The feed reads the stored domain events and renders each to the JSON clients receive, with the
function :class:`EventFeed` is given (the API's, from its event schemas): the hub's reads once
in the process, shared by all its readers; a reader that reads for itself (starting, or behind
the hub's cache) what it read.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from typing import TypeVar

from ..games import DomainEvent, GameService, decode_event, hash_token
from ..store import GameStore, StoredEvent, StoreSession
from .hub import Hub, Item, Watch
from .notifications import Channel
from .shares import StreamShares

__all__ = ["EventFeed", "Item", "Reader", "Render"]

GAME_FINISHED = "game_finished"
T = TypeVar("T")
#: A domain event as the JSON text clients receive.
Render = Callable[[DomainEvent], str]


class EventFeed:
    """The feeds of every game, for the readers of this process (at most ``max_streams`` at once)."""

    def __init__(
        self,
        games: GameService,
        store: GameStore,
        channel: Channel,
        render: Render,
        *,
        max_streams: int,
        idle_seconds: float = 15.0,
        shares: StreamShares | None = None,
    ) -> None:
        self._games = games
        self.shares = shares or StreamShares(per_address=0, per_credential=0)
        self._store = store
        self._channel = channel
        self._render = render
        self._kept = _KeptSession(store)
        self.hub = Hub(
            self._read,
            max_streams=max_streams,
            read_kept=self._read_kept,
            read_heads=self._kept.heads,
            look_at=games.get,
        )
        self.idle_seconds = idle_seconds
        self._listening = False
        self._lock = threading.Lock()

    @contextmanager
    def open(self, game_id: str, token: str | None, *, after: int | None, address: str = "") -> Iterator[Reader]:
        """A reader of ``game_id``'s feed, as the seat of ``token`` (or a spectator without one),
        from the start (``after`` None) or after that event, for a client at ``address``. Raises
        :class:`.ShareTaken` (before any read), the use cases' errors (no such game, a token not of
        this game) and :class:`.StreamsFull`."""
        # A credential's share is per game: a seat's token is one game's anyway, and a player's key
        # following many games (a bot's, say) has each game's share in each.
        credential = f"{game_id}:{hash_token(token)}" if token is not None else None
        with self.shares.hold(address, credential):
            self._listen()
            start = self._games.feed_start(game_id, token)  # on a connection this thread does not keep
            state = self._render(start.state)
            with self.hub.watch(game_id) as watch:
                yield Reader(self.hub, game_id, watch, start.seat, start.last_id, start.finished, state, after)

    def close(self) -> None:
        """End every reader of this process (it is stopping). Safe in a signal handler."""
        self.hub.close()
        self._channel.close()

    def _listen(self) -> None:
        """Hear the channel from the first reader on."""
        with self._lock:
            if not self._listening:
                self._listening = True
                self._channel.listen(self.hub.notice)

    def _read(self, after: Mapping[str, int], limit: int) -> dict[str, list[Item]]:
        with self._store.session() as session:
            return self._items(session.new_events(after, limit=limit))

    def _read_kept(self, after: Mapping[str, int], limit: int) -> dict[str, list[Item]]:
        return self._items(self._kept.new_events(after, limit))

    def _items(self, stored: dict[str, list[StoredEvent]]) -> dict[str, list[Item]]:
        """The stored domain events, each rendered as clients receive it."""
        return {
            game_id: [Item(event.id, event.type, event.seat, self._render(decode_event(event))) for event in events]
            for game_id, events in stored.items()
        }


class _KeptSession:
    """The hub's reads, all from its one thread, on a store session that thread keeps: no pool
    checkout (on PostgreSQL, no pre-ping) per read. After a failed read the session is given back
    (a connection the database dropped is discarded) and the next read takes another."""

    def __init__(self, store: GameStore) -> None:
        self._store = store
        self._kept: tuple[contextlib.ExitStack, StoreSession] | None = None

    def new_events(self, after: Mapping[str, int], limit: int) -> dict[str, list[StoredEvent]]:
        return self._read(lambda session: session.new_events(after, limit=limit))

    def heads(self, game_ids: Collection[str]) -> dict[str, tuple[int, datetime | None]]:
        return self._read(lambda session: session.heads(game_ids))

    def _read(self, read: Callable[[StoreSession], T]) -> T:
        if self._kept is None:
            held = contextlib.ExitStack()
            self._kept = (held, held.enter_context(self._store.session()))
        held, session = self._kept
        try:
            return read(session)
        except BaseException as error:
            self._kept = None
            held.__exit__(type(error), error, error.__traceback__)
            raise


class Reader:
    """One reader's place in a game's feed."""

    def __init__(
        self,
        hub: Hub,
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
        self._hub = hub
        self._watch = watch
        self._last_id = last_id  # the last event when the reader started
        self._was_finished = finished
        self.position = last_id if after is None else after
        self._first = [Item(last_id, "game", seat, state)] if after is None else []
        self.finished = finished and self.position >= last_id

    @property
    def closing(self) -> bool:
        return self._hub.closing.is_set()

    def first(self) -> list[Item]:
        """Without ``after``: the ``game`` event (the whole state), then any event saved since it was
        read. Resuming: what follows ``after`` now."""
        first, self._first = self._first, []
        return first + self._take()

    def next(self, timeout: float) -> list[Item]:
        """The next events this reader may see, waiting up to ``timeout`` seconds for one (then [],
        after asking the hub to look at the game again: a notification may have been lost)."""
        items = self._take()
        if items or self.finished:
            return items
        deadline = time.monotonic() + timeout
        while not self.closing:
            if self._watch.wait(self.position, max(deadline - time.monotonic(), 0.0)):
                items = self._take()
                if items or self.finished:
                    return items
                continue  # only other seats' events: wait on
            self._watch.ask()
            return []
        return []

    def _take(self) -> list[Item]:
        events, self.position = self._watch.take(self.position, self.seat)
        if any(event.type == GAME_FINISHED for event in events) or (
            self._was_finished and self.position >= self._last_id
        ):
            self.finished = True
        return events
