"""The schemas of games: creating one (its seats), listing them, the created game, the scores."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from ....bots import STRENGTHS
from ....engine import MAX_TARGET, MIN_TARGET
from ....games.results import STATUSES
from ...context import GAME_ID_PATTERN
from ...fields import NAME_RULE, JsonBoolean, JsonInteger, PlayerName, Text, seat_field
from ...schemas import (
    CredentialSchema,
    GameSchema,
    NewPlayerSchema,
    RequestSchema,
    ResponseSchema,
    ScoreSchema,
    fields_of,
)

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


SEAT_PLAYER_PATTERN = "^(me|[0-9A-Za-z]{26})$"  # the caller, or a player's id (a challenge)
SEAT_PLAYER = fields.String(
    validate=validate.Regexp(SEAT_PLAYER_PATTERN),
    metadata={
        "description": "`me`: the seat is taken for the player whose key the request carries "
        "(`Authorization: Bearer <player key>`), named as their profile; their key acts for it (no seat token). "
        "Another player's id: a challenge, the seat reserved for them.",
        "example": ME,
    },
)
MIN_CHALLENGE_SECONDS = 60
MAX_CHALLENGE_SECONDS = 14 * 24 * 60 * 60
DEFAULT_CHALLENGE_SECONDS = 24 * 60 * 60

MIN_TURN_SECONDS = 5
MAX_TURN_SECONDS = 14 * 24 * 60 * 60  # contract 1.3: correspondence clocks up to 14 days


class NewSeatSchema(NewPlayerSchema):
    """A person (`name`, optional `age`), a computer player (`bot`, optional `name`) or the caller
    as a player (`player: "me"`)."""

    name = PlayerName(
        metadata={"description": f"Shown to the other players. Required for a person. {NAME_RULE}", "example": "Ana"}
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

    player = SEAT_PLAYER

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

    # Only null, said as a nullable string whose `const` is null (added in service/api/__init__.py:
    # apispec passes no `const`): `{type: "null"}` alone crashes openapi-generator's python
    # generator, and `enum: [null]` fails its examples (ERROR lines, .ci/generators.sh).
    bot = fields.Raw(metadata={"type": ["string", "null"], "description": "Absent, or null: a person."})


class NewBotSchema(RequestSchema):
    """A computer player taking a seat. Documents the other form of NewSeatSchema."""

    bot = fields.String(
        required=True,
        validate=validate.OneOf(STRENGTHS),
        metadata={
            "description": "Its strength: it plays on the server as soon as it is its turn.",
            "enum_schema": "BotStrength",
        },
    )
    name = PlayerName(metadata={"description": f"Optional: shown to the other players. {NAME_RULE}", "example": "Robo"})
    age = fields.Raw(  # only null, as NewPerson's bot
        metadata={"type": ["integer", "null"], "description": "Absent, or null: bots have no age."}
    )


class PlayerSeatSchema(RequestSchema):
    """The caller taking a seat as a player. Documents the third form of NewSeatSchema."""

    player = fields.String(
        required=True,
        validate=validate.OneOf([ME]),
        metadata={"description": PLAYER_ME.metadata["description"], "example": ME},
    )


class ChallengeSeatSchema(RequestSchema):
    """A seat reserved for another player: a challenge (contract 1.3). Documents the fourth form of
    NewSeatSchema, apart from PlayerSeat so that a typed client can write it: its ``player`` is a
    player's id, which is never ``me``."""

    player = fields.String(
        required=True,
        validate=validate.Regexp(GAME_ID_PATTERN),
        metadata={
            "description": "The challenged player's id: the seat is reserved for them (`reserved_for`) until they "
            "take it (`joinGame` as `me`) or decline, or the challenge runs out (`challenge_seconds`).",
            "example": "01jf3v9k2m8q4r6t0w5x7y9z1c",
            "minLength": 26,
            "maxLength": 26,
        },
    )


