"""Records: a whole game as one self-contained document, for archives and for coins-verify."""

from __future__ import annotations

from typing import Any

from flask import current_app, jsonify
from flask.views import MethodView

from ....games import etag_for
from ...common import Blueprint, not_modified, with_etag
from ...compiled_dumpers import fast_schema
from ...context import GAME_ID, games
from ...openapi import PUBLIC
from ...record_cache import CachedRecord, record_cache
from .schemas import RecordSchema

blp = Blueprint(
    "records", __name__, url_prefix="/v1/games", description="A game as one document that anyone can verify."
)

_RECORD = fast_schema(RecordSchema)  # the response decorator's dump, for the bodies kept in the cache


@blp.route("/<game_id>/record", parameters=[GAME_ID, "IfNoneMatch"])
class RecordViews(MethodView):
    @blp.doc(operationId="getRecord", summary="Download a game's record", security=PUBLIC)
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
        cache = record_cache()
        # A finished game's version, read in one short statement (404 once its row is gone), finds
        # its rendered record in the process's cache; any other game's record is built afresh.
        version = games().finished_version(game_id) if cache.enabled else None
        if version is not None:
            unchanged = not_modified(etag_for(game_id, version))
            if unchanged is not None:
                return unchanged
        cached = cache.get(game_id, version) if version is not None else None
        if cached is None:
            record = games().record(game_id)
            unchanged = not_modified(record.etag)
            if unchanged is not None:
                return unchanged
            if record.version != version:  # not finished (or linked to a rematch since): not kept
                return record.document, 200, with_etag(record.etag)
            rendered = jsonify(_RECORD.dump(record.document))  # as the response decorator renders it
            cached = CachedRecord(rendered.get_data(), rendered.content_type, record.etag)
            cache.put(game_id, record.version, cached)
        body = current_app.response_class(cached.body, content_type=cached.content_type)
        return body, 200, with_etag(cached.etag)
