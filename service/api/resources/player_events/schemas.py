"""A player's events as the contract describes them: one schema per type, discriminated by ``type``.

As for a game's events (:mod:`..events.schemas`): each schema generates its part of the OpenAPI
document (``PlayerEvent`` is the union of them all, for typed SDKs) and, built into a dumper, is
the one renderer of a player's events (:func:`render_player_event`), used by the feed once per
event in its process.
"""

from __future__ import annotations

from marshmallow import fields, validate

from .... import jsonio
from ....games import (
    ChallengeReceivedEvent,
    GameCancelledPlayerEvent,
    GameResultEvent,
    GameStartedEvent,
    MatchFoundEvent,
    PlayerEvent,
    RematchOfferedEvent,
    YourTurnEvent,
)
from ....players import PlayerStateEvent
from ...compiled_dumpers import build_dumper
from ...schemas import ACTION_KINDS, GameSchema, HandSchema, ResponseSchema
from ..events.schemas import event_union, feed_item
from ..players.schemas import PlayerGameSchema, PlayerSchema

__all__ = [
    "PLAYER_EVENT_COMPONENT",
    "PLAYER_EVENT_SCHEMAS",
    "PLAYER_FEED_ITEM",
    "PlayerEventPageSchema",
    "UnlistedPlayerEventSchema",
    "render_player_event",
]

GAME_ID = {"description": "The game's id.", "example": "01m8qhcrc96c9c2j46ep4my6k7"}


def _type(event: type[PlayerEvent], description: str) -> fields.String:
    return fields.String(
        required=True,
        validate=validate.OneOf([event.TYPE]),
        metadata={"description": description, "example": event.TYPE},
    )


def _game() -> fields.String:
    return fields.String(required=True, metadata=GAME_ID)


def _seat(description: str) -> fields.Integer:
    return fields.Integer(required=True, validate=validate.Range(0, 2), metadata={"description": description})


def _version() -> fields.Integer:
    return fields.Integer(required=True, metadata={"description": "The game's version after the change."})


class _PlayerEventSchema(ResponseSchema):
    id = fields.Integer(
        required=True,
        metadata={"description": "The event's number in your feed (per player): resume after it.", "example": 7},
    )


class PlayerStateEventSchema(_PlayerEventSchema):
    type = _type(PlayerStateEvent, "Your state: the first event of every stream or page that does not resume.")
    player = fields.Nested(PlayerSchema, required=True, metadata={"description": "Your profile."})
    games = fields.List(
        fields.Nested(PlayerGameSchema),
        required=True,
        metadata={
            "description": "Your games in progress (`your_turn` says which wait for you), newest first by status."
        },
    )


class MatchFoundEventSchema(_PlayerEventSchema):
    type = _type(MatchFoundEvent, "Quick play matched your ticket: the new game is dealt by the server.")
    ticket = fields.String(required=True, metadata={"description": "Your ticket's id."})
    game = _game()


class GameStartedEventSchema(_PlayerEventSchema):
    type = _type(GameStartedEvent, "A game you sit in started: its third seat was taken (or it was made full).")
    game = _game()
    version = _version()
    seat = _seat("Your seat.")


class YourTurnEventSchema(_PlayerEventSchema):
    type = _type(
        YourTurnEvent,
        "Your seat is to act in this game (after a change by anyone): deal or play. It carries what the "
        "move needs (`state`, and `hand` to play), so a script moves with one request.",
    )
    game = _game()
    version = _version()
    seat = _seat("Your seat.")
    action = fields.String(
        required=True,
        validate=validate.OneOf(ACTION_KINDS),
        metadata={"description": "What is due: `deal` the next hand or `play` a card.", "enum_schema": "ActionKind"},
    )
    turn_deadline = fields.DateTime(
        allow_none=True,
        required=True,
        metadata={"description": "When a stand-in moves for you (null: the game has no turn timeout)."},
    )
    state = fields.Nested(
        GameSchema,
        allow_none=True,
        required=True,
        metadata={
            "description": "The game's public state at `version`, as `getGame` answers it (null only in an "
            "event stored before version 1.3 of the service, which a feed may still hold)."
        },
    )
    hand = fields.Nested(
        HandSchema,
        allow_none=True,
        required=True,
        metadata={
            "description": "Your own cards at `version`, as `getHand` answers them, when `action` is `play`; "
            "null when it is `deal`. Only ever your seat's cards."
        },
    )


class ShownRatingChangeSchema(ResponseSchema):
    before = fields.Integer(required=True, metadata={"description": "Your rating's value before the game."})
    after = fields.Integer(required=True, metadata={"description": "Your rating's value after it."})


