"""History: every deal and play of a game, oldest first, with who (or what) made it."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ...common import Blueprint, game_page
from ...context import GAME_ID, games
from ...openapi import PUBLIC
from .schemas import ActionPageSchema, ListActionsQuerySchema

blp = Blueprint("history", __name__, url_prefix="/v1/games", description="The public history of a game.")


@blp.route("/<game_id>/actions", parameters=[GAME_ID, "IfNoneMatch"])
class ActionViews(MethodView):
    @blp.doc(operationId="listActions", summary="List a game's actions", security=PUBLIC)
    @blp.arguments(ListActionsQuerySchema(), location="query", as_kwargs=True)
    @blp.response(200, ActionPageSchema, headers={"ETag": "ETag", "Link": "Link"})
    @blp.alt_response(304, description="Not modified.", headers={"ETag": "ETag"})
    @blp.problems("game_not_found", "invalid_cursor", "validation_error", "database_unavailable")
    def get(self, game_id: str, limit: int, cursor: str | None = None) -> Any:
        """Every deal and play, oldest first, a page at a time, with its `cause`: the player,
        a bot seat, the server's auto-deal, or a stand-in after a `timeout`. A deal shows its
        commitment at once and its seed once the hand is over, so any deal can be verified."""
        page = games().history(game_id, cursor=cursor, limit=limit)
        return game_page(page, page.etag, "history.ActionViews", game_id=game_id, limit=limit)
