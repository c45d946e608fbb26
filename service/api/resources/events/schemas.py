"""The domain events as the contract describes them: one schema per type, discriminated by ``type``.

Each schema generates its part of the OpenAPI document (``FeedEvent`` is the union of them all,
so generated SDKs get typed events) and, built into a dumper (:mod:`.compiled_dumpers`), is the
one renderer of events (:func:`render_event`): the feed (:mod:`service.events`) reads the stored
domain events and has each rendered once in its process, and streams send that text as it is.
"""

from __future__ import annotations

from typing import Any

from marshmallow import fields, validate

from .... import jsonio
from ....bots import STRENGTHS
from ....games.domain_events import (
    EVENT_TYPES,
    CardPlayedEvent,
    DomainEvent,
    GameCancelledEvent,
    GameEvent,
    GameFinishedEvent,
    HandDealtEvent,
    HandEndedEvent,
    HandEvent,
    RematchCreatedEvent,
    SeatLeftEvent,
    SeatTakenEvent,
    TrickWonEvent,
)
from ...compiled_dumpers import build_dumper
from ...fields import CardField
from ...schemas import CAUSES, GameSchema, HandSchema, RequestSchema, ResponseSchema, TrickSchema

__all__ = [
    "EVENT_SCHEMAS",
    "FEED_EVENT_COMPONENT",
    "FEED_ITEM",
    "EventPageSchema",
    "EventsQuerySchema",
    "UnlistedFeedEventSchema",
    "event_union",
    "feed_item",
    "render_event",
]


def _type(event: type[DomainEvent], description: str) -> fields.String:
    return fields.String(
        required=True,
        validate=validate.OneOf([event.TYPE]),
        metadata={"description": description, "example": event.TYPE},
    )


def _seat(description: str) -> fields.Integer:
    return fields.Integer(required=True, validate=validate.Range(0, 2), metadata={"description": description})


def _cause() -> fields.String:
    return fields.String(
        required=True,
        validate=validate.OneOf(CAUSES),
        metadata={"description": "Who made the move: the `player`, a `bot` seat, the server's `auto`-deal, "
        "or a stand-in after a `timeout`.", "enum_schema": "ActionCause"},
    )  # fmt: skip


class _EventSchema(ResponseSchema):
    id = fields.Integer(
        required=True,
        metadata={"description": "The event's number in this game's feed: resume after it.", "example": 42},
    )
    version = fields.Integer(required=True, metadata={"description": "The game's version after the change."})
    game = fields.Nested(
        GameSchema, required=True, metadata={"description": "The game's public state after the change."}
    )


class GameEventSchema(_EventSchema):
    type = _type(GameEvent, "The whole current state: the first event of every stream that does not resume.")
    hand = fields.Nested(
        HandSchema,
        allow_none=True,
        required=True,
        metadata={"description": "Your own hand, when you authenticated as a seat and a hand is being played."},
    )


class SeatTakenEventSchema(_EventSchema):
    type = _type(SeatTakenEvent, "A player took an open seat.")
    seat = _seat("The seat taken.")
    name = fields.String(allow_none=True, required=True)
    bot = fields.String(
        allow_none=True,
        required=True,
        validate=validate.OneOf(STRENGTHS),
        metadata={"description": "A bot's strength; null for a person.", "enum_schema": "BotStrength"},
    )


class SeatLeftEventSchema(_EventSchema):
    type = _type(SeatLeftEvent, "A person left: a bot plays the seat now, or (before the start) it is open again.")
    seat = _seat("The seat left.")
    bot = fields.String(
        allow_none=True,
        required=True,
        validate=validate.OneOf(STRENGTHS),
        metadata={
            "description": "The bot that took the seat over; null when it is open again.",
            "enum_schema": "BotStrength",
        },
    )


