"""The schemas of a play: the card sent, and the play, trick and scores after it."""

from __future__ import annotations

from marshmallow import fields

from ...fields import CardField, Itself
from ...schemas import GameSchema, PlaySchema, RequestSchema, ResponseSchema, ScoreSchema, TrickSchema

# -- requests ---------------------------------------------------------------------------


class PlayCardSchema(RequestSchema):
    card = CardField(required=True, metadata={"description": "The card to play, from your hand."})


# -- responses --------------------------------------------------------------------------


class PlayResultSchema(ResponseSchema):
    # Named schemas for every part (not Method fields), so the spec types them for SDKs.
    play = Itself(PlaySchema, required=True, metadata={"description": "The card just played."})
    trick = fields.Nested(TrickSchema, required=True, metadata={"description": "The trick as it now stands."})
    scores = fields.List(
        fields.Nested(ScoreSchema),
        required=True,
        attribute="game.seats",
        metadata={"description": "Every seat's score after this play."},
    )
    game = fields.Nested(GameSchema, required=True)
