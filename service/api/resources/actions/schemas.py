"""The schemas of a game's public history: its actions, a page at a time."""

from __future__ import annotations

from marshmallow import fields, validate

from ...fields import CardField, Text, seat_field
from ...schemas import ACTION_KINDS, CAUSES, RequestSchema, ResponseSchema

_seat = seat_field


# -- requests ---------------------------------------------------------------------------


class ListActionsQuerySchema(RequestSchema):
    limit = fields.Integer(load_default=100, validate=validate.Range(1, 500), metadata={"description": "Page size."})
    cursor = Text(validate=validate.Length(1, 200), metadata={"description": "`next_cursor` of the previous page."})


# -- responses --------------------------------------------------------------------------


class ActionSchema(ResponseSchema):
    seq = fields.Integer(required=True, metadata={"description": "1, 2, … in the order the actions happened."})
    kind = fields.String(required=True, validate=validate.OneOf(ACTION_KINDS), metadata={"enum_schema": "ActionKind"})
    seat = _seat("The seat that dealt or played.", required=True)
    hand_number = fields.Integer(required=True)
    cause = fields.String(
        required=True,
        validate=validate.OneOf(CAUSES),
        metadata={
            "description": "`player` acted; a `bot` seat acted; the server dealt (`auto`); a stand-in acted after a `timeout`.",
            "enum_schema": "ActionCause",
        },
    )
    created_at = fields.DateTime(required=True)
    card = CardField(allow_none=True, required=True)
    commitment = fields.String(
        allow_none=True, required=True, metadata={"description": "A deal's SHA-256 commitment to its seed."}
    )
    seed = fields.String(
        allow_none=True, required=True, metadata={"description": "A deal's seed (hex), once its hand is over."}
    )


class ActionPageSchema(ResponseSchema):
    items = fields.List(fields.Nested(ActionSchema), required=True, attribute="actions")
    next_cursor = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "Pass as `cursor` for the next page; null on the last."},
    )
