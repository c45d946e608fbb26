"""Quick play: queue for a new game with players of your rating, read your ticket, cancel it."""

from __future__ import annotations

from typing import Any

from flask import url_for
from flask.views import MethodView

from ....quickplay.queue import QueueRequest
from ....work import UnitOfWork
from ...common import Blueprint, bearer_token
from ...context import PRIVATE, client_address_hash, queue
from ...idempotency import idempotent
from ...openapi import TICKET_LINKS
from .schemas import QueueSchema, TicketSchema

blp = Blueprint("queue", __name__, url_prefix="/v1/queue", description="Quick play: be matched into a new game.")

TICKET_ID = {
    "in": "path",
    "name": "ticket_id",
    "description": "The ticket's id (26 characters of Crockford base32; any other text is no ticket's: 404).",
    "schema": {"type": "string", "minLength": 26, "maxLength": 26},
}
TICKET_LOCATION = {"description": "URL of the ticket (getTicket).", "schema": {"type": "string"}}
KEY_PROBLEMS = ("missing_token", "invalid_key")


@blp.route("")
class QueueViews(MethodView):
    @idempotent
    @blp.doc(
        operationId="enterQueue",
        summary="Queue for a game",
        security=[{"playerKey": []}],
        responses={201: {"links": TICKET_LINKS}},
    )
    @blp.arguments(QueueSchema(), example={"target_score": 15, "rated": True, "bots_after": 60}, required=False)
    @blp.response(201, TicketSchema, headers={"Location": TICKET_LOCATION})
    @blp.problems(
        "malformed_json",
        *KEY_PROBLEMS,
        "already_queued",
        "rated_play_barred",
        "validation_error",
        "too_many_requests",
        "database_unavailable",
    )
    def post(self, body: dict[str, Any], uow: UnitOfWork) -> Any:
        """Enter matchmaking with your player key: a ticket, `waiting`. Three waiting tickets with
        the same `target_score` and `rated` are matched into a new game, every seat taken for its
        player (your key acts for yours), dealt by the server, with a 60-second turn timeout.
        Closer ratings are matched first; the allowed gap widens with waiting time, and after 60
        seconds any three such tickets match. After `bots_after` seconds bots may complete your
        table. Read the ticket (getTicket) or follow your player feed at least every 30 seconds,
        else it expires. One waiting ticket at a time: `409 already_queued`, whose `ticket` member
        is the id of the one waiting."""
        request = QueueRequest(body["target_score"], body["rated"], body["bots_after"], body["turn_timeout_seconds"])
        ticket = queue().enter(bearer_token(), request, uow=uow, address=client_address_hash())
        return ticket, 201, {"Location": url_for("queue.TicketViews", ticket_id=ticket.id)}


@blp.route("/<ticket_id>", parameters=[TICKET_ID])
class TicketViews(MethodView):
    @blp.doc(operationId="getTicket", summary="Read your ticket", security=[{"playerKey": []}])
    @blp.response(200, TicketSchema)
    @blp.problems(*KEY_PROBLEMS, "ticket_not_found", "database_unavailable")
    def get(self, ticket_id: str) -> Any:
        """Your ticket as it stands: `waiting`, `matched` (with its `game`), `expired` or
        `cancelled`. Reading it keeps a waiting ticket alive, and lets the server match what is
        due. Another player's ticket is `404 ticket_not_found`, as is one that does not exist."""
        return queue().read(bearer_token(), ticket_id), 200, PRIVATE

    @blp.doc(operationId="cancelTicket", summary="Leave the queue", security=[{"playerKey": []}])
    @blp.response(204)
    @blp.problems(*KEY_PROBLEMS, "ticket_not_found", "ticket_matched", "database_unavailable")
    def delete(self, ticket_id: str) -> Any:
        """Cancel your waiting ticket (a ticket already `expired` or `cancelled` stays so: 204 too).
        A `matched` ticket cannot be cancelled: `409 ticket_matched` (leave its game instead)."""
        queue().cancel(bearer_token(), ticket_id)
        return None
