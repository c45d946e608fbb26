"""The schemas of seats: joining a game, leaving it, the seat taken."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from ....bots import STRENGTHS
from ...fields import NAME_RULE, PlayerName, seat_field
from ...schemas import GameSchema, NewPlayerSchema, RequestSchema, ResponseSchema
from ..games.schemas import ME, PLAYER_ME

_seat = seat_field
SEAT_CHOICE = "Optional: the open seat to take; otherwise the first open one."


# -- requests ---------------------------------------------------------------------------


class JoinGameSchema(NewPlayerSchema):
    """A person (`name`, optional `age`) or the caller as a player (`player: "me"`, with their key)."""

    name = PlayerName(
        metadata={
            "description": f"Shown to the other players. Required unless `player` is given. {NAME_RULE}",
            "example": "Cy",
        },
    )
    player = PLAYER_ME
    seat = _seat(SEAT_CHOICE, allow_none=True)

    @ma.validates_schema
    def _name_or_player(self, data: dict[str, Any], **_kwargs: Any) -> None:
        if data.get("player") is not None:
            if data.get("name") is not None or data.get("age") is not None:
                raise ma.ValidationError(
                    "a player's seat takes the name from their profile: send only player", "player"
                )
        elif not data.get("name"):
            raise ma.ValidationError("a person needs a name (or send player: me with your player key)", "name")


class JoinGameAsPersonSchema(NewPlayerSchema):
    """A person joining (`name`, optional `age`). Documents one form of JoinGameSchema, which loads it."""

    seat = _seat(SEAT_CHOICE, allow_none=True)


class JoinGameAsPlayerSchema(RequestSchema):
    """The caller joining as a player, with their key. Documents the other form of JoinGameSchema."""

    player = fields.String(
        required=True,
        validate=validate.OneOf([ME]),
        metadata={"description": PLAYER_ME.metadata["description"], "example": ME},
    )
    seat = _seat(SEAT_CHOICE, allow_none=True)


#: joinGame's body in the spec: a person or the caller as a player, each closed, so no body the
#: server refuses (no name nor player; a player with a name or an age) is valid in the spec.
JOIN_GAME_COMPONENT = {
    "description": 'A person (`name`, optional `age`) or the caller as a player (`player: "me"`, with their '
    "key), with an optional `seat`.",
    "anyOf": [
        {"$ref": "#/components/schemas/JoinGameAsPerson"},
        {"$ref": "#/components/schemas/JoinGameAsPlayer"},
    ],
}


class LeaveSchema(RequestSchema):
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


class JoinedGameSchema(ResponseSchema):
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
