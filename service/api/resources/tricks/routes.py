"""Tricks: the completed tricks of a game, oldest first."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ...common import Blueprint, game_page
from ...context import GAME_ID, games
from ...openapi import PUBLIC
from .schemas import ListTricksQuerySchema, TrickPageSchema

blp = Blueprint("tricks", __name__, url_prefix="/v1/games", description="The history of completed tricks.")


@blp.route("/<game_id>/tricks", parameters=[GAME_ID, "IfNoneMatch"])
class TrickViews(MethodView):
    @blp.doc(operationId="listTricks", summary="List the completed tricks", security=PUBLIC)
    @blp.arguments(ListTricksQuerySchema(), location="query", as_kwargs=True)
    @blp.response(200, TrickPageSchema, headers={"ETag": "ETag", "Link": "Link"})
    @blp.alt_response(304, description="Not modified.", headers={"ETag": "ETag"})
    @blp.problems("game_not_found", "invalid_cursor", "validation_error", "database_unavailable")
    def get(self, game_id: str, limit: int, cursor: str | None = None) -> Any:
        """Every completed trick of the game, oldest first, with its winner and points, a page
        at a time. Only cards already played appear here."""
        page = games().tricks(game_id, cursor=cursor, limit=limit)
        return game_page(page, page.etag, "tricks.TrickViews", game_id=game_id, limit=limit)
