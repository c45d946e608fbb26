"""The domain events: every change to a game as the use cases tell it, each with the public state after it.

A change logs its events on an :class:`EventLog`; before the game is saved, the log's events
are queued on the stored game in their stored form (:mod:`.event_codec`: plain values, not the
API's JSON), numbered on from the game's last event. So the events are written in the same write
as the change; the feed (:mod:`service.events`) reads them back, and the API renders them.

Events are public but for :class:`HandEvent`: a seat's own cards, only ever sent to that seat.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from .. import jsonio
from ..engine import Card
from ..store import StoredEvent, StoredGame
from .plain_values import from_plain, plain_json
from .results import HandState, PublicGame, TrickState

__all__ = [
    "EVENT_TYPES",
    "CardPlayedEvent",
    "DomainEvent",
    "EventLog",
    "FeedStart",
    "GameEvent",
    "GameCancelledEvent",
    "GameFinishedEvent",
    "HandDealtEvent",
    "HandEndedEvent",
    "HandEvent",
    "RematchCreatedEvent",
    "SeatLeftEvent",
    "SeatTakenEvent",
    "TrickWonEvent",
    "decode_event",
    "encode_event",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class DomainEvent:
    """What every event has: its number in the game's feed, the game's version and public state after it."""

    TYPE: ClassVar[str]
    id: int
    version: int
    game: PublicGame

    @property
    def type(self) -> str:
        return self.TYPE


@dataclass(frozen=True, slots=True, kw_only=True)
class GameEvent(DomainEvent):
    """The whole current state: the first event of every stream (not stored: made when read).
    ``hand`` is the reader's own hand, for a reader who is a seat of a game in play."""

    TYPE = "game"
    hand: HandState | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatTakenEvent(DomainEvent):
    TYPE = "seat_taken"
    seat: int
    name: str | None
    bot: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatLeftEvent(DomainEvent):
    """A person left: a bot of ``bot`` strength plays the seat, or (before the start) it is open again."""

    TYPE = "seat_left"
    seat: int
    bot: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class HandDealtEvent(DomainEvent):
    TYPE = "hand_dealt"
    hand_number: int
    dealer: int
    shuffler: int
    cutter: int
    leader: int
    commitment: str
    cause: str


@dataclass(frozen=True, slots=True, kw_only=True)
class HandEvent(DomainEvent):
    """Private: the cards dealt to ``seat``, for that seat's eyes only."""

    TYPE = "hand"
    seat: int
    hand_number: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class CardPlayedEvent(DomainEvent):
    TYPE = "card_played"
    seat: int
    card: Card
    cause: str
    hand_number: int
    trick_number: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TrickWonEvent(DomainEvent):
    TYPE = "trick_won"
    trick: TrickState


@dataclass(frozen=True, slots=True, kw_only=True)
class HandEndedEvent(DomainEvent):
    """A hand is over: its seed is revealed, so its deal can be checked against its commitment."""

    TYPE = "hand_ended"
    hand_number: int
    seed: str
    commitment: str
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class GameFinishedEvent(DomainEvent):
    TYPE = "game_finished"
    winner: int
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class RematchCreatedEvent(DomainEvent):
    """A seat of the finished game asked for a rematch: ``rematch`` is the new game's id."""

    TYPE = "rematch_created"
    rematch: str


@dataclass(frozen=True, slots=True, kw_only=True)
class GameCancelledEvent(DomainEvent):
    """The game will never start: a seat reserved for a player was ``declined``, or ``expired``
    (contract 1.3). The game's last event, as ``game_finished`` is a played game's."""

    TYPE = "game_cancelled"
    reason: str  # "declined" or "expired"


#: Every type of event, by its ``type``.
EVENT_TYPES: dict[str, type[DomainEvent]] = {
    cls.TYPE: cls
    for cls in (
        GameEvent,
        SeatTakenEvent,
        SeatLeftEvent,
        HandDealtEvent,
        HandEvent,
        CardPlayedEvent,
        TrickWonEvent,
        HandEndedEvent,
        GameFinishedEvent,
        RematchCreatedEvent,
        GameCancelledEvent,
    )
}


def encode_event(event: DomainEvent) -> str:
    """The event's stored form, the ``data`` of its row: a JSON object of all its fields, in plain
    values (:mod:`.plain_values`); its type is the row's ``type``."""
    return plain_json(event)


def decode_event(stored: StoredEvent) -> DomainEvent:
    """The domain event a row of the events table holds (the inverse of :func:`encode_event`)."""
    return from_plain(EVENT_TYPES[stored.type], jsonio.loads(stored.data))


@dataclass(frozen=True, slots=True)
class FeedStart:
    """Where a reader of a game's feed starts: its seat (None for a spectator), the id of the last
    event the state includes, whether the game is over, and the ``game`` event (the whole state)."""

    seat: int | None
    last_id: int
    finished: bool
    state: GameEvent


class EventLog:
    """The events of one change to one game, in order, waiting to be saved with it."""

    def __init__(self) -> None:
        self._events: list[tuple[DomainEvent, int | None]] = []

    def add(
        self,
        stored: StoredGame,
        event: Callable[..., DomainEvent],
        state: PublicGame,
        *,
        to: int | None = None,
        **fields: object,
    ) -> None:
        """Log an event of the change just made, numbered next in the game's feed; with ``to``,
        an event only that seat may see."""
        stored.event_count += 1
        self._events.append((event(id=stored.event_count, version=stored.version, game=state, **fields), to))

    @property
    def events(self) -> list[DomainEvent]:
        """The logged events, in order."""
        return [event for event, _ in self._events]

    def queue(self, stored: StoredGame, now: datetime) -> None:
        """Queue the logged events on the stored game, in their stored form, to be saved with it
        (with what they mean for its players: :func:`.player_events.queue_change`)."""
        stored.new_events = [
            StoredEvent(event.id, event.TYPE, event.version, seat, encode_event(event), now)
            for event, seat in self._events
        ]
