"""The schemas of ratings: a player's rating history (a page of rated games) and the leaderboard."""

from __future__ import annotations

from marshmallow import fields, validate

from ....bots import STRENGTHS
from ...fields import Text, seat_field
from ...schemas import RequestSchema, ResponseSchema
from ..players.schemas import PLAYER_ID_EXAMPLE, RatingSchema

_NEXT_CURSOR = {"description": "Pass as `cursor` for the next page; null on the last."}


class PageQuerySchema(RequestSchema):
    limit = fields.Integer(load_default=20, validate=validate.Range(1, 100), metadata={"description": "Page size."})
    cursor = Text(validate=validate.Length(1, 200), metadata={"description": "`next_cursor` of the previous page."})


class LeaderboardQuerySchema(PageQuerySchema):
    provisional = fields.Boolean(
        load_default=False,
        truthy={"true"},
        falsy={"false"},
        metadata={
            "description": "`true`: the rising players instead, whose ratings are still provisional (best "
            "first, ranked apart); `false` (the default): the players with a settled rating."
        },
    )


class RatedGameSchema(ResponseSchema):
    game = fields.String(
        required=True, metadata={"description": "The rated game's id.", "example": "01jf3v9k2m8q4r6t0w5x7y9z1a"}
    )
    finished_at = fields.DateTime(required=True, metadata={"description": "When the game finished."})
    seat = seat_field("The player's seat in that game.", required=True)
    place = fields.Integer(
        required=True,
        validate=validate.Range(1, 3),
        metadata={"description": "1 is first; equal finishes share the better place (1, 2, 2); a leaver is last."},
    )
    score = fields.Integer(required=True, metadata={"description": "The seat's final score."})
    left = fields.Boolean(required=True, metadata={"description": "The player left the game (and so finished last)."})
    before = fields.Nested(RatingSchema, required=True, metadata={"description": "The rating the game started from."})
    after = fields.Nested(RatingSchema, required=True, metadata={"description": "The rating the game ended with."})
    weight = fields.Float(
        required=True,
        metadata={
            "description": 'How much the game counted, 0 to 1 (docs/ratings.md, "Farming"): 1 against strangers '
            "who stayed; less against opponents who left, much less certain ones, the same opponents again within "
            "a day, or players of your own address.",
            "example": 1.0,
        },
    )


class RatingHistorySchema(ResponseSchema):
    items = fields.List(fields.Nested(RatedGameSchema), required=True, attribute="games")
    next_cursor = fields.String(allow_none=True, required=True, metadata=_NEXT_CURSOR)


class RankedPlayerSchema(ResponseSchema):
    id = fields.String(required=True, metadata={"example": PLAYER_ID_EXAMPLE})
    name = fields.String(required=True, metadata={"example": "Ana"})
    bot = fields.String(
        allow_none=True,
        required=True,
        validate=validate.OneOf(STRENGTHS),
        metadata={
            "description": "A bot strength's player: its strength; null for a person.",
            "enum_schema": "BotStrength",
        },
    )


class LeaderboardEntrySchema(ResponseSchema):
    rank = fields.Integer(
        required=True, metadata={"description": "1 for the best; numbered on across pages.", "example": 1}
    )
    player = fields.Nested(RankedPlayerSchema, required=True)
    rating = fields.Nested(RatingSchema, required=True)


class LeaderboardSchema(ResponseSchema):
    items = fields.List(fields.Nested(LeaderboardEntrySchema), required=True, attribute="entries")
    next_cursor = fields.String(allow_none=True, required=True, metadata=_NEXT_CURSOR)
