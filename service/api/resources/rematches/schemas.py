"""The schema of a rematch: your seat and token at the new game."""

from __future__ import annotations

from marshmallow import fields

from ...fields import seat_field
from ...schemas import GameSchema, ResponseSchema

_seat = seat_field


# -- responses --------------------------------------------------------------------------


class RematchSchema(ResponseSchema):
    seat = _seat("Your seat at the rematch: the same as at the finished game.", required=True)
    token = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "Your seat's token for the rematch. Derived from the token you sent: every call with "
            "that token answers this one, and no other token is ever valid for your seat at the rematch. "
            "Null for a player's seat: their key acts for it."
        },
    )
    game = fields.Nested(GameSchema, required=True, metadata={"description": "The rematch."})
