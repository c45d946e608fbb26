"""Records: a whole game as one self-contained document, for archives and for coins-verify."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ...common import Blueprint, not_modified, with_etag
from ...context import GAME_ID, games
from .schemas import RecordSchema

blp = Blueprint(
    "records", __name__, url_prefix="/v1/games", description="A game as one document that anyone can verify."
)


@blp.route("/<game_id>/record", parameters=[GAME_ID, "IfNoneMatch"])
class RecordViews(MethodView):
    @blp.doc(operationId="getRecord", summary="Download a game's record")
    @blp.response(200, RecordSchema, headers={"ETag": "ETag"})
    @blp.alt_response(304, description="Not modified: the game is still at the version of `If-None-Match`.")
    @blp.problems("game_not_found", "database_unavailable")
    def get(self, game_id: str) -> Any:
        """The game as a self-contained record: its setup, the seats' names (never tokens), every
        deal with its commitment and, once its hand is over, its seed, every play in order, every
        completed trick with its winner and points, the scores and the winner. Cards still in
        someone's hand are never in it, nor the seed of the hand being played. Check it with
        `coins-verify record.json` (docs/records.md). One version of the game has one record:
        its `ETag` is the game's."""
        record = games().record(game_id)
        unchanged = not_modified(record.etag)
        if unchanged is not None:
            return unchanged
        return record.document, 200, with_etag(record.etag)
