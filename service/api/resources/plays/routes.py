"""Plays: put a card on the table."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ....work import UnitOfWork
from ...common import Blueprint, bearer_token, if_match, with_etag
from ...context import GAME_ID, games
from ...idempotency import idempotent
from ...openapi import SEAT_SECURITY
from .schemas import PlayCardSchema, PlayResultSchema

blp = Blueprint("plays", __name__, url_prefix="/v1/games", description="Play cards.")


@blp.route("/<game_id>/plays", parameters=[GAME_ID, "IfMatch"])
class PlayViews(MethodView):
    @idempotent
    @blp.doc(operationId="playCard", summary="Play a card", security=SEAT_SECURITY)
    @blp.arguments(PlayCardSchema(), example={"card": "ace-coins"})
    @blp.response(201, PlayResultSchema, headers={"ETag": "ETag"})
    @blp.problems(
        "malformed_json",
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
        "precondition_failed",
        "validation_error",
        "card_not_in_hand",
        "too_many_requests",
        "database_unavailable",
    )
    def post(self, body: dict[str, Any], game_id: str, uow: UnitOfWork) -> Any:
        """Play any card you hold on your turn (there is no duty to follow suit). The third
        card settles the trick: its `winner` scores its coins and leads the next. The game
        ends the moment a score reaches the target, even mid-hand."""
        result = games().play(game_id, bearer_token(), body["card"], if_match=if_match(), uow=uow)
        return result, 201, with_etag(result.game.etag)
