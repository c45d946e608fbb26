"""The schemas of a game's review: every play judged, and the answer while it is being computed."""

from __future__ import annotations

from marshmallow import fields, validate

from ....bots import STRENGTHS
from ...fields import CardField, seat_field
from ...schemas import ResponseSchema

__all__ = ["PendingReviewSchema", "ReviewSchema"]

_POINTS = "Points the seat could expect from this trick to the end of the hand (or of the game) playing it."


class CandidateValueSchema(ResponseSchema):
    card = CardField(required=True)
    expected_points = fields.Float(required=True, metadata={"description": _POINTS, "example": 2.4})


class ReviewedPlaySchema(ResponseSchema):
    seq = fields.Integer(
        required=True, metadata={"description": "The play's `seq` in the game's action log (listActions)."}
    )
    hand_number = fields.Integer(required=True, metadata={"example": 1})
    trick_number = fields.Integer(required=True, metadata={"example": 3})
    seat = seat_field("The seat that played.", required=True)
    card = CardField(required=True, metadata={"description": "The card it played."})
    choice = CardField(
        required=True, metadata={"description": "The card the reviewer would have played: the best expected points."}
    )
    loss = fields.Float(
        required=True,
        metadata={
            "description": "Expected points the card played gave up against the choice (0: as good).",
            "example": 1.4,
        },
    )
    candidates = fields.List(
        fields.Nested(CandidateValueSchema),
        required=True,
        metadata={
            "description": "Every card the seat could play, best first, with the points it was worth. Cards "
            "that no unseen card separates play alike and share their value."
        },
    )


class ReviewSchema(ResponseSchema):
    game_id = fields.String(required=True)
    strength = fields.String(
        required=True,
        validate=validate.OneOf(STRENGTHS),
        metadata={"description": "The bot whose search judged the plays.", "enum_schema": "BotStrength"},
    )
    plays = fields.List(
        fields.Nested(ReviewedPlaySchema),
        required=True,
        metadata={"description": "Every play of the game, in order, judged from what its seat knew then."},
    )


class PendingReviewSchema(ResponseSchema):
    game_id = fields.String(required=True)
    reviewed = fields.Integer(required=True, metadata={"description": "The plays judged so far.", "example": 40})
    total = fields.Integer(required=True, metadata={"description": "The plays to judge.", "example": 96})
