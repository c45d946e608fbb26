"""The schemas of a hint: whose advice is asked, and the card advised with its reason."""

from __future__ import annotations

from marshmallow import fields, validate

from ....bots import HINT_STRENGTHS, STRENGTHS
from ...fields import CardField, seat_field
from ...schemas import RequestSchema, ResponseSchema

_seat = seat_field


# -- requests ---------------------------------------------------------------------------


class HintQuerySchema(RequestSchema):
    strength = fields.String(
        load_default="expert",
        validate=validate.OneOf(HINT_STRENGTHS),
        metadata={
            "description": "Whose advice: the card this strength of bot would play.",
            "enum_schema": "HintStrength",
        },
    )


# -- responses --------------------------------------------------------------------------


class HintSchema(ResponseSchema):
    seat = _seat("Your seat.", required=True)
    card = CardField(required=True)
    strength = fields.String(required=True, validate=validate.OneOf(STRENGTHS), metadata={"enum_schema": "BotStrength"})
    reason = fields.String(required=True, metadata={"example": "takes the trick and its coin as cheaply as possible"})
