"""The schemas of seats: joining a game, leaving it, the seat taken."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from ....bots import STRENGTHS
from ...fields import Text, seat_field
from ...schemas import NAME, GameSchema, NewPlayerSchema
from ..games.schemas import PLAYER_ME

_seat = seat_field


# -- requests ---------------------------------------------------------------------------


class JoinGameSchema(NewPlayerSchema):
    """A person (`name`, optional `age`) or the caller as a player (`player: "me"`, with their key)."""

    name = Text(
        validate=NAME,
        metadata={"description": "Shown to the other players. Required unless `player` is given.", "example": "Cy"},
    )
    player = PLAYER_ME
    seat = _seat("Optional: the open seat to take; otherwise the first open one.", allow_none=True)

    @ma.validates_schema
    def _name_or_player(self, data: dict[str, Any], **_kwargs: Any) -> None:
        if data.get("player") is not None:
            if data.get("name") is not None or data.get("age") is not None:
                raise ma.ValidationError(
                    "a player's seat takes the name from their profile: send only player", "player"
                )
        elif not data.get("name"):
            raise ma.ValidationError("a person needs a name (or send player: me with your player key)", "name")


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
        required=True,
        allow_none=True,
        metadata={
            "description": "Shown once. Send as `Authorization: Bearer <token>`. Null for a player's seat: "
            "their key acts for it."
        },
    )
    game = fields.Nested(GameSchema, required=True)
