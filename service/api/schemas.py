"""The representations every resource shares: a game, its seats and tricks, a hand, a player to seat, a
problem. Each resource's own request and response schemas are in ``resources/<name>/schemas.py``."""

from __future__ import annotations

import copy
from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from ..bots import STRENGTHS
from ..games.results import STATUSES
from .fields import NAME_RULE, CardField, JsonInteger, PlayerName, seat_field
from .problems import PROBLEMS

AGE = validate.Range(0, 150)
FIRST_DEALER_CHOICES = ("named", "oldest", "drawn")
#: Who made a move: the seat's person (or player), its bot, the server's auto-deal, a stand-in after a timeout.
CAUSES = ("player", "bot", "auto", "timeout")
#: What a seat does on its turn, and what an action of the log is.
ACTION_KINDS = ("deal", "play")
#: Who holds a seat, as a record tells it.
SEAT_KINDS = ("person", "bot", "open")
_seat = seat_field


def fields_of(schema: type[ma.Schema], attribute: str) -> dict[str, ma.fields.Field[Any]]:
    """Copies of ``schema``'s declared fields that read their values from ``<attribute>.<name>``:
    a nested object's fields at the top level of another schema."""
    copies = {}
    for name, declared in schema().declared_fields.items():
        copies[name] = copy.copy(declared)
        copies[name].attribute = f"{attribute}.{declared.attribute or name}"
    return copies


class RequestSchema(ma.Schema):
    """What a client sends, a body or a query: closed. A body's field it does not declare is refused
    (``422 validation_error``, so typos surface; webargs ignores a query's unknown parameters) and
    its enums take only the values they list; the spec says so (``additionalProperties: false``,
    closed enums)."""

    class Meta:
        unknown = ma.RAISE


class ResponseSchema(ma.Schema):
    """What a client reads, an answer, an event, a problem or a page: open. Within ``/v1`` it may
    gain fields and its enums values (docs/compatibility.md), and a reader ignores what it does not
    know: ``unknown = EXCLUDE`` says so, which apispec documents by leaving ``additionalProperties``
    out; its named enums are documented open (:func:`.openapi.named_enum_to_ref`). It is never
    loaded: the service only dumps it."""

    class Meta:
        unknown = ma.EXCLUDE


# -- requests ---------------------------------------------------------------------------


class NewPlayerSchema(RequestSchema):
    name = PlayerName(
        required=True, metadata={"description": f"Shown to the other players. {NAME_RULE}", "example": "Ana"}
    )
    age = JsonInteger(
        validate=AGE,
        allow_none=True,
        metadata={
            "description": "Optional. The oldest player deals first (rules); never shown to others.",
            "example": 41,
        },
    )


# -- responses --------------------------------------------------------------------------


class PlaySchema(ResponseSchema):
    seat = _seat("The seat that played.", required=True)
    card = CardField(required=True)


class TrickSchema(ResponseSchema):
    hand_number = fields.Integer(required=True, metadata={"example": 1})
    trick_number = fields.Integer(required=True, metadata={"description": "1 to 16 within the hand.", "example": 3})
    leader = _seat("The seat that led the trick.", required=True)
    plays = fields.List(fields.Nested(PlaySchema), required=True, metadata={"description": "In play order."})
    complete = fields.Boolean(required=True, metadata={"description": "Three cards played."})
    winner = fields.Integer(
        allow_none=True, required=True, metadata={"description": "Set once complete.", "example": 2}
    )
    points = fields.Integer(
        allow_none=True, required=True, metadata={"description": "Coins in the trick, set once complete.", "example": 1}
    )


class SeatRatingSchema(ResponseSchema):
    value = fields.Integer(
        required=True, metadata={"description": "On a scale where a new player starts at 1500.", "example": 1500}
    )
    provisional = fields.Boolean(required=True, metadata={"description": "True while the rating was still uncertain."})


