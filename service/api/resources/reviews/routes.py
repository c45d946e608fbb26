"""Reviews: every play of a finished game judged by the strongest bot, from what its seat knew then."""

from __future__ import annotations

from typing import Any

from flask import jsonify
from flask.views import MethodView

from ....games import PendingReview
from ...common import Blueprint
from ...context import GAME_ID, games
from ...openapi import PUBLIC
from .schemas import PendingReviewSchema, ReviewSchema

blp = Blueprint("reviews", __name__, url_prefix="/v1/games", description="A finished game judged play by play.")

_RETRY_AFTER = {"description": "Seconds until the review may be ready.", "schema": {"type": "integer"}}
_PENDING = PendingReviewSchema()


@blp.route("/<game_id>/review", parameters=[GAME_ID])
class ReviewViews(MethodView):
    @blp.doc(operationId="getReview", summary="Review a finished game, play by play", security=PUBLIC)
    @blp.response(200, ReviewSchema)
    @blp.alt_response(
        202,
        schema=PendingReviewSchema,
        description="Being computed (the first request asked for it): ask again after `Retry-After`.",
        headers={"Retry-After": _RETRY_AFTER},
    )
    @blp.problems(
        "game_not_found",
        "game_not_finished",
        "game_cancelled",
        "review_needs_a_person",
        "too_many_requests",
        "database_unavailable",
    )
    def get(self, game_id: str) -> Any:
        """For every play of a finished game, the card the strongest bot (`master`) would have played
        from what that seat knew at that moment (its own hand and the cards played so far, never a
        card it could not see), and every card it could play with the points it could expect in the
        rest of the hand. The first request asks for the review and answers `202` with `Retry-After`;
        the service's worker computes it at its lowest priority, and a request after that answers
        it (`200`). Before the game is over: `409 game_not_finished` (a cancelled game, which never will
        be: `409 game_cancelled`); a game with no person or player
        at the table (bots alone) is not reviewed: `409 review_needs_a_person`."""
        review = games().review(game_id)
        if isinstance(review, PendingReview):
            pending = jsonify(_PENDING.dump(review))
            pending.status_code = 202
            pending.headers["Retry-After"] = str(review.retry_after)
            return pending
        return review