class CreateGameSchema(RequestSchema):
    target_score = JsonInteger(
        load_default=15,
        validate=validate.Range(MIN_TARGET, MAX_TARGET),
        metadata={"description": "Points (coins captured) that win the game: usually 10, 15 or 20.", "example": 15},
    )
    seats = fields.List(
        # Documented as "NewPerson, NewBot or null": the rules that tell them apart (a person
        # has a name, a bot no age) are not expressible on the one loading schema.
        fields.Nested(
            NewSeatSchema,
            allow_none=True,
            metadata={"any_of_schemas": ["NewPerson", "NewBot", "PlayerSeat", "ChallengeSeat"]},
        ),
        validate=validate.Length(equal=3),
        load_default=lambda: [None, None, None],
        metadata={
            "description": "Exactly three entries, seats 0, 1, 2 clockwise: a person takes the seat now "
            '(their token is in `credentials`), `{"player": "me"}` takes it for the player whose key '
            "the request carries (no token: the key acts for it), a `bot` seats a computer player, "
            '`{"player": "<another player\'s id>"}` challenges that player (the seat is reserved for them), `null` '
            "leaves it open to join. A challenge (contract 1.3) needs your key and your own seat as `me`; the "
            "challenged player is told (`challenge_received`) and accepts with `joinGame` as `me` or declines with "
            "`declineChallenge`. An unknown or deleted player is `422 challenged_player_not_found`, yourself "
            "`422 challenged_self`, a bot's player `422 challenged_bot`; a player who refuses challenges "
            "`403 challenges_refused`; the 21st challenge to one player within 24 hours `429 too_many_challenges`.",
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
            "joined later, is `409 player_required`), with no `seed` (`422 seeded_game_unrated`), no bot "
            "strength twice (`422 bot_seated_twice`), a turn clock (60 s unless given; `null` is "
            "`422 rated_needs_clock`) and no player an operator barred from rated play "
            "(`403 rated_play_barred`). Its rematch is rated too. A rated game a seat leaves before playing "
            "a card is `void`: it rates nobody."
        },
    )
    turn_timeout_seconds = JsonInteger(
        allow_none=True,
        validate=validate.Range(MIN_TURN_SECONDS, MAX_TURN_SECONDS),
        metadata={
            "description": "Optional: when the player to act lets this many seconds pass (5 s to 14 days; from "
            "an hour on, a correspondence game), a `basic` bot acts for them on time (recorded as a `timeout`); "
            "a seat that lets two deadlines in a row pass (one in a correspondence game) has left.",
            "example": 60,
        },
    )
    challenge_seconds = JsonInteger(
        load_default=DEFAULT_CHALLENGE_SECONDS,
        validate=validate.Range(MIN_CHALLENGE_SECONDS, MAX_CHALLENGE_SECONDS),
        metadata={
            "description": "With a challenged seat: how long the reserved seats wait (60 s to 14 days; a day unless "
            "given). Not all taken by then, the game is `cancelled` (reason `expired`). Ignored without one.",
            "example": 86400,
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

    @ma.validates_schema
    def _challenger_seated(self, data: dict[str, Any], **_kwargs: Any) -> None:
        players = [seat.get("player") for seat in data.get("seats") or [] if seat is not None]
        if any(player not in (None, ME) for player in players) and ME not in players:
            raise ma.ValidationError('a challenger takes a seat of the game: {"player": "me"}', "seats")


class ListGamesQuerySchema(RequestSchema):
    status = fields.String(
        validate=validate.OneOf(STATUSES),
        metadata={
            "description": "Only games with this status: `waiting_for_players` finds open seats (a game whose "
            "seats not taken are all reserved is left out). Cancelled games are in no list but their players' own.",
            "enum_schema": "GameStatus",
        },
    )
    limit = fields.Integer(load_default=20, validate=validate.Range(1, 100), metadata={"description": "Page size."})
    cursor = Text(validate=validate.Length(1, 200), metadata={"description": "`next_cursor` of the previous page."})


# -- responses --------------------------------------------------------------------------


# The game's fields at the top level (read from ``Created.game``), next to the credentials.
CreatedGameSchema = ResponseSchema.from_dict(
    {
        **fields_of(GameSchema, "game"),
        "credentials": fields.List(fields.Nested(CredentialSchema), required=True),
    },
    name="CreatedGameSchema",
)


class ScoresSchema(ResponseSchema):
    target_score = fields.Integer(required=True)
    scores = fields.Nested(ScoreSchema, many=True, required=True, attribute="seats")
    winner = fields.Integer(allow_none=True, required=True)


class GamePageSchema(ResponseSchema):
    items = fields.List(fields.Nested(GameSchema), required=True, attribute="games")
    next_cursor = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "Pass as `cursor` for the next page; null on the last."},
    )
