"""Rematches: the seats of a finished game play again, at a new game that links to the old one."""

from __future__ import annotations

from typing import Any

from flask import url_for
from flask.views import MethodView

from ....games import UnitOfWork
from ...common import Blueprint, bearer_token, with_etag
from ...context import GAME_ID, games
from ...idempotency import idempotent
from ...openapi import SEAT_SECURITY
from .schemas import RematchSchema

blp = Blueprint("rematches", __name__, url_prefix="/v1/games", description="Play a finished game again.")


@blp.route("/<game_id>/rematch", parameters=[GAME_ID])
class RematchViews(MethodView):
    @idempotent
    @blp.doc(operationId="rematchGame", summary="Take your seat at a finished game's rematch", security=SEAT_SECURITY)
    @blp.response(201, RematchSchema, headers={"Location": "Location", "ETag": "ETag"})
    @blp.alt_response(200, schema=RematchSchema, description="The rematch already existed: your place at it.")
    @blp.problems(
        "missing_token",
        "invalid_token",
        "invalid_key",
        "not_your_seat",
        "game_not_found",
        "game_not_finished",
        "seat_taken",
        "too_many_requests",
        "database_unavailable",
    )
    def post(self, game_id: str, uow: UnitOfWork) -> Any:
        """With a seat's token of a finished game: the rematch, and your seat's token for it.

        The first call creates it (201): the same seats (people with their names, bots with
        their strengths), target score and options, fresh deals (a seeded game's rematch is not
        seeded), and the first dealer the rules choose for a new game: the oldest player, else
        drawn. Every later call, by any seat, answers that same game (200): each person takes
        their seat by calling with their own token, and gets their own token for the rematch.
        A seat's new token is derived from its old one: calling again answers the same token,
        never a second one. Until a person calls, nobody can act for their seat. The two games
        link to each other (`rematch`, `rematch_of`), and the finished game's feed tells of it
        (`rematch_created`)."""
        rematch = games().rematch(game_id, bearer_token(), uow=uow)
        location = url_for("games.GameByIdViews", game_id=rematch.game.id)
        return rematch, 201 if rematch.created else 200, with_etag(rematch.game.etag, {"Location": location})
