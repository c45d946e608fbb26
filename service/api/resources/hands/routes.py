"""Hands: the dealer deals; each player reads their own cards."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ....work import UnitOfWork
from ...common import Blueprint, bearer_token, if_match, not_modified, with_etag
from ...context import GAME_ID, PRIVATE, games
from ...idempotency import idempotent
from ...openapi import SEAT_SECURITY
from ...schemas import HandSchema
from .schemas import DealtHandSchema

blp = Blueprint("hands", __name__, url_prefix="/v1/games", description="Deal hands and read your own cards.")

AUTH = SEAT_SECURITY


@blp.route("/<game_id>/hands", parameters=[GAME_ID, "IfMatch"])
class HandViews(MethodView):
    @idempotent
    @blp.doc(operationId="dealHand", summary="Deal the next hand", security=AUTH)
    @blp.response(201, DealtHandSchema, headers={"ETag": "ETag"})
    @blp.problems(
        "missing_token",
        "invalid_token",
        "invalid_key",
        "not_your_seat",
        "not_dealer",
        "game_not_found",
        "seats_open",
        "game_cancelled",
        "hand_in_progress",
        "game_finished",
        "precondition_failed",
        "validation_error",  # a malformed If-Match
        "database_unavailable",
    )
    def post(self, game_id: str, uow: UnitOfWork) -> Any:
        """The dealer deals: the player on the dealer's right shuffles, the one on the left
        cuts, and the deck is dealt one card at a time clockwise from the dealer's left,
        sixteen each. The answer carries the `commitment` (SHA-256 of the hand's secret seed)."""
        dealt = games().deal(game_id, bearer_token(), if_match=if_match(), uow=uow)
        return dealt, 201, with_etag(dealt.game.etag)


@blp.route("/<game_id>/hand", parameters=[GAME_ID, "IfNoneMatch"])
class OwnHandViews(MethodView):
    @blp.doc(operationId="getHand", summary="Read your own cards", security=AUTH)
    @blp.response(200, HandSchema, headers={"ETag": "ETag"})
    @blp.alt_response(304, description="Not modified.", headers={"ETag": "ETag"})
    @blp.problems(
        "missing_token",
        "invalid_token",
        "invalid_key",
        "not_your_seat",
        "game_not_found",
        "validation_error",
        "database_unavailable",
    )
    def get(self, game_id: str) -> Any:
        """The cards your token's seat holds, by suit in cycle order, then rank high to low.
        Empty before the first deal."""
        hand = games().hand(game_id, bearer_token())
        etag = f"{hand.game_id}.{hand.version}.{hand.seat}"
        unchanged = not_modified(etag)
        if unchanged is not None:
            return unchanged
        return hand, 200, with_etag(etag, PRIVATE)
