"""Rematches are offers: a finished game's seats play again once each has asked, at a new game linked to the old one."""

from __future__ import annotations

from typing import Any

from flask import url_for
from flask.views import MethodView

from ....work import UnitOfWork
from ...common import Blueprint, bearer_token, with_etag
from ...context import GAME_ID, NO_STORE, games
from ...idempotency import idempotent
from ...openapi import SEAT_SECURITY
from .schemas import RematchSchema

blp = Blueprint("rematches", __name__, url_prefix="/v1/games", description="Play a finished game again.")


@blp.route("/<game_id>/rematch", parameters=[GAME_ID])
class RematchViews(MethodView):
    @idempotent
    @blp.doc(operationId="rematchGame", summary="Offer a rematch, or accept the one offered", security=SEAT_SECURITY)
    @blp.response(201, RematchSchema, headers={"Location": "Location", "ETag": "ETag"})
    @blp.alt_response(200, schema=RematchSchema, description="The offer existed: your seat at it is taken.")
    @blp.problems(
        "missing_token",
        "invalid_token",
        "invalid_key",
        "not_your_seat",
        "game_not_found",
        "game_not_finished",
        "game_cancelled",
        "seat_taken",
        "too_many_requests",
        "database_unavailable",
    )
    def post(self, game_id: str, uow: UnitOfWork) -> Any:
        """With a seat's token (or a player's key) of a finished game: take your own seat at its
        rematch, and only yours (contract 1.3, "Rematches are offers").

        With no offer open, the call makes one (201): a new game, waiting for players, with the
        same seats (people with their names, bots with their strengths), target score and options,
        fresh deals (a seeded game's rematch is not seeded), and the first dealer the rules choose
        for a new game: the oldest player, else drawn. Your seat is yours; another player's seat is
        reserved for them (`reserved_for`) and they are told (`rematch_offered` on their feed);
        another anonymous person's seat is open for them alone (joinGame refuses it:
        `409 seat_reserved`); bots' seats, and a leaver's bot's, are taken by the same bots at once.
        The finished game links to the offer (`rematch`) and its feed tells of it
        (`rematch_created`: anonymous seats hear it by long-polling the finished game).

        With an offer open, the call accepts it (200): your seat is taken, nobody else's. Nobody
        acts, and no clock runs, for a seat that has not asked; once every seat is taken the
        rematch is dealt, as a new game. An offer declined (`declineRematch`), or not complete
        within the longer of 10 minutes and the game's clock, is cancelled (`game_cancelled` on its
        feed and its players' feeds, with the reason); the next call then makes a new offer (201).

        An anonymous seat's new token is derived from its old one: calling again answers the same
        token, never a second one. A player's seat gets none: their key acts for it."""
        rematch = games().rematch(game_id, bearer_token(), uow=uow)
        location = url_for("games.GameByIdViews", game_id=rematch.game.id)
        headers = with_etag(rematch.game.etag, {"Location": location, **NO_STORE})  # the seat's token
        return rematch, 201 if rematch.created else 200, headers

    @blp.doc(operationId="declineRematch", summary="Decline a rematch offer", security=SEAT_SECURITY)
    @blp.response(204)
    @blp.problems(
        "missing_token",
        "invalid_token",
        "invalid_key",
        "not_your_seat",
        "game_not_found",
        "rematch_started",
        "database_unavailable",
    )
    def delete(self, game_id: str) -> Any:
        """With a seat's token (or a player's key) of a finished game: decline its rematch offer.
        The offer is cancelled for every seat (`game_cancelled`, reason `declined`, on its feed and
        its players' feeds); any seat may then make a new one. Repeatable: with no offer open, or
        one cancelled already, nothing changes (204). A rematch already dealt is not declined
        (`409 rematch_started`): leave it instead. A player's key without a seat in the game is
        `403 not_your_seat`."""
        games().decline_rematch(game_id, bearer_token())
        return None
