"""What the store holds, as the use cases see it: a game with its seats, actions, tricks and events.

Plain dataclasses, not driver rows or ORM objects: a game is loaded whole, changed in memory
(its new actions and tricks queued on it), and saved once. The snapshot in ``state`` is the
engine's (:func:`service.engine.snapshot`): only the engine reads or writes what is inside it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from .stored_ratings import StoredResult

__all__ = [
    "StoredAction",
    "StoredEvent",
    "StoredGame",
    "StoredPlayer",
    "StoredPlayerEvent",
    "StoredSeat",
    "StoredTrick",
]


@dataclass(slots=True)
class StoredSeat:
    """One seat: open (no token hash, no bot, no player), a person's (an anonymous one's token hash,
    or a player's id) or a bot's (its strength, and the bot's player id; a player who left keeps
    their id on the seat the bot took over)."""

    seat: int
    name: str | None = None
    age: int | None = None
    token_hash: str | None = None
    bot: str | None = None
    joined_at: datetime | None = None
    player_id: str | None = None
    address_hash: str | None = None  # the keyed hash of the address the seat was taken from
    played: bool = False  # the seat's own holder (not a stand-in, nor a leaver's bot) has played a card
    lapses: int = 0  # the deadlines in a row its holder let pass (a stand-in moved): their own move resets it
    #: A rated game's seat: its player's rating as shown (value, provisional) when the game began.
    rating: int | None = None
    rating_provisional: bool | None = None
    #: The player the seat is reserved for (only they take it); kept once they have.
    reserved_for: str | None = None


@dataclass(frozen=True, slots=True)
class StoredAction:
    """One entry of a game's action log, numbered from 1. A deal holds its seed: secret until its hand is over."""

    seq: int
    kind: str  # "deal" or "play"
    seat: int
    hand_number: int
    cause: str  # "player", "bot", "auto" or "timeout"
    created_at: datetime
    card: str | None = None
    seed: str | None = None


@dataclass(frozen=True, slots=True)
class StoredTrick:
    """A completed trick, numbered from 1 across the whole game."""

    number: int
    hand_number: int
    trick_number: int
    leader: int
    plays: list[list[Any]]  # [[seat, card code], …] in the order played
    winner: int
    points: int
    created_at: datetime


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One domain event of a game, numbered from 1: ``data`` is its stored form, JSON text the use
    cases write and read (the store does not look inside). A private event names the only ``seat``
    that may see it."""

    id: int
    type: str
    version: int
    seat: int | None
    data: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class StoredPlayerEvent:
    """One event of a player's own feed: ``data`` is its stored form, JSON text the use cases write
    and read. ``id`` is 0 until it is appended (the feed numbers it then, from 1 per player)."""

    player_id: str
    id: int
    type: str
    data: str
    created_at: datetime


@dataclass(slots=True)
class StoredGame:
    """One game's row and seats, as loaded; changed in memory, then saved once with what it queued."""

    id: str
    version: int
    status: str
    target_score: int
    auto_deal: bool
    seed: str | None
    requested_first_dealer: int | None
    turn_timeout_seconds: int | None
    turn_deadline: datetime | None
    open_seats: int
    trick_count: int
    action_count: int
    event_count: int
    state: dict[str, Any] | None  # the engine's snapshot; None until all three seats are taken
    created_at: datetime
    updated_at: datetime
    rematch_of: str | None = None  # the finished game this one is the rematch of
    rematch: str | None = None  # this finished game's rematch, once a seat asked for one
    rated: bool = False  # every seat a player's or a bot's; rated when it finishes
    winner: int | None = None  # the seat that won, once finished (a column: players' records count it)
    void: bool = False  # a rated game a seat left before playing a card: it rates nobody
    seats: list[StoredSeat] = field(default_factory=list)
    #: The player whose key the request that loaded the game carried (None: no key, or no such
    #: player), read with the game in one statement (see :meth:`.StoreSession.load`), and the
    #: hash of the key it was read for.
    caller: str | None = None
    caller_key: str | None = None
    #: A rated game's result, queued by the change that finishes it and inserted with its save.
    new_result: StoredResult | None = None
    loaded_version: int | None = None  # None for a game not yet inserted
    changed_seats: set[int] = field(default_factory=set)
    new_actions: list[StoredAction] = field(default_factory=list)
    new_tricks: list[StoredTrick] = field(default_factory=list)
    new_events: list[StoredEvent] = field(default_factory=list)
    #: The events of players' own feeds the change makes: appended once it has committed.
    new_player_events: list[StoredPlayerEvent] = field(default_factory=list)

    @property
    def is_stored(self) -> bool:
        return self.loaded_version is not None


_BOOKKEEPING = frozenset(
    {
        "seats",
        "caller",
        "caller_key",
        "new_result",
        "loaded_version",
        "changed_seats",
        "new_actions",
        "new_tricks",
        "new_events",
        "new_player_events",
    }
)

#: Each table's columns (but game_id), by the fields above; tests/store checks them against the tables.
GAME_COLUMNS = tuple(f.name for f in fields(StoredGame) if f.name not in _BOOKKEEPING)
SEAT_COLUMNS = tuple(f.name for f in fields(StoredSeat))
ACTION_COLUMNS = tuple(f.name for f in fields(StoredAction))
TRICK_COLUMNS = tuple(f.name for f in fields(StoredTrick))
EVENT_COLUMNS = tuple(f.name for f in fields(StoredEvent))
#: What a change to a stored game may write; its other columns are set once, when it is created.
CHANGING_GAME_COLUMNS = (
    "version",
    "status",
    "turn_deadline",
    "open_seats",
    "trick_count",
    "action_count",
    "event_count",
    "state",
    "updated_at",
    "rematch",
    "winner",
    "void",
)


@dataclass(slots=True)
class StoredPlayer:
    """A player: an identity across games (a person's, with the hash of their key; or a bot
    strength's, with none), and the state of their rating (its model is the ratings' own)."""

    id: str
    name: str
    bot: str | None
    key_hash: str | None
    mu: float
    sigma: float
    rated_games: int
    rated_at: datetime | None
    created_at: datetime
    listed_until: datetime | None = None  # ranked on the leaderboard until then (None: not ranked)
    address_hash: str | None = None  # the keyed hash of the address that created the player
    opponents: int = 0  # distinct opponents met in rated games, sharing no address
    listable: bool = False  # the leaderboard may list the player (ranked, or rising)
    barred_at: datetime | None = None  # barred from rated play by an operator
    deleted_at: datetime | None = None  # the account was deleted
    legacy_name: bool = False  # the name predates the rule for names, which would refuse it now
    challenges: str = "everyone"  # who may challenge the player: "everyone" or "nobody"

    @property
    def barred(self) -> bool:
        return self.barred_at is not None


PLAYER_COLUMNS = tuple(f.name for f in fields(StoredPlayer))
