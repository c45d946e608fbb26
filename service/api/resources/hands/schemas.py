"""The schema of a dealt hand (your own cards: the shared HandSchema)."""

from __future__ import annotations

from marshmallow import fields

from ...fields import seat_field
from ...schemas import GameSchema, ResponseSchema

_seat = seat_field


# -- responses --------------------------------------------------------------------------


class DealtHandSchema(ResponseSchema):
    hand_number = fields.Integer(required=True, metadata={"example": 1})
    dealer = _seat("Dealt the hand; plays third in the first trick.", required=True)
    shuffler = _seat("The dealer's right.", required=True)
    cutter = _seat("The dealer's left.", required=True)
    leader = _seat("Leads the first trick (the dealer's left).", required=True)
    commitment = fields.String(required=True, metadata={"description": "SHA-256 (hex) of the hand's secret seed."})
    game = fields.Nested(GameSchema, required=True)
