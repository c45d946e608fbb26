"""Webhooks: a player's signed deliveries of their feed events (contract 1.3, "Notifications")."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ....work import UnitOfWork
from ...common import Blueprint, bearer_token
from ...context import NO_STORE, PRIVATE, webhooks
from ...idempotency import idempotent
from ...openapi import KEY_SECURITY, WEBHOOK_LINKS
from .schemas import CreatedWebhookSchema, NewWebhookSchema, WebhookListSchema

blp = Blueprint(
    "webhooks",
    __name__,
    url_prefix="/v1/players/me/webhooks",
    description="Webhooks: your feed's events, signed and POSTed to your HTTPS endpoint.",
)

WEBHOOK_ID = {
    "in": "path",
    "name": "webhook_id",
    "description": "The webhook's id (26 characters of Crockford base32; any other text is no webhook's: 404).",
    "schema": {"type": "string", "minLength": 26, "maxLength": 26},
}
KEY_PROBLEMS = ("missing_token", "invalid_key")


@blp.route("")
class WebhookViews(MethodView):
    @idempotent
    @blp.doc(
        operationId="createWebhook",
        summary="Create a webhook",
        security=KEY_SECURITY,
        responses={201: {"links": WEBHOOK_LINKS}},
    )
    @blp.arguments(NewWebhookSchema(), example={"url": "https://bots.example.com/coins", "types": ["your_turn"]})
    @blp.response(201, CreatedWebhookSchema)
    @blp.problems(
        "malformed_json",
        *KEY_PROBLEMS,
        "webhook_url_refused",
        "too_many_webhooks",
        "validation_error",
        "too_many_requests",
        "database_unavailable",
    )
    def post(self, body: dict[str, Any], uow: UnitOfWork) -> Any:
        """A webhook for your player: each event of your feed of the `types` it takes (default
        `your_turn`, `match_found`, `challenge_received`, `rematch_offered`, `game_result`) is POSTed
        to `url`, its body the event's JSON as your feed gives it, signed as the Standard Webhooks
        specification says (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64
        HMAC-SHA256>` of `<id>.<timestamp>.<body>` with the secret). The secret is in this answer only.
        An answer other than 2xx is retried with growing delays for more than 24 hours; `410` removes
        the webhook; after 3 days of failures it is disabled. A delivery never delays the change that
        caused it. At most 10 webhooks a player: `409 too_many_webhooks`."""
        return webhooks().create(bearer_token(), body["url"], body["types"], uow=uow), 201, NO_STORE

    @blp.doc(operationId="listWebhooks", summary="List your webhooks", security=KEY_SECURITY)
    @blp.response(200, WebhookListSchema)
    @blp.problems(*KEY_PROBLEMS, "database_unavailable")
    def get(self) -> Any:
        """Your webhooks, oldest first, without their secrets."""
        return {"items": webhooks().list(bearer_token())}, 200, PRIVATE


@blp.route("/<webhook_id>", parameters=[WEBHOOK_ID])
class WebhookByIdViews(MethodView):
    @blp.doc(operationId="deleteWebhook", summary="Delete a webhook", security=KEY_SECURITY)
    @blp.response(204)
    @blp.problems(*KEY_PROBLEMS, "webhook_not_found", "database_unavailable")
    def delete(self, webhook_id: str) -> Any:
        """Delete your webhook: nothing more is sent to it. Another player's webhook is `404
        webhook_not_found`, as is one that does not exist."""
        webhooks().delete(bearer_token(), webhook_id)
        return None