class GameResultEventSchema(_PlayerEventSchema):
    type = _type(GameResultEvent, "A game you sat in is over.")
    game = _game()
    version = _version()
    seat = _seat("Your seat.")
    place = fields.Integer(required=True, validate=validate.Range(1, 3), metadata={"description": "Your place."})
    places = fields.List(
        fields.Integer(),
        required=True,
        metadata={"description": "Every seat's place, by seat: 1 the winner, the others by score (equal scores tie)."},
    )
    scores = fields.List(fields.Integer(), required=True, metadata={"description": "Final scores, by seat."})
    rated = fields.Boolean(required=True)
    rating = fields.Nested(
        ShownRatingChangeSchema,
        allow_none=True,
        required=True,
        metadata={"description": "Your rating's change; null when the game was not rated, or was void."},
    )
    void = fields.Boolean(
        required=True,
        metadata={
            "description": "A rated game a seat left (or lapsed out of) before playing its first card: it "
            "rated nobody (`rating` is null). False otherwise."
        },
    )


class RematchOfferedEventSchema(_PlayerEventSchema):
    type = _type(RematchOfferedEvent, "Another seat of a finished game you sat in asked for a rematch.")
    game = fields.String(required=True, metadata={"description": "The finished game."})
    version = _version()
    seat = _seat("Your seat at the finished game.")
    rematch = fields.String(
        required=True, metadata={"description": "The rematch's id: take your place with `rematchGame` on `game`."}
    )


class ChallengeReceivedEventSchema(_PlayerEventSchema):
    type = _type(
        ChallengeReceivedEvent,
        "Another player challenged you: a seat of a new game is reserved for you. Accept with `joinGame` "
        '(`{"player": "me"}`), decline with `declineChallenge`; unanswered by `expires_at`, the game is cancelled.',
    )
    game = _game()
    version = _version()
    seat = _seat("The seat reserved for you.")
    challenger = fields.String(required=True, metadata={"description": "The challenger's player id (`getPlayer`)."})
    expires_at = fields.DateTime(
        required=True, metadata={"description": "When the game is cancelled unless every reserved seat is taken."}
    )
    state = fields.Nested(
        GameSchema, required=True, metadata={"description": "The game as it stands: its clock, `rated`, its seats."}
    )


class PlayerGameCancelledEventSchema(_PlayerEventSchema):
    type = _type(
        GameCancelledPlayerEvent,
        "A game you sat in, or had a seat reserved in, was cancelled before it started: it never will.",
    )
    game = _game()
    version = _version()
    seat = _seat("Your seat (taken, or reserved for you).")
    reason = fields.String(
        required=True,
        validate=validate.OneOf(("declined", "expired")),
        metadata={"description": "`declined` or `expired`. Open: later versions may add reasons.",
                  "enum_schema": "CancelReason"},
    )  # fmt: skip


class UnlistedPlayerEventSchema(_PlayerEventSchema):
    """An event of a type this version of the spec does not list: types are added within v1, and a
    client skips those it does not know (docs/compatibility.md). Documents the feed's openness: the
    service renders only the listed types."""

    type = fields.String(
        required=True,
        metadata={
            "description": "A type not listed in this version of the spec: skip the event.",
            "example": "new_type",
        },
    )


#: The schema of each type of a player's event.
PLAYER_EVENT_SCHEMAS: dict[str, type[ResponseSchema]] = {
    PlayerStateEvent.TYPE: PlayerStateEventSchema,
    MatchFoundEvent.TYPE: MatchFoundEventSchema,
    GameStartedEvent.TYPE: GameStartedEventSchema,
    YourTurnEvent.TYPE: YourTurnEventSchema,
    GameResultEvent.TYPE: GameResultEventSchema,
    RematchOfferedEvent.TYPE: RematchOfferedEventSchema,
    ChallengeReceivedEvent.TYPE: ChallengeReceivedEventSchema,
    GameCancelledPlayerEvent.TYPE: PlayerGameCancelledEventSchema,
}


#: The union of a player's events, for the spec.
PLAYER_EVENT_COMPONENT = event_union(
    "One event of your own feed (or, first, your state), told by its `type`: the types this version lists. "
    "Your feed may also carry events of types added since (`UnlistedPlayerEvent`): skip them.",
    PLAYER_EVENT_SCHEMAS,
)
#: What a player feed's item is: a listed event, or one of a type added since (to skip).
PLAYER_FEED_ITEM = feed_item(PLAYER_EVENT_SCHEMAS, "UnlistedPlayerEvent")

_DUMPERS = {name: build_dumper(schema()) for name, schema in PLAYER_EVENT_SCHEMAS.items()}


def render_player_event(event: PlayerEvent) -> str:
    """The player's event as the JSON text clients receive."""
    return jsonio.dumps(_DUMPERS[event.TYPE](event))


class PlayerEventPageSchema(ResponseSchema):
    # Documents the page; the view writes it around the events' text (as the game feed's page).
    items = fields.List(
        fields.Nested(PlayerStateEventSchema),
        required=True,
        metadata={"description": "The events after `after`, oldest first (without `after`: the `player` event).",
                  "items_ref": PLAYER_FEED_ITEM},
    )  # fmt: skip
    last_id = fields.Integer(
        required=True, metadata={"description": "The id of the last event given (or `after`): the next `after`."}
    )
