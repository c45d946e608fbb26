"""The schemas of quick play: what a player queues for, and the ticket they get."""

from __future__ import annotations

from marshmallow import fields, validate

from ....engine import DEFAULT_TARGET, MAX_TARGET, MIN_TARGET
from ....quickplay.queue import MAX_BOTS_AFTER, QueueRequest
from ...fields import JsonBoolean, JsonInteger, seat_field
from ...schemas import RequestSchema, ResponseSchema
from ..games.schemas import MAX_TURN_SECONDS, MIN_TURN_SECONDS

DEFAULTS = QueueRequest()
TICKET_STATUSES = ("waiting", "matched", "expired", "cancelled")


# -- requests ---------------------------------------------------------------------------


class QueueSchema(RequestSchema):
    target_score = JsonInteger(
        load_default=DEFAULTS.target_score,
        validate=validate.Range(MIN_TARGET, MAX_TARGET),
        metadata={"description": f"The game's target score (default {DEFAULT_TARGET}).", "example": 15},
    )
    rated = JsonBoolean(
        load_default=DEFAULTS.rated,
        metadata={"description": "Whether the game is rated (default `true`): only tickets alike are matched."},
    )
    bots_after = JsonInteger(
        load_default=DEFAULTS.bots_after,
        allow_none=True,
        validate=validate.Range(0, MAX_BOTS_AFTER),
        metadata={
            "description": f"Seconds after which the server may fill your table with bots (default "
            f"{DEFAULTS.bots_after}; 0 at once; `null` never), of different strengths, whose ratings are "
            f"closest to yours; never the `random` bot in a rated game.",
            "example": 60,
        },
    )
    turn_timeout_seconds = JsonInteger(
        load_default=DEFAULTS.turn_timeout_seconds,
        validate=validate.Range(MIN_TURN_SECONDS, MAX_TURN_SECONDS),
        metadata={
            "description": f"The game's turn clock in seconds (default {DEFAULTS.turn_timeout_seconds}; 5 s to 14 "
            "days): only tickets of the same clock are matched. From an hour on it is a correspondence game, "
            "and the ticket waits a day without being read.",
            "example": 60,
        },
    )


# -- responses --------------------------------------------------------------------------


class TicketSchema(ResponseSchema):
    id = fields.String(required=True, metadata={"description": "The ticket's id: read it with getTicket."})
    status = fields.String(
        required=True,
        validate=validate.OneOf(TICKET_STATUSES),
        metadata={
            "description": "`waiting` to be matched; `matched` into `game`; `expired` (neither the ticket nor "
            "your player feed was read for 30 seconds; a day for a correspondence game's); `cancelled`.",
            "enum_schema": "TicketStatus",
        },
    )
    created_at = fields.DateTime(required=True)
    game = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "Once `matched`, the new game's id (your key acts for your seat); else null."},
    )
    seat = seat_field("Once `matched`, your seat in the game; else null.", required=True, allow_none=True)
    target_score = fields.Integer(required=True, metadata={"example": 15})
    rated = fields.Boolean(required=True)
    bots_after = fields.Integer(required=True, allow_none=True, metadata={"example": 60})
    matched_at = fields.DateTime(required=True, allow_none=True)
    turn_timeout_seconds = fields.Integer(required=True, metadata={"example": 60})
