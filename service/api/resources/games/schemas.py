"""The schemas of games: creating one (its seats), listing them, the created game, the scores."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from ....bots import STRENGTHS
from ....engine import MAX_TARGET, MIN_TARGET
from ....games.results import STATUSES
from ...fields import JsonBoolean, JsonInteger, Text, seat_field
from ...schemas import NAME, CredentialSchema, GameSchema, NewPlayerSchema, ScoreSchema, fields_of

_seat = seat_field


# -- requests ---------------------------------------------------------------------------


ME = "me"
PLAYER_ME = fields.String(
    validate=validate.OneOf([ME]),
    metadata={
        "description": "`me`: the seat is taken for the player whose key the request carries "
        "(`Authorization: Bearer <player key>`), named as their profile; their key acts for it (no seat token).",
        "example": ME,
    },
)


class NewSeatSchema(NewPlayerSchema):
    """A person (`name`, optional `age`), a computer player (`bot`, optional `name`) or the caller
    as a player (`player: "me"`)."""

    name = Text(
        validate=NAME, metadata={"description": "Shown to the other players. Required for a person.", "example": "Ana"}
    )
    bot = fields.String(
        validate=validate.OneOf(STRENGTHS),
        allow_none=True,
        metadata={
            "description": "Seat a computer player of this strength: it plays on the server as soon as it is its turn.",
            "example": "expert",
            "enum_schema": "BotStrength",
        },
    )

    player = PLAYER_ME

    @ma.validates_schema
    def _name_or_bot(self, data: dict[str, Any], **_kwargs: Any) -> None:
        if data.get("player") is not None:
            if any(data.get(name) is not None for name in ("name", "age", "bot")):
                raise ma.ValidationError(
                    "a player's seat takes the name from their profile: send only player", "player"
                )
            return
        if not data.get("bot") and not data.get("name"):
            raise ma.ValidationError("a person needs a name", field_name="name")
        if data.get("bot") and data.get("age") is not None:
            raise ma.ValidationError("bots have no age", field_name="age")


class NewPersonSchema(NewPlayerSchema):
    """A person taking a seat. Documents one form of NewSeatSchema, which does the loading."""

    bot = fields.Raw(metadata={"type": "null", "description": "Absent, or null: a person."})


class NewBotSchema(ma.Schema):
    """A computer player taking a seat. Documents the other form of NewSeatSchema."""

    bot = fields.String(
        required=True,
        validate=validate.OneOf(STRENGTHS),
        metadata={
            "description": "Its strength: it plays on the server as soon as it is its turn.",
            "enum_schema": "BotStrength",
        },
    )
    name = Text(validate=NAME, metadata={"description": "Optional: shown to the other players.", "example": "Robo"})
    age = fields.Raw(metadata={"type": "null", "description": "Absent, or null: bots have no age."})


class PlayerSeatSchema(ma.Schema):
    """The caller taking a seat as a player. Documents the third form of NewSeatSchema."""

    player = fields.String(
        required=True,
        validate=validate.OneOf([ME]),
        metadata={"description": PLAYER_ME.metadata["description"], "example": ME},
    )


class CreateGameSchema(ma.Schema):
    target_score = JsonInteger(
        load_default=15,
        validate=validate.Range(MIN_TARGET, MAX_TARGET),
        metadata={"description": "Points (coins captured) that win the game: usually 10, 15 or 20.", "example": 15},
    )
    seats = fields.List(
        # Documented as "NewPerson, NewBot or null": the rules that tell them apart (a person
        # has a name, a bot no age) are not expressible on the one loading schema.
        fields.Nested(
            NewSeatSchema, allow_none=True, metadata={"any_of_schemas": ["NewPerson", "NewBot", "PlayerSeat"]}
        ),
        validate=validate.Length(equal=3),
        load_default=lambda: [None, None, None],
        metadata={
            "description": "Exactly three entries, seats 0, 1, 2 clockwise: a person takes the seat now "
            '(their token is in `credentials`), `{"player": "me"}` takes it for the player whose key '
            "the request carries (no token: the key acts for it), a `bot` seats a computer player, `null` "
            "leaves it open to join.",
            "example": [{"name": "Ana", "age": 41}, {"bot": "expert", "name": "Robo"}, None],
        },
    )
    first_dealer = _seat(
        "Optional: the seat that deals first. Otherwise the oldest player by `age`, otherwise a random draw.",
        allow_none=True,
    )
    auto_deal = JsonBoolean(load_default=False, metadata={"description": "Deal each hand as soon as it is due."})
    rated = JsonBoolean(
        load_default=False,
        metadata={
            "description": "Rate the game: every seat must be a player's or a bot's (an anonymous seat, now or "
            "joined later, is `409 player_required`), with no `seed` (`422 seeded_game_unrated`) and no bot "
            "strength twice (`422 bot_seated_twice`). Its rematch is rated too."
        },
    )
    turn_timeout_seconds = JsonInteger(
        allow_none=True,
        validate=validate.Range(5, 86_400),
        metadata={
            "description": "Optional: when the player to act lets this many seconds pass, the next request "
            "that touches the game first has a `basic` bot act for them (recorded as a `timeout`).",
            "example": 60,
        },
    )
    seed = Text(
        validate=validate.Length(1, 200),
        allow_none=True,
        metadata={
            "description": "For tests, demos and replays only: every deal of the game follows from this "
            "string alone, so anyone who knows or guesses it knows every hand (each hand's public "
            "commitment lets a guess be checked offline). The game reports `seeded: true` and is never "
            "rated or matched. Leave it out for a real game: each hand then gets a secret random seed.",
            "example": "demo-1",
        },
    )


class ListGamesQuerySchema(ma.Schema):
    status = fields.String(
        validate=validate.OneOf(STATUSES),
        metadata={
            "description": "Only games with this status: `waiting_for_players` finds open seats.",
            "enum_schema": "GameStatus",
        },
    )
    limit = fields.Integer(load_default=20, validate=validate.Range(1, 100), metadata={"description": "Page size."})
    cursor = Text(validate=validate.Length(1, 200), metadata={"description": "`next_cursor` of the previous page."})


# -- responses --------------------------------------------------------------------------


# The game's fields at the top level (read from ``Created.game``), next to the credentials.
CreatedGameSchema = ma.Schema.from_dict(
    {
        **fields_of(GameSchema, "game"),
        "credentials": fields.List(fields.Nested(CredentialSchema), required=True),
    },
    name="CreatedGameSchema",
)


class ScoresSchema(ma.Schema):
    target_score = fields.Integer(required=True)
    scores = fields.Nested(ScoreSchema, many=True, required=True, attribute="seats")
    winner = fields.Integer(allow_none=True, required=True)


class GamePageSchema(ma.Schema):
    items = fields.List(fields.Nested(GameSchema), required=True, attribute="games")
    next_cursor = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "Pass as `cursor` for the next page; null on the last."},
    )
