"""The schemas of seats: joining a game, leaving it, the seat taken."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from ....bots import STRENGTHS
from ...fields import seat_field
from ...schemas import GameSchema, NewPlayerSchema

_seat = seat_field


# -- requests ---------------------------------------------------------------------------


class JoinGameSchema(NewPlayerSchema):
    seat = _seat("Optional: the open seat to take; otherwise the first open one.", allow_none=True)


class LeaveSchema(ma.Schema):
    bot = fields.String(
        load_default="basic",
        validate=validate.OneOf(STRENGTHS),
        metadata={
            "description": "The strength of the bot that takes the seat over.",
            "example": "basic",
            "enum_schema": "BotStrength",
        },
    )


# -- responses --------------------------------------------------------------------------


class JoinedGameSchema(ma.Schema):
    seat = _seat("The seat taken.", required=True)
    token = fields.String(
        required=True, metadata={"description": "Shown once. Send as `Authorization: Bearer <token>`."}
    )
    game = fields.Nested(GameSchema, required=True)