class SeatRatingChangeSchema(ResponseSchema):
    before = fields.Integer(
        required=True, metadata={"description": "The rating's value before the game.", "example": 1500}
    )
    after = fields.Integer(required=True, metadata={"description": "Its value after the game.", "example": 1517})


class SeatSchema(ResponseSchema):
    seat = _seat("Seat number, clockwise.", required=True)
    name = fields.String(allow_none=True, required=True, metadata={"example": "Ana"})
    open = fields.Boolean(
        required=True, metadata={"description": "Nobody has taken the seat yet, and it is reserved for nobody."}
    )
    bot = fields.String(
        allow_none=True,
        required=True,
        validate=validate.OneOf(STRENGTHS),
        metadata={
            "description": "The strength of the computer player in the seat; null for a person or an open seat.",
            "enum_schema": "BotStrength",
        },
    )
    score = fields.Integer(required=True, metadata={"example": 3})
    cards_in_hand = fields.Integer(required=True, metadata={"example": 12})
    tricks_won = fields.Integer(
        required=True, metadata={"description": "Tricks won in the current hand.", "example": 2}
    )
    player = fields.String(
        allow_none=True,
        required=True,
        metadata={
            "description": "The id of the seat's player (`getPlayer`): a player's, a bot strength's, or, on a seat "
            "a player left to a bot, still the player who left; null for an anonymous person or an open seat.",
            "example": "01jf3v9k2m8q4r6t0w5x7y9z1b",
        },
    )
    reserved_for = fields.String(
        allow_none=True,
        required=True,
        metadata={
            "description": "The player the seat is reserved for (a challenge): only they take it, and it is not "
            "`open`; kept once they have. Null for a seat reserved for nobody.",
            "example": None,
        },
    )
    rating = fields.Nested(
        SeatRatingSchema,
        allow_none=True,
        required=True,
        metadata={
            "description": "A rated game's seat with a player: the player's rating as the game began (value and "
            "provisional); null in an unrated game, for an open seat, and before the game began."
        },
    )
    rating_change = fields.Nested(
        SeatRatingChangeSchema,
        allow_none=True,
        required=True,
        metadata={
            "description": "A finished rated game that is not `void`: the seat's player's rating before and after "
            "the game, once the result is applied to them (within a second of the game's end; a bot's may take a "
            "little longer); null until then, and in every other game."
        },
    )


