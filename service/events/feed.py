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

A player's own feed (:mod:`.player_feed`) is read the same way, on the same hub, under the key
``player:<id>`` beside the games' ids: the feed sends each key's reads to the game's events or to
the player's.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from functools import partial
from typing import TypeVar

from ..games import (
    DomainEvent,
    GameService,
    PlayerEvent,
    PlayerFeeds,
    decode_event,
    decode_player_event,
    hash_token,
    player_key_hash,
)
from ..store import PLAYER_FEED, GameStore, StoredEvent, StoredPlayerEvent, StoreSession, player_feed_key
from .hub import Hub, Item
from .notifications import Channel
from .player_feed import PlayerReader
from .reader import Reader
from .shares import StreamShares

__all__ = ["EventFeed", "Item", "Reader", "Render", "RenderPlayer"]

T = TypeVar("T")
#: A domain event as the JSON text clients receive.
Render = Callable[[DomainEvent], str]
#: A player's event as the JSON text clients receive.
RenderPlayer = Callable[[PlayerEvent], str]


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
        players: PlayerFeeds | None = None,
        render_player: RenderPlayer | None = None,
    ) -> None:
        """``players`` and ``render_player``: the players' feeds and how their events are rendered
        (without them, no player's feed is read)."""
        self._games = games
        self._players = players
        self.render_player = render_player
        self.shares = shares or StreamShares(per_address=0, per_credential=0)
        self._store = store
        self._channel = channel
        self._render = render
        self._kept = _KeptSession(store)
        self.hub = Hub(
            self._read,
            max_streams=max_streams,
            read_kept=self._read_kept,
            read_heads=self._heads,
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
            key_hash = player_key_hash(token)
            key_holds = None
            if key_hash is not None and start.seat is not None and self._players is not None:
                key_holds = partial(self._players.key_known, key_hash)  # a replaced key's stream ends
            with self.hub.watch(game_id) as watch:
                yield Reader(
                    self.hub,
                    game_id,
                    watch,
                    start.seat,
                    start.last_id,
                    start.finished,
                    state,
                    after,
                    key_holds=key_holds,
                )

    @contextmanager
    def open_player(self, key: str | None, *, after: int | None, address: str = "") -> Iterator[PlayerReader]:
        """A reader of the feed of the player whose key is ``key``, from the start (``after`` None:
        the ``player`` event first) or after that event, for a client at ``address``. Raises
        :class:`.ShareTaken` (before any read), the use cases' errors (no key, a key no player
        has) and :class:`.StreamsFull`."""
        players, render = self._players, self.render_player
        assert players is not None and render is not None, "this feed serves no player's feed"
        credential = hash_token(key) if key is not None else None
        with self.shares.hold(address, credential):
            self._listen()
            start = players.start(key)
            state = render(start.state)
            with self.hub.watch(player_feed_key(start.player_id)) as watch:
                yield PlayerReader(self.hub, watch, start, state, after, players)

    def close(self) -> None:
        """End every reader of this process (it is stopping). Safe in a signal handler."""
        self.hub.close()
        self._channel.close()

    def _listen(self) -> None:
        """Hear the channel from the first reader on."""
        with self._lock:
            if not self._listening:
                self._listening = True
                self._channel.listen(self._notice)

    def _notice(self, key: str | None) -> None:
        """A game or a player's feed changed (``None``: any may have): the hub reads it; a player's
        readers also check their key (it may be what changed)."""
        self.hub.notice(key)
        if key is None or key.startswith(PLAYER_FEED):
            self.hub.stir(key, prefix=PLAYER_FEED)

    def _read(self, after: Mapping[str, int], limit: int) -> dict[str, list[Item]]:
        with self._store.session() as session:
            return self._read_on(session, after, limit)

    def _read_kept(self, after: Mapping[str, int], limit: int) -> dict[str, list[Item]]:
        return self._kept.read(lambda session: self._read_on(session, after, limit))

    def _heads(self, keys: Collection[str]) -> dict[str, tuple[int, datetime | None]]:
        games, players = _split(keys)
        heads = self._kept.heads(games) if games else {}
        if players:
            found = self._kept.read(lambda session: session.player_heads(players))
            heads.update((PLAYER_FEED + player_id, (last, None)) for player_id, last in found.items())
        return heads

    def _read_on(self, session: StoreSession, after: Mapping[str, int], limit: int) -> dict[str, list[Item]]:
        """The new events of the games and players' feeds of ``after``, each rendered as clients receive it."""
        games, players = _split(after)
        items = self._items(session.new_events({key: after[key] for key in games}, limit=limit)) if games else {}
        if players:
            read = session.new_player_events(
                {player_id: after[PLAYER_FEED + player_id] for player_id in players}, limit=limit
            )
            items.update((PLAYER_FEED + player_id, self._player_items(events)) for player_id, events in read.items())
        return items

    def _items(self, stored: dict[str, list[StoredEvent]]) -> dict[str, list[Item]]:
        """The stored domain events, each rendered as clients receive it."""
        return {
            game_id: [Item(event.id, event.type, event.seat, self._render(decode_event(event))) for event in events]
            for game_id, events in stored.items()
        }

    def _player_items(self, events: list[StoredPlayerEvent]) -> list[Item]:
        render = self.render_player
        assert render is not None, "a player's feed is read only by a feed that renders it"
        return [Item(event.id, event.type, None, render(decode_player_event(event))) for event in events]


def _split(keys: Iterable[str]) -> tuple[list[str], list[str]]:
    """The games' ids and the players' ids (their feeds' keys without ``player:``) among ``keys``."""
    games: list[str] = []
    players: list[str] = []
    for key in keys:
        if key.startswith(PLAYER_FEED):
            players.append(key.removeprefix(PLAYER_FEED))
        else:
            games.append(key)
    return games, players


class _KeptSession:
    """The hub's reads, all from its one thread, on a store session that thread keeps: no pool
    checkout (on PostgreSQL, no pre-ping) per read. After a failed read the session is given back
    (a connection the database dropped is discarded) and the next read takes another."""

    def __init__(self, store: GameStore) -> None:
        self._store = store
        self._kept: tuple[contextlib.ExitStack, StoreSession] | None = None

    def heads(self, game_ids: Collection[str]) -> dict[str, tuple[int, datetime | None]]:
        return self.read(lambda session: session.heads(game_ids))

    def read(self, read: Callable[[StoreSession], T]) -> T:
        """``read`` on the kept session."""
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
