"""The schemas of players: creating one, a profile, a new key (shown once), a player's games."""

from __future__ import annotations

from marshmallow import fields, validate

from ....bots import STRENGTHS
from ....games.results import STATUSES
from ...fields import NAME_RULE, PlayerName, seat_field
from ...schemas import RequestSchema, ResponseSchema, fields_of

_seat = seat_field

PLAYER_ID_EXAMPLE = "01jf3v9k2m8q4r6t0w5x7y9z1b"


# -- requests ---------------------------------------------------------------------------


class NewPlayerProfileSchema(RequestSchema):
    name = PlayerName(
        required=True,
        metadata={
            "description": f"Shown to others in every game the player sits in. {NAME_RULE}",
            "example": "Ana",
        },
    )


# -- responses --------------------------------------------------------------------------


class RatingSchema(ResponseSchema):
    value = fields.Integer(
        required=True, metadata={"description": "On a scale where a new player starts at 1500.", "example": 1500}
    )
    provisional = fields.Boolean(required=True, metadata={"description": "True while the rating is still uncertain."})
    games = fields.Integer(required=True, metadata={"description": "The rated games it counts.", "example": 0})


class GamesRecordSchema(ResponseSchema):
    played = fields.Integer(required=True, metadata={"description": "Finished games the player sat in."})
    won = fields.Integer(required=True, metadata={"description": "Of those, the games a seat of theirs won."})


CHALLENGE_SETTINGS = ("everyone", "nobody")


class PlayerSchema(ResponseSchema):
    id = fields.String(required=True, metadata={"example": PLAYER_ID_EXAMPLE})
    name = fields.String(required=True, metadata={"example": "Ana"})
    created_at = fields.DateTime(required=True)
    bot = fields.String(
        allow_none=True,
        required=True,
        validate=validate.OneOf(STRENGTHS),
        metadata={
            "description": "A bot strength's own player: its strength; null for a person.",
            "enum_schema": "BotStrength",
        },
    )
    rating = fields.Nested(RatingSchema, required=True)
    games = fields.Nested(GamesRecordSchema, required=True)
    challenges = fields.String(
        required=True,
        validate=validate.OneOf(CHALLENGE_SETTINGS),
        metadata={
            "description": "Who may challenge the player: `everyone` (the default) or `nobody` (a challenge is then "
            "`403 challenges_refused`); set with `updateMyPlayer`.",
            "enum_schema": "ChallengeSetting",
        },
    )


class PlayerSettingsSchema(RequestSchema):
    challenges = fields.String(
        required=True,
        validate=validate.OneOf(CHALLENGE_SETTINGS),
        metadata={
            "description": "`nobody` refuses every challenge (`403 challenges_refused`); `everyone` takes them.",
            "example": "nobody",
            "enum_schema": "ChallengeSetting",
        },
    )


# The player's fields at the top level (read from ``NewKey.player``), next to the key.
PlayerWithKeySchema = ResponseSchema.from_dict(
    {
        **fields_of(PlayerSchema, "player"),
        "key": fields.String(
            required=True,
            metadata={
                "description": "Your player key, shown once: keep it secret, like a password. Send it as "
                "`Authorization: Bearer <key>`: it acts for you in every game. Replace it with `replacePlayerKey`."
            },
        ),
    },
    name="PlayerWithKeySchema",
)


class OpponentSchema(ResponseSchema):
    seat = _seat("The other seat's number.", required=True)
    name = fields.String(
        allow_none=True,
        required=True,
        metadata={
            "description": "Who sits there (as the game's seat names them); null for an open seat.",
            "example": "Ana",
        },
    )
    bot = fields.String(
        allow_none=True,
        required=True,
        validate=validate.OneOf(STRENGTHS),
        metadata={
            "description": "A computer player's strength; null for a person or an open seat.",
            "enum_schema": "BotStrength",
        },
    )
    player = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "The seat's player's id (as the game's seat gives it); null for an anonymous person or an open seat.",
                  "example": PLAYER_ID_EXAMPLE},
    )  # fmt: skip
    score = fields.Integer(required=True, metadata={"example": 9})


class PlayerGameSchema(ResponseSchema):
    id = fields.String(
        required=True, metadata={"description": "The game's id.", "example": "01jf3v9k2m8q4r6t0w5x7y9z1a"}
    )
    status = fields.String(
        required=True, validate=validate.OneOf(STATUSES), metadata={"example": "playing", "enum_schema": "GameStatus"}
    )
    rated = fields.Boolean(required=True)
    version = fields.Integer(required=True, metadata={"description": "The game's version (its `ETag`).", "example": 7})
    seat = _seat(
        "The player's seat (a bot strength's player may hold several of an unrated game: the first).", required=True
    )
    left = fields.Boolean(required=True, metadata={"description": "The player left the seat to a bot."})
    your_turn = fields.Boolean(
        required=True,
        metadata={
            "description": "The player's seat is the one to act now (to deal, or to play): the game waits on them."
        },
    )
    turn = fields.Integer(
        allow_none=True, required=True, metadata={"description": "The seat expected to act (as the game's `turn`)."}
    )
    turn_deadline = fields.DateTime(
        allow_none=True,
        required=True,
        metadata={"description": "When the seat to act runs out of time (as the game's)."},
    )
    created_at = fields.DateTime(required=True)
    updated_at = fields.DateTime(required=True, metadata={"description": "The game's last change."})
    reserved = fields.Boolean(
        required=True,
        metadata={
            "description": "The seat is reserved for the player, who has not taken it: a challenge to accept "
            '(`joinGame` with `{"player": "me"}`) or decline (`declineChallenge`), or, in a game whose (getGame) '
            "`rematch_of` is set, a rematch offer to accept (`rematchGame` on that finished game) or decline "
            "(`declineRematch`)."
        },
    )
    reserved_until = fields.DateTime(
        allow_none=True,
        required=True,
        metadata={"description": "When a reserved seat's wait runs out and the game is cancelled; null otherwise."},
    )
    score = fields.Integer(required=True, metadata={"description": "The player's seat's score.", "example": 15})
    place = fields.Integer(
        allow_none=True,
        required=True,
        metadata={
            "description": "The player's place in a finished game (1 is first; equal finishes share the better "
            "place; a player who left is last); null until the game is finished.",
            "example": 1,
        },
    )
    opponents = fields.List(
        fields.Nested(OpponentSchema),
        required=True,
        metadata={"description": "The game's other seats, in seat order: who sits there, and their score."},
    )


class PlayerGamePageSchema(ResponseSchema):
    items = fields.List(fields.Nested(PlayerGameSchema), required=True, attribute="games")
    next_cursor = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "Pass as `cursor` for the next page; null on the last."},
    )
