"""Schemas of a game record (``GET /v1/games/{id}/record``), field by field as docs/records.md describes it.

The document is :func:`service.games.game_record.build_record`'s dict, dumped through these
schemas like every other response (marshmallow reads a dict's keys; the compiled dumpers leave
dicts to it). Its times are already ISO 8601 strings and its cards card codes, so they are
strings here, documented as date-times and as the ``Card`` enum. A key the builder leaves out
(a hand's ``seed`` and ``scores_after`` until the hand is over) stays out.
"""

from __future__ import annotations

from marshmallow import fields, validate

from ....bots import STRENGTHS
from ....games.game_record import FORMAT, FORMAT_VERSION
from ....games.results import STATUSES
from ...schemas import CAUSES, FIRST_DEALER_CHOICES, SEAT_KINDS, ResponseSchema
from ..games.schemas import _seat

__all__ = ["RecordSchema"]

CAUSE_DESCRIPTION = (
    "Who made it: `player` (the seat's person), `bot` (the seat's bot), `auto` (the server dealt, "
    "the game's `auto_deal`) or `timeout` (a stand-in bot moved for a person whose time ran out)."
)


CAUSE = {"description": CAUSE_DESCRIPTION, "enum_schema": "ActionCause"}


def _time(description: str, **kwargs: object) -> fields.String:
    return fields.String(metadata={"format": "date-time", "description": description}, **kwargs)  # type: ignore[arg-type]


def _card(description: str) -> fields.String:
    return fields.String(required=True, metadata={"enum_schema": "Card", "description": description})


class RecordOptionsSchema(ResponseSchema):
    auto_deal = fields.Boolean(
        required=True, metadata={"description": "Whether the server deals for a person whose turn it is to deal."}
    )
    turn_timeout_seconds = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "How long a person may take before a stand-in bot moves for them; null: no limit."},
    )


class RecordSetupSchema(ResponseSchema):
    target_score = fields.Integer(required=True, metadata={"description": "The score that wins (1 to 100)."})
    options = fields.Nested(RecordOptionsSchema, required=True)
    seeded = fields.Boolean(
        required=True,
        metadata={
            "description": "Created with a seed string, for tests, demos and replays: its deals derive from "
            "it, so anyone who knows or guesses the string knew every hand. The string is not in the record."
        },
    )
    first_dealer = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "The seat that dealt hand 1; null while seats are open."},
    )
    first_dealer_chosen_by = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(FIRST_DEALER_CHOICES),
        metadata={
            "description": "`named` by the creator, the `oldest` player, or `drawn`; null while seats are open.",
            "enum_schema": "FirstDealerChoice",
        },
    )


class RecordSeatSchema(ResponseSchema):
    seat = _seat("0, 1 or 2.", required=True)
    name = fields.String(required=True, allow_none=True, metadata={"description": "Null for an open seat."})
    kind = fields.String(
        required=True,
        validate=validate.OneOf(SEAT_KINDS),
        metadata={
            "description": "A `person`, a `bot` (also a seat its person left), or `open`.",
            "enum_schema": "SeatKind",
        },
    )
    bot = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(STRENGTHS),
        metadata={"description": "A bot seat's strength, else null.", "enum_schema": "BotStrength"},
    )


class RecordDealSchema(ResponseSchema):
    seq = fields.Integer(required=True, metadata={"description": "Its place in the game's action log."})
    cause = fields.String(required=True, validate=validate.OneOf(CAUSES), metadata=CAUSE)
    at = _time("When it was dealt.", required=True)


class RecordPlaySchema(ResponseSchema):
    seq = fields.Integer(required=True, metadata={"description": "Its place in the game's action log."})
    seat = _seat("The seat that played.", required=True)
    card = _card("The card played.")
    cause = fields.String(required=True, validate=validate.OneOf(CAUSES), metadata=CAUSE)
    at = _time("When it was played.", required=True)


class RecordTrickPlaySchema(ResponseSchema):
    seat = _seat("The seat that played.", required=True)
    card = _card("The card played.")


class RecordTrickSchema(ResponseSchema):
    number = fields.Integer(required=True, metadata={"description": "1 to 16 within the hand."})
    leader = _seat("The seat that led the trick.", required=True)
    plays = fields.List(
        fields.Nested(RecordTrickPlaySchema), required=True, metadata={"description": "Three plays, in play order."}
    )
    winner = _seat("The seat that won the trick.", required=True)
    points = fields.Integer(required=True, metadata={"description": "The coins cards in the trick (0 to 3)."})


class RecordHandSchema(ResponseSchema):
    hand_number = fields.Integer(required=True, metadata={"description": "1, 2, 3, … in order, none missing."})
    dealer = _seat("The seat that dealt.", required=True)
    shuffler = _seat("The dealer's right.", required=True)
    cutter = _seat("The dealer's left.", required=True)
    leader = _seat("Led the hand's first trick: the dealer's left.", required=True)
    deal = fields.Nested(RecordDealSchema, required=True, metadata={"description": "The deal as logged."})
    commitment = fields.String(
        required=True, metadata={"description": "SHA-256 (hex) of the hand's seed, published when it was dealt."}
    )
    seed = fields.String(
        metadata={"description": "The hand's seed (hex). Absent until the hand is over: it would reveal every hand."}
    )
    over = fields.Boolean(
        required=True, metadata={"description": "Sixteen tricks played, or the game won in this hand."}
    )
    plays = fields.List(
        fields.Nested(RecordPlaySchema),
        required=True,
        metadata={"description": "Every card played in the hand, in order (a trick in progress's too)."},
    )
    tricks = fields.List(
        fields.Nested(RecordTrickSchema), required=True, metadata={"description": "Every completed trick, in order."}
    )
    scores_after = fields.List(
        fields.Integer(),
        metadata={"description": "The three scores when the hand ended. Absent until the hand is over."},
    )


class RecordSchema(ResponseSchema):
    """A whole game as one self-contained document: `coins-verify FILE` checks it from the document alone."""

    format = fields.String(
        required=True, validate=validate.OneOf([FORMAT]), metadata={"description": f"Always `{FORMAT}`."}
    )
    format_version = fields.Integer(
        required=True,
        validate=validate.OneOf([FORMAT_VERSION]),
        metadata={"description": "A verifier refuses a version it does not know.", "example": FORMAT_VERSION},
    )
    id = fields.String(required=True, metadata={"description": "The game's id."})
    recorded_at = _time(
        "The time of the game's last change the record includes (its `updated_at`): one version, one record.",
        required=True,
        allow_none=True,
    )
    setup = fields.Nested(RecordSetupSchema, required=True)
    seats = fields.List(fields.Nested(RecordSeatSchema), required=True, metadata={"description": "In seat order."})
    hands = fields.List(
        fields.Nested(RecordHandSchema), required=True, metadata={"description": "Every hand dealt so far, in order."}
    )
    status = fields.String(required=True, validate=validate.OneOf(STATUSES), metadata={"enum_schema": "GameStatus"})
    winner = fields.Integer(
        required=True, allow_none=True, metadata={"description": "The seat that reached the target; null until then."}
    )
    scores = fields.List(
        fields.Integer(), required=True, metadata={"description": "The three seats' scores: final, or so far."}
    )
    ended_mid_hand = fields.Boolean(
        required=True,
        metadata={"description": "The game ended before its last hand's sixteenth trick (the rest was not played)."},
    )
    created_at = _time("When the game was created.", required=True)
    updated_at = _time("When the game last changed.", required=True)
    finished_at = _time("The time of the play that ended the game; null before.", required=True, allow_none=True)
