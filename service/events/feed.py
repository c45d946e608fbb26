"""The feeds as reads: where a reader starts, and what follows an event id, rendered as clients receive it.

A reader is a stream or a long poll, of a game's feed or of a player's own. It starts from the
whole state (the ``game`` or ``player`` event) or resumes after an event id, and then takes the
events that follow, the public ones and its own seat's: ids resume exactly. Nothing here waits or
holds a connection: the web role answers a page that need not wait with :meth:`EventFeed.open_game`
alone, and the real-time role (:mod:`service.realtime`) holds the rest, reading what follows with
:meth:`EventFeed.read` whenever the channel (:mod:`.channels`) says a feed changed.

The feed reads the stored domain events (and the players' events) and renders each to the JSON
clients receive with the functions it is given (the API's, from its event schemas), once per read:
every reader of the process sends that text. A player's feed's id is ``player:<id>`` beside the
games' ids (``PLAYER_FEED``), so one read serves both kinds.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass

from ..games import (
    DomainEvent,
    GameService,
    PlayerEvent,
    decode_event,
    decode_player_event,
    hash_token,
    player_key_hash,
)
from ..games.errors import UnknownEventId
from ..players import PlayerFeeds
from ..store import PLAYER_FEED, GameStore, StoredEvent, StoredPlayerEvent, StoreSession, player_feed_id
from .channels import Channel

__all__ = ["GAME_FINISHED", "PAGE_EVENTS", "EventFeed", "Item", "Opening", "Render", "RenderPlayer"]

#: A domain event as the JSON text clients receive.
Render = Callable[[DomainEvent], str]
#: A player's event as the JSON text clients receive.
RenderPlayer = Callable[[PlayerEvent], str]

GAME_FINISHED = "game_finished"  # a game's stream ends after it
PAGE_EVENTS = 512  # events read at once for one feed: a page of a long poll, a stream's catching up


@dataclass(frozen=True, slots=True)
class Item:
    """One event as the feed sends it: its id, its type, the only seat that may see it (None: anyone)
    and its JSON text, rendered once in the process."""

    id: int
    type: str
    seat: int | None
    data: str

    def frame(self) -> str:
        """The event as a stream sends it (Server-Sent Events)."""
        return f"id: {self.id}\nevent: {self.type}\ndata: {self.data}\n\n"


@dataclass(frozen=True, slots=True)
class Opening:
    """Where one reader starts, and what it may take at once.

    ``feed_id``: the feed (a game's id, or ``player:<id>``); ``items``: the state's event first (unless
    it resumes), then the events that follow that it may see; ``position``: the id of the last event
    looked at (seen or not: where it goes on from); ``seat``: the seat whose private events it also
    gets; ``finished``: a game's feed has nothing more to give (its game is over and ``items`` hold
    its end); ``key_hash``: the player key that opened it, which must still hold for it to go on
    (a player's feed, or a seat taken with a key), and ``player_id`` that key's player."""

    feed_id: str
    items: list[Item]
    position: int
    seat: int | None = None
    finished: bool = False
    key_hash: str | None = None
    player_id: str | None = None

    def visible(self, items: Iterable[Item]) -> list[Item]:
        """Those of ``items`` this reader may see: the public ones and its seat's."""
        return [item for item in items if item.seat is None or item.seat == self.seat]


class EventFeed:
    """The feeds of every game and player, over one store."""

    def __init__(
        self,
        games: GameService,
        store: GameStore,
        channel: Channel,
        render: Render,
        *,
        players: PlayerFeeds | None = None,
        render_player: RenderPlayer | None = None,
    ) -> None:
        """``channel``: how changes are heard (:mod:`.channels`; the real-time role listens);
        ``players`` and ``render_player``: the players' feeds and how their events are rendered
        (without them, no player's feed is read)."""
        self._games = games
        self._players = players
        self._render_player = render_player
        self._store = store
        self.channel = channel
        self._render = render

    def open_game(self, game_id: str, token: str | None, *, after: int | None) -> Opening:
        """A reader of ``game_id``'s feed, as the seat of ``token`` (or a spectator without one),
        from the start (``after`` None) or after that event. Raises the use cases' errors (no such
        game, a token not of this game, the database away)."""
        start = self._games.feed_start(game_id, token)
        _check_resumable(f"game {game_id}", after, start.last_id)
        first = [Item(start.last_id, "game", start.seat, self._render(start.state))] if after is None else []
        position = start.last_id if after is None else after
        key_hash = player_key_hash(token) if start.seat is not None else None  # a replaced key ends it
        player_id = (
            start.state.game.seats[start.seat].player if key_hash is not None and start.seat is not None else None
        )
        opening = Opening(game_id, first, position, start.seat, key_hash=key_hash, player_id=player_id)
        return self._taken(opening, game_over=start.finished, last_id=start.last_id)

    def open_player(self, key: str | None, *, after: int | None) -> Opening:
        """A reader of the feed of the player whose key is ``key``, from the start (``after`` None:
        the ``player`` event first) or after that event. Raises the use cases' errors (no key, a
        key no player has)."""
        players, render = self._players, self._render_player
        assert players is not None and render is not None, "this feed serves no player's feed"
        start = players.start(key, after=after)
        _check_resumable("your feed", after, start.last_id)
        self.beat([start.player_id])  # reading the feed, a long poll too, keeps the player's tickets alive
        first = [Item(start.position, "player", None, render(start.state))] if start.state is not None else []
        opening = Opening(
            player_feed_id(start.player_id), first, start.position, key_hash=start.key_hash, player_id=start.player_id
        )
        return self._taken(opening, game_over=False, last_id=start.last_id)

    def _taken(self, opening: Opening, *, game_over: bool, last_id: int) -> Opening:
        """``opening`` with the events that follow its position now (at most :data:`PAGE_EVENTS`)."""
        new = self.read({opening.feed_id: opening.position}).get(opening.feed_id, [])
        position = new[-1].id if new else opening.position
        items = opening.items + opening.visible(new)
        finished = any(item.type == GAME_FINISHED for item in new) or (game_over and position >= last_id)
        return Opening(opening.feed_id, items, position, opening.seat, finished, opening.key_hash, opening.player_id)

    @staticmethod
    def credential(token: str | None, game_id: str | None = None) -> str | None:
        """What a reader's share of streams is counted by: its token's hash, None for a spectator. A
        game's reader's is per game (``game_id``): a seat's token is one game's anyway, and a
        player's key following many games (a bot's, say) has each game's share in each."""
        if token is None:
            return None
        return hash_token(token) if game_id is None else f"{game_id}:{hash_token(token)}"

    def read(self, after: Mapping[str, int], limit: int = PAGE_EVENTS) -> dict[str, list[Item]]:
        """The new events of the feeds of ``after`` (a game's id or a player's feed's id, each
        with the id to read after), every seat's, oldest first, at most ``limit`` of each, each
        rendered as clients receive it: one statement per kind of feed."""
        with self._store.session() as session:
            return self.read_on(session, after, limit)

    def read_for(self, feed_id: str, position: int, key_hash: str | None) -> tuple[list[Item], bool]:
        """A connection's own read of feed ``feed_id`` after ``position`` (:meth:`read`), and whether the
        player key that opened it (``key_hash``) still holds: checked, as the real-time role's
        rounds check it, before any private event (a seat's, or a player's feed's) is handed on (a
        replaced key sees none)."""
        with self._store.session() as session:
            new = self.read_on(session, {feed_id: position}).get(feed_id, [])
            if key_hash is None or not new or not holds_private(feed_id, new):
                return new, True
            return new, key_hash in self.known_keys_on(session, {key_hash})

    def read_on(
        self, session: StoreSession, after: Mapping[str, int], limit: int = PAGE_EVENTS
    ) -> dict[str, list[Item]]:
        """:meth:`read` on a session the caller holds (the real-time role keeps one for its reads)."""
        games, players = _split(after)
        items = self._items(session.new_events({game: after[game] for game in games}, limit=limit)) if games else {}
        if players:
            read = session.new_player_events(
                {player_id: after[PLAYER_FEED + player_id] for player_id in players}, limit=limit
            )
            items.update((PLAYER_FEED + player_id, self._player_items(events)) for player_id, events in read.items())
        return items

    def heads_on(self, session: StoreSession, feed_ids: Collection[str]) -> dict[str, int]:
        """The id of the last event of each feed of ``feed_ids`` (missing: none yet), one statement per kind."""
        games, players = _split(feed_ids)
        heads = {game_id: last for game_id, (last, _) in session.heads(games).items()} if games else {}
        if players:
            heads.update((PLAYER_FEED + player_id, last) for player_id, last in session.player_heads(players).items())
        return heads

    @staticmethod
    def known_keys_on(session: StoreSession, key_hashes: Collection[str]) -> set[str]:
        """Those of the player keys' ``key_hashes`` that still hold (not replaced), one statement."""
        return session.known_keys(key_hashes)

    def session(self) -> AbstractContextManager[StoreSession]:
        """A store session for a caller that reads many times (:meth:`read_on`, :meth:`heads_on`)."""
        return self._store.session()

    def beat(self, player_ids: Collection[str]) -> None:
        """The readers of the feeds of ``player_ids`` are alive (their heartbeat): what the players'
        feeds run on it (quick play keeps those players' tickets alive), for all of them at once."""
        if self._players is not None and player_ids:
            self._players.on_heartbeat(player_ids)

    def close(self) -> None:
        """Stop hearing the channel (a process that listened to it is stopping)."""
        self.channel.close()

    def _items(self, stored: dict[str, list[StoredEvent]]) -> dict[str, list[Item]]:
        """The stored domain events, each rendered as clients receive it."""
        return {
            game_id: [Item(event.id, event.type, event.seat, self._render(decode_event(event))) for event in events]
            for game_id, events in stored.items()
        }

    def _player_items(self, events: list[StoredPlayerEvent]) -> list[Item]:
        render = self._render_player
        assert render is not None, "a player's feed is read only by a feed that renders it"
        return [Item(event.id, event.type, None, render(decode_player_event(event))) for event in events]


def holds_private(feed_id: str, items: Iterable[Item]) -> bool:
    """Whether ``items`` of feed ``feed_id`` include a private event (a player's feed's, or a
    seat's): handed on only after the key that opened the connection is found still holding."""
    return feed_id.startswith(PLAYER_FEED) or any(item.seat is not None for item in items)


def _split(feed_ids: Iterable[str]) -> tuple[list[str], list[str]]:
    """The games' ids and the players' ids (their feeds' ids without ``player:``) among ``feed_ids``."""
    games: list[str] = []
    players: list[str] = []
    for feed_id in feed_ids:
        if feed_id.startswith(PLAYER_FEED):
            players.append(feed_id.removeprefix(PLAYER_FEED))
        else:
            games.append(feed_id)
    return games, players


def _check_resumable(feed: str, after: int | None, last_id: int) -> None:
    """Refuse to resume ``feed`` after an event it has never had (:class:`.UnknownEventId`): its
    reader would wait for ids that come only after as many more events, and miss those."""
    if after is not None and after > last_id:
        raise UnknownEventId(
            f"no event of {feed} has the id {after} (its last is {last_id}): start again without after or Last-Event-ID"
        )