class HandDealtEventSchema(_EventSchema):
    type = _type(HandDealtEvent, "A hand was dealt: its commitment binds the deal (the seed comes with `hand_ended`).")
    hand_number = fields.Integer(required=True)
    dealer = _seat("The dealer.")
    shuffler = _seat("The player on the dealer's right, who shuffled.")
    cutter = _seat("The player on the dealer's left, who cut.")
    leader = _seat("Who leads the first trick.")
    commitment = fields.String(required=True, metadata={"description": "SHA-256 of the hand's secret seed, in hex."})
    cause = _cause()


class HandEventSchema(_EventSchema):
    type = _type(HandEvent, "Private: the cards dealt to your seat. Sent only to a stream authenticated as that seat.")
    seat = _seat("Your seat.")
    hand_number = fields.Integer(required=True)
    cards = fields.List(CardField(), required=True, metadata={"description": "Sorted as `getHand` sorts them."})


class CardPlayedEventSchema(_EventSchema):
    type = _type(CardPlayedEvent, "A card was played.")
    seat = _seat("Who played it.")
    card = CardField(required=True)
    cause = _cause()
    hand_number = fields.Integer(required=True)
    trick_number = fields.Integer(required=True)


class TrickWonEventSchema(_EventSchema):
    type = _type(TrickWonEvent, "The third card settled a trick.")
    trick = fields.Nested(TrickSchema, required=True)


class HandEndedEventSchema(_EventSchema):
    type = _type(HandEndedEvent, "A hand is over: its seed is revealed, so anyone can check its deal.")
    hand_number = fields.Integer(required=True)
    seed = fields.String(
        required=True, metadata={"description": "The hand's seed, in hex: SHA-256 of it is the commitment."}
    )
    commitment = fields.String(required=True)
    scores = fields.List(fields.Integer(), required=True, metadata={"description": "Every seat's score, by seat."})


class GameFinishedEventSchema(_EventSchema):
    type = _type(GameFinishedEvent, "The game is over: the stream ends after this event.")
    winner = _seat("The winner.")
    scores = fields.List(fields.Integer(), required=True, metadata={"description": "Final scores, by seat."})


class RematchCreatedEventSchema(_EventSchema):
    type = _type(
        RematchCreatedEvent,
        "A seat of the finished game asked for a rematch (`rematchGame`). It follows `game_finished`, "
        "after which a stream has ended: a long poll or a stream resumed after that event receives it.",
    )
    rematch = fields.String(
        required=True, metadata={"description": "The new game's id; each seat takes its place with `rematchGame`."}
    )


CANCEL_REASONS = ("declined", "expired")


class GameCancelledEventSchema(_EventSchema):
    type = _type(
        GameCancelledEvent,
        "The game, not started, was cancelled (contract 1.3): a seat reserved for a player was declined, or "
        "its wait ran out. It never starts; the stream ends after this event.",
    )
    reason = fields.String(
        required=True,
        validate=validate.OneOf(CANCEL_REASONS),
        metadata={
            "description": "`declined` (the player a seat was reserved for declined it) or `expired` (it was not "
            "taken in time). Open: later versions may add reasons.",
            "enum_schema": "CancelReason",
        },
    )


class UnlistedFeedEventSchema(_EventSchema):
    """An event of a type this version of the spec does not list: types are added within v1, and a
    client skips those it does not know (docs/compatibility.md). Every game event carries its `id`,
    `version` and `game` (the state after it), so a client skipping one still keeps up. Documents
    the feed's openness: the service renders only the listed types."""

    type = fields.String(
        required=True,
        metadata={
            "description": "A type not listed in this version of the spec: skip the event.",
            "example": "new_type",
        },
    )


#: The schema of each type of event.
EVENT_SCHEMAS: dict[str, type[ResponseSchema]] = {
    GameEvent.TYPE: GameEventSchema,
    SeatTakenEvent.TYPE: SeatTakenEventSchema,
    SeatLeftEvent.TYPE: SeatLeftEventSchema,
    HandDealtEvent.TYPE: HandDealtEventSchema,
    HandEvent.TYPE: HandEventSchema,
    CardPlayedEvent.TYPE: CardPlayedEventSchema,
    TrickWonEvent.TYPE: TrickWonEventSchema,
    HandEndedEvent.TYPE: HandEndedEventSchema,
    GameFinishedEvent.TYPE: GameFinishedEventSchema,
    RematchCreatedEvent.TYPE: RematchCreatedEventSchema,
    GameCancelledEvent.TYPE: GameCancelledEventSchema,
}
assert EVENT_SCHEMAS.keys() == EVENT_TYPES.keys(), "every type of event has its schema"


