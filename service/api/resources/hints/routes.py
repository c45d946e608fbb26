"""Hints: the card a bot would play in your place, and why."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ...common import Blueprint, bearer_token, not_modified, with_etag
from ...context import GAME_ID, PRIVATE, games
from ...openapi import SEAT_SECURITY
from .schemas import HintQuerySchema, HintSchema

blp = Blueprint("hints", __name__, url_prefix="/v1/games", description="Advice from the computer players.")


@blp.route("/<game_id>/hint", parameters=[GAME_ID, "IfNoneMatch"])
class HintViews(MethodView):
    @blp.doc(operationId="getHint", summary="Ask which card to play", security=SEAT_SECURITY)
    @blp.arguments(HintQuerySchema(), location="query", as_kwargs=True)
    @blp.response(200, HintSchema, headers={"ETag": "ETag"})
    @blp.alt_response(304, description="Not modified.", headers={"ETag": "ETag"})
    @blp.problems(
        "missing_token",
        "invalid_token",
        "invalid_key",
        "not_your_seat",
        "game_not_found",
        "seats_open",
        "game_cancelled",
        "not_your_turn",
        "no_hand_in_progress",
        "game_finished",
        "hints_off_in_rated",
        "validation_error",
        "too_many_requests",
        "database_unavailable",
    )
    def get(self, game_id: str, strength: str) -> Any:
        """On your turn: the card a bot of `strength` would play from your hand, with its reason.
        It sees only what you see. The same game version gives the same hint. Not in a rated game:
        `409 hints_off_in_rated` (the strongest bot's card is the answer a cheat wants)."""
        hint = games().hint(game_id, bearer_token(), strength)
        etag = f"{hint.game_id}.{hint.version}.{hint.seat}.{strength}"
        unchanged = not_modified(etag)
        if unchanged is not None:
            return unchanged
        return hint, 200, with_etag(etag, PRIVATE)
