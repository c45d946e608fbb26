"""The game's feed: every change as an event, made as the change is, each with the public state after it.

A change logs its events on a :class:`FeedLog`; before the game is saved, the log's events
are rendered (by the function the API gives :class:`~service.games.GameService`, from the
event schemas) and queued on the stored game, numbered on from the game's last event. So
the feed is written in the same write as the change, and read back as clients receive it.

Events are public but for :class:`HandEvent`: a seat's own cards, only ever sent to that seat.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from ..engine import Card
from ..store import StoredEvent, StoredGame
from .results import HandState, PublicGame, TrickState

__all__ = [
    "EVENT_TYPES",
    "CardPlayedEvent",
    "FeedEvent",
    "FeedLog",
    "FeedStart",
    "GameEvent",
    "GameFinishedEvent",
    "HandDealtEvent",
    "HandEndedEvent",
    "HandEvent",
    "RematchCreatedEvent",
    "Renderer",
    "SeatLeftEvent",
    "SeatTakenEvent",
    "TrickWonEvent",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class FeedEvent:
    """What every event has: its number in the game's feed, the game's version and public state after it."""

    TYPE: ClassVar[str]
    id: int
    version: int
    game: PublicGame

    @property
    def type(self) -> str:
        return self.TYPE


@dataclass(frozen=True, slots=True, kw_only=True)
class GameEvent(FeedEvent):
    """The whole current state: the first event of every stream (not stored: made when read).
    ``hand`` is the reader's own hand, for a reader who is a seat of a game in play."""

    TYPE = "game"
    hand: HandState | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatTakenEvent(FeedEvent):
    TYPE = "seat_taken"
    seat: int
    name: str | None
    bot: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatLeftEvent(FeedEvent):
    """A person left: a bot of ``bot`` strength plays the seat, or (before the start) it is open again."""

    TYPE = "seat_left"
    seat: int
    bot: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class HandDealtEvent(FeedEvent):
    TYPE = "hand_dealt"
    hand_number: int
    dealer: int
    shuffler: int
    cutter: int
    leader: int
    commitment: str
    cause: str


@dataclass(frozen=True, slots=True, kw_only=True)
class HandEvent(FeedEvent):
    """Private: the cards dealt to ``seat``, for that seat's eyes only."""

    TYPE = "hand"
    seat: int
    hand_number: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class CardPlayedEvent(FeedEvent):
    TYPE = "card_played"
    seat: int
    card: Card
    cause: str
    hand_number: int
    trick_number: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TrickWonEvent(FeedEvent):
    TYPE = "trick_won"
    trick: TrickState


@dataclass(frozen=True, slots=True, kw_only=True)
class HandEndedEvent(FeedEvent):
    """A hand is over: its seed is revealed, so its deal can be checked against its commitment."""

    TYPE = "hand_ended"
    hand_number: int
    seed: str
    commitment: str
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class GameFinishedEvent(FeedEvent):
    TYPE = "game_finished"
    winner: int
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class RematchCreatedEvent(FeedEvent):
    """A seat of the finished game asked for a rematch: ``rematch`` is the new game's id."""

    TYPE = "rematch_created"
    rematch: str


#: Every type of event, by its ``type``.
EVENT_TYPES: dict[str, type[FeedEvent]] = {
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
    )
}

#: Turns an event into the JSON text clients receive (the API's, from its event schemas).
Renderer = Callable[[FeedEvent], str]


@dataclass(frozen=True, slots=True)
class FeedStart:
    """Where a reader of a game's feed starts: its seat (None for a spectator), the id of the last
    event the state includes, whether the game is over, and the ``game`` event, rendered."""

    seat: int | None
    last_id: int
    finished: bool
    text: str


class FeedLog:
    """The events of one change to one game, in order, waiting to be rendered and saved with it."""

    def __init__(self) -> None:
        self._events: list[tuple[FeedEvent, int | None]] = []

    def add(
        self,
        stored: StoredGame,
        event: Callable[..., FeedEvent],
        state: PublicGame,
        *,
        to: int | None = None,
        **fields: object,
    ) -> None:
        """Log an event of the change just made, numbered next in the game's feed; with ``to``,
        an event only that seat may see."""
        stored.event_count += 1
        self._events.append((event(id=stored.event_count, version=stored.version, game=state, **fields), to))

    def queue(self, stored: StoredGame, render: Renderer, now: datetime) -> None:
        """Render the logged events and queue them on the stored game, to be saved with it."""
        stored.new_events = [
            StoredEvent(event.id, event.TYPE, event.version, seat, render(event), now) for event, seat in self._events
        ]