def event_union(description: str, schemas: dict[str, type[ResponseSchema]]) -> dict[str, Any]:
    """The spec's union of the listed events' schemas (each a component named after its schema),
    told apart by ``type``: a ``oneOf`` with a ``discriminator`` (each form has its own one-value
    ``type``, so an event is exactly one of them; generators make a tagged union of it, where an
    ``anyOf`` made openapi-generator flatten or mistype it). It was an ``anyOf`` of the same forms up
    to 1.3.0: the events it admits are the same (docs/compatibility.md, "Unions of responses")."""
    refs = {name: f"#/components/schemas/{_component(schema)}" for name, schema in schemas.items()}
    return {
        "description": description,
        "oneOf": [{"$ref": ref} for ref in refs.values()],
        "discriminator": {"propertyName": "type", "mapping": refs},
    }


def feed_item(schemas: dict[str, type[ResponseSchema]], unlisted: str) -> list[str]:
    """A feed's item in the spec (``items_ref``): any listed event, or the feed's unlisted event (a type
    added since, to skip), last, an ``anyOf`` of them all. Not the union component then the unlisted
    one: openapi-generator's python types a union inside a union wrongly (mypy refuses its
    ``to_dict``); the flat ``anyOf`` admits the same events."""
    return [*(_component(schema) for schema in schemas.values()), unlisted]


def _component(schema: type[ResponseSchema]) -> str:
    return schema.__name__.removesuffix("Schema")


#: The union of every event, for the spec: what a stream's `data:` holds.
FEED_EVENT_COMPONENT = event_union(
    "One change of a game (or, first, its whole state), told by its `type`: the types this version lists. "
    "A feed may also carry events of types added since (`UnlistedFeedEvent`): skip them.",
    EVENT_SCHEMAS,
)
#: What a game feed's item is: a listed event, or one of a type added since (to skip).
FEED_ITEM = feed_item(EVENT_SCHEMAS, "UnlistedFeedEvent")

_DUMPERS = {name: build_dumper(schema()) for name, schema in EVENT_SCHEMAS.items()}


def render_event(event: DomainEvent) -> str:
    """The domain event as the JSON text clients receive."""
    return jsonio.dumps(_DUMPERS[event.TYPE](event))


#: The largest event id: what the feeds' id columns hold (an INTEGER, 32 bits on PostgreSQL).
MAX_EVENT_ID = 2**31 - 1


class EventsQuerySchema(RequestSchema):
    after = fields.Integer(
        validate=validate.Range(0, MAX_EVENT_ID),
        metadata={
            "description": "Resume after this event `id` (as `Last-Event-ID` does for a stream). An id past "
            "the feed's last event is refused (`400`, `unknown_event_id`): start again without it."
        },
    )
    wait = fields.Integer(
        load_default=0,
        validate=validate.Range(0, 30),
        metadata={"description": "Long poll: seconds to wait for an event when there is none after `after` yet."},
    )


class EventPageSchema(ResponseSchema):
    # Documents the page; the view writes it around the stored events' text. Items are a
    # FeedEvent or an unlisted one (items_ref): the Nested schema only gives the list something to describe.
    items = fields.List(
        fields.Nested(GameEventSchema),
        required=True,
        metadata={"description": "The events after `after`, oldest first (without `after`: the `game` event).",
                  "items_ref": FEED_ITEM},
    )  # fmt: skip
    last_id = fields.Integer(
        required=True, metadata={"description": "The id of the last event given (or `after`): the next `after`."}
    )