class GameSchema(ResponseSchema):
    id = fields.String(required=True, metadata={"example": "01jf3v9k2m8q4r6t0w5x7y9z1a"})
    status = fields.String(
        required=True, validate=validate.OneOf(STATUSES), metadata={"example": "playing", "enum_schema": "GameStatus"}
    )
    target_score = fields.Integer(required=True, metadata={"example": 15})
    seeded = fields.Boolean(
        required=True,
        metadata={
            "description": "Created with a seed, for tests, demos and replays: its deals follow from the seed, "
            "so anyone who knows or guesses the seed knows every hand. Never rated or matched."
        },
    )
    rated = fields.Boolean(
        required=True,
        metadata={
            "description": "Rated: every seat is a player's or a bot's, and each seat's player is rated "
            "when the game finishes. Never seeded."
        },
    )
    void = fields.Boolean(
        required=True,
        metadata={
            "description": "A rated game a seat left (or lapsed out of) before playing its first card: it rates "
            "nobody (the seat's bot plays on; the others may play it out or leave at no cost). False otherwise."
        },
    )
    auto_deal = fields.Boolean(required=True)
    turn_timeout_seconds = fields.Integer(
        allow_none=True,
        required=True,
        metadata={
            "description": "Seconds a player has to act before a stand-in bot acts for them. A seat that lets two "
            "deadlines in a row pass (one, from 3600 s: a correspondence game) has left: a bot takes it for good."
        },
    )
    turn_deadline = fields.DateTime(
        allow_none=True,
        required=True,
        metadata={"description": "When the player to act runs out of time; null without a timeout or on a bot's turn."},
    )
    version = fields.Integer(
        required=True, metadata={"description": "Grows with every change; the `ETag` carries it.", "example": 7}
    )
    created_at = fields.DateTime(required=True)
    updated_at = fields.DateTime(required=True)
    seats = fields.List(fields.Nested(SeatSchema), required=True)
    hand_number = fields.Integer(required=True, metadata={"description": "0 before the first deal.", "example": 1})
    dealer = fields.Integer(
        allow_none=True, required=True, metadata={"description": "Dealer of the current (or next) hand."}
    )
    turn = fields.Integer(
        allow_none=True,
        required=True,
        metadata={
            "description": "The seat expected to act: the dealer while `waiting_for_deal`, the player to play while `playing`."
        },
    )
    trick = fields.Nested(
        TrickSchema, allow_none=True, required=True, metadata={"description": "The trick in progress."}
    )
    last_trick = fields.Nested(TrickSchema, allow_none=True, required=True)
    winner = fields.Integer(allow_none=True, required=True, metadata={"description": "The seat that won the game."})
    first_dealer = fields.Integer(
        allow_none=True,
        required=True,
        metadata={"description": "The seat that dealt (or deals) first: null until the game starts, unless named."},
    )
    first_dealer_chosen_by = fields.String(
        allow_none=True,
        required=True,
        validate=validate.OneOf(FIRST_DEALER_CHOICES),
        metadata={
            "description": "`named` by the creator, the `oldest` player, or `drawn` at random.",
            "enum_schema": "FirstDealerChoice",
        },
    )
    commitment = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "SHA-256 (hex) of the current hand's secret seed, revealed when the hand ends."},
    )
    rematch_of = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "The finished game this game is the rematch of (`rematchGame`); null for a new game."},
    )
    rematch = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "This finished game's rematch, once a seat asked for one (`rematchGame`); else null."},
    )
    expires_at = fields.DateTime(
        allow_none=True,
        required=True,
        metadata={
            "description": "A game waiting for seats reserved for players (a challenge, a rematch offer): when it is "
            "cancelled unless every reserved seat is taken. Null otherwise."
        },
    )


class CredentialSchema(ResponseSchema):
    seat = _seat("The seat the token acts for.", required=True)
    token = fields.String(
        required=True, metadata={"description": "Shown once. Send as `Authorization: Bearer <token>`."}
    )


class ScoreSchema(ResponseSchema):
    seat = _seat("Seat number.", required=True)
    name = fields.String(allow_none=True, required=True)
    score = fields.Integer(required=True)


class HandSchema(ResponseSchema):
    seat = _seat("Your seat.", required=True)
    hand_number = fields.Integer(required=True)
    cards = fields.List(
        CardField(), required=True, metadata={"description": "By suit in cycle order, then rank high to low."}
    )


class ProblemSchema(ResponseSchema):
    type = fields.String(required=True, metadata={"example": "urn:coins:problem:not_your_turn"})
    title = fields.String(required=True, metadata={"example": "It is not your turn"})
    status = fields.Integer(required=True, metadata={"example": 409})
    detail = fields.String(required=True, metadata={"example": "it is seat 2's turn, not seat 0's"})
    code = fields.String(
        required=True,
        validate=validate.OneOf(sorted(PROBLEMS)),
        metadata={
            "description": "Stable identifier to branch on.",
            "example": "not_your_turn",
            "enum_schema": "ProblemCode",
        },
    )
    instance = fields.String(
        metadata={"description": "The request path.", "example": "/v1/games/01jf3v9k2m8q4r6t0w5x7y9z1a/plays"}
    )
    errors = fields.Dict(
        keys=fields.String(),
        values=fields.Raw(),
        metadata={
            "description": "For `validation_error`: the messages of each invalid field.",
            "example": {"card": ["Not a card."]},
        },
    )
    ticket = fields.String(
        metadata={
            "description": "For `already_queued`: the id of your waiting ticket (read it with getTicket, "
            "or cancel it with cancelTicket).",
            "example": "01jf3v9k2m8q4r6t0w5x7y9z1b",
        }
    )
