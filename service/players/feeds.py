"""The players' own feeds as use cases: where a reader starts, whether its key still holds, and the
``game_result`` a rated game's ratings owe its players.

A reader of a player's feed starts from the player's state (the ``player`` event: the profile and
the games in progress, each saying whose turn it is), read after the feed's head, so that nothing
after it is missed; the events that follow come from the feed (:mod:`service.events`). The events
a game's change makes are derived with the change (:mod:`service.games.player_events`) and written
to the game's outbox in its transaction, which the worker delivers; so is a rated game's
``game_result`` (:meth:`PlayerFeeds.game_result`, stored by :func:`stamped`), written in the
transaction that applies its ratings.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Protocol

from ..games.errors import GameNotFinished, GameNotFound
from ..games.player_events import PlayerEvent, ShownRatingChange, encode_player_event, game_result_events
from ..games.tokens import player_key_hash
from ..games.transactions import restore
from ..ratings import display
from ..ratings.apply import AppliedResult, OnApplied
from ..store import GameStore, RatingTransaction, StoredPlayerEvent
from .operations import PlayerService
from .results import PlayerGame, Profile

__all__ = [
    "IN_PROGRESS",
    "PlayerFeedStart",
    "PlayerFeeds",
    "PlayerStateEvent",
    "QuickPlay",
    "RatedGames",
    "connect_quick_play",
    "connect_ratings",
    "stamped",
]

log = logging.getLogger(__name__)

#: The statuses of a game in progress, as the ``player`` event lists them.
IN_PROGRESS = ("playing", "waiting_for_deal", "waiting_for_players")
GAMES_PER_STATUS = 100  # the games of each status the player event lists at most
FINISHED = "finished"


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerStateEvent(PlayerEvent):
    """The player's state: the first event of every reader that does not resume (not stored: made
    when read). ``id`` is the feed's last event when it was read."""

    TYPE = "player"
    player: Profile
    games: tuple[PlayerGame, ...]


@dataclass(frozen=True, slots=True)
class PlayerFeedStart:
    """Where a reader of a player's feed starts: the player, the hash of the key it holds (checked
    again on each heartbeat), the id of the event it goes on after (``position``), the id of the
    feed's last event when it was read (``last_id``) and, for a reader that does not resume, the
    ``player`` event (``state``, whose id that is)."""

    player_id: str
    key_hash: str
    position: int
    last_id: int
    state: PlayerStateEvent | None


class PlayerFeeds:
    """The players' feeds over one store."""

    def __init__(
        self,
        store: GameStore,
        players: PlayerService,
        clock: Callable[[], datetime],
    ) -> None:
        self._store = store
        self._players = players
        self.clock = clock
        #: What runs on each heartbeat of the readers of players' feeds, with those players' ids and
        #: the time: quick play's hook (its tickets stay alive while their player follows the feed):
        #: see :meth:`on_heartbeat`.
        self.heartbeat_hooks: list[Callable[[Collection[str], datetime], object]] = []

    def start(self, key: str | None, *, after: int | None = None) -> PlayerFeedStart:
        """Where the reader holding ``key`` starts (:class:`.MissingToken`, :class:`.InvalidKey`): with
        the ``player`` event, or after the event ``after`` it already has (a page, a long poll, a
        stream resumed), for which only the key's player and the feed's head are read: not the profile
        and the games in progress that a ``player`` event is made of."""
        state: PlayerStateEvent | None = None
        if after is not None:
            (player_id, last_id), position = self._players.feed_head_of_key(key), after
        else:
            profile, position, games = self._players.state(key, IN_PROGRESS, limit=GAMES_PER_STATUS)
            player_id, state, last_id = profile.id, PlayerStateEvent(id=position, player=profile, games=games), position
        key_hash = player_key_hash(key)
        assert key_hash is not None, "a valid player key has its hash"
        return PlayerFeedStart(player_id, key_hash, position, last_id, state)

    def holds(self, player_id: str, key_hash: str) -> bool:
        """Whether the key of ``key_hash`` is still ``player_id``'s (not replaced): one statement."""
        with self._store.session() as session:
            player = session.player_by_key(key_hash)
        return player is not None and player.id == player_id

    def key_known(self, key_hash: str) -> bool:
        """Whether some player still holds the key of ``key_hash`` (it was not replaced): one statement."""
        with self._store.session() as session:
            return session.player_by_key(key_hash) is not None

    def on_heartbeat(self, player_ids: Collection[str]) -> None:
        """The readers of the feeds of ``player_ids`` are alive (their heartbeat: a real-time process
        beats for every player it follows at once): run :attr:`heartbeat_hooks` (a failing one is the
        hook's business: it is logged, and the streams go on)."""
        now = self.clock()
        for hook in self.heartbeat_hooks:
            try:
                hook(player_ids, now)
            except Exception as error:
                log.warning("a heartbeat hook of a player's feed failed: %s", type(error).__name__)

    def game_result(self, tx: RatingTransaction, game_id: str, ratings: Mapping[str, ShownRatingChange]) -> None:
        """A rated game's ratings are being applied (in ``tx``): owe each player who sat in it their
        place, scores and rating change (``ratings``, by player id), in the game's outbox, written in
        that transaction. The ratings step calls this once per game."""
        stored = tx.game(game_id)
        if stored is None:
            raise GameNotFound(f"there is no game {game_id!r}")
        game = restore(stored)
        if game is None or stored.status != FINISHED or stored.winner is None:
            raise GameNotFinished("the game is not over")
        tx.owe(
            game_id,
            stamped(game_result_events(stored, stored.version, stored.winner, game.scores, ratings), self.clock()),
        )


class QuickPlay(Protocol):
    """What the player feeds need of quick play (the queue's :class:`QueueService`): its tickets
    kept alive by the feeds' heartbeats."""

    def touch_tickets(self, player_ids: Collection[str], now: datetime | None = None) -> int: ...


def connect_quick_play(queue: QuickPlay, feeds: PlayerFeeds) -> None:
    """Join quick play to the players' feeds (``create_app`` calls it once both exist): each
    heartbeat of a player's feed keeps the player's tickets alive (a ticket whose player neither
    follows the feed nor reads it for 30 s expires). A match's ``match_found`` is written with its
    game, in the game's outbox (:mod:`service.quickplay.queue`); the matching waves are the worker
    role's (:mod:`service.worker.due`), never a reader's."""
    feeds.heartbeat_hooks.append(lambda player_ids, now: queue.touch_tickets(player_ids, now))


class RatedGames(Protocol):
    """What the players' feeds need of the use cases (:class:`.GameService`): news of applied results."""

    def on_rated(self, listener: OnApplied) -> None: ...


def connect_ratings(games: RatedGames, feeds: PlayerFeeds) -> None:
    """Join the ratings to the players' feeds (``create_app`` calls it): as a rated game's result is
    applied, each player who sat in it is owed ``game_result`` (in the same transaction) with their
    rating as shown before and after (a bot's rating follows in its batch and is not told)."""

    def told(applied: AppliedResult, tx: RatingTransaction) -> None:
        shown = {
            change.player_id: ShownRatingChange(
                before=display(change.mu_before, change.sigma_before, change.games_after - 1).value,
                after=display(change.mu_after, change.sigma_after, change.games_after).value,
            )
            for change in applied.changes
        }
        feeds.game_result(tx, applied.game_id, shown)

    games.on_rated(told)


def stamped(events: Iterable[tuple[str, PlayerEvent]], now: datetime) -> list[StoredPlayerEvent]:
    """Players' events in their stored form, to append."""
    return [encode_player_event(player, replace(event, id=0), now) for player, event in events]
