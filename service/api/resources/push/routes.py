"""Web Push: the VAPID public key, and a player's browsers' subscriptions (contract 1.3, "Notifications")."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ....work import UnitOfWork
from ...common import Blueprint, bearer_token
from ...context import push
from ...idempotency import idempotent
from ...openapi import KEY_SECURITY, PUBLIC, PUSH_SUBSCRIPTION_LINKS
from .schemas import SUBSCRIBE_DESCRIPTION, NewPushSubscriptionSchema, PushKeySchema, PushSubscriptionSchema

blp = Blueprint(
    "push",
    __name__,
    url_prefix="/v1",
    description="Web Push: your feed's events as push messages to your browsers, encrypted and signed.",
)

SUBSCRIPTION_ID = {
    "in": "path",
    "name": "subscription_id",
    "description": "The subscription's id (26 characters of Crockford base32; any other text is none: 404).",
    "schema": {"type": "string", "minLength": 26, "maxLength": 26},
}
KEY_PROBLEMS = ("missing_token", "invalid_key")


@blp.route("/push/key")
class PushKeyViews(MethodView):
    @blp.doc(operationId="getPushKey", summary="The service's VAPID public key", security=PUBLIC)
    @blp.response(200, PushKeySchema)
    @blp.problems("database_unavailable")
    def get(self) -> Any:
        """The public key browsers subscribe with (`applicationServerKey`): the service signs every push
        message with its private key (VAPID, RFC 8292). It changes only if the operator changes it."""
        return {"public_key": push().public_key()}


@blp.route("/players/me/push-subscriptions")
class PushSubscriptionViews(MethodView):
    @idempotent
    @blp.doc(
        operationId="createPushSubscription",
        summary="Subscribe a browser to push messages",
        description=SUBSCRIBE_DESCRIPTION,
        security=KEY_SECURITY,
        responses={201: {"links": PUSH_SUBSCRIPTION_LINKS}},
    )
    @blp.arguments(
        NewPushSubscriptionSchema(),
        example={
            "endpoint": "https://fcm.googleapis.com/fcm/send/c1KrmpTuRm0:APA91bE",
            "expirationTime": None,
            "keys": {
                "p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM",
                "auth": "tBHItJI5svbpez7KI4CCXg",
            },
            "types": ["your_turn"],
        },
    )
    @blp.response(201, PushSubscriptionSchema)
    @blp.problems(
        "malformed_json",
        *KEY_PROBLEMS,
        "push_endpoint_refused",
        "push_subscription_invalid",
        "too_many_push_subscriptions",
        "validation_error",
        "too_many_requests",
        "database_unavailable",
    )
    def post(self, body: dict[str, Any], uow: UnitOfWork) -> Any:
        keys = body["keys"]
        made = push().create(bearer_token(), body["endpoint"], keys["p256dh"], keys["auth"], body["types"], uow=uow)
        return made, 201


@blp.route("/players/me/push-subscriptions/<subscription_id>", parameters=[SUBSCRIPTION_ID])
class PushSubscriptionByIdViews(MethodView):
    @blp.doc(operationId="deletePushSubscription", summary="Unsubscribe a browser", security=KEY_SECURITY)
    @blp.response(204)
    @blp.problems(*KEY_PROBLEMS, "push_subscription_not_found", "database_unavailable")
    def delete(self, subscription_id: str) -> Any:
        """Delete your push subscription: nothing more is sent to it. Another player's is `404
        push_subscription_not_found`, as is one that does not exist."""
        push().delete(bearer_token(), subscription_id)
