"""The schemas of Web Push: the VAPID public key, a browser's subscription, and the one made of it."""

from __future__ import annotations

from marshmallow import fields, validate

from ....push import MESSAGE_FIELDS, MOST_SUBSCRIPTIONS
from ....webhooks.addresses import MOST_URL
from ...fields import Text
from ...schemas import RequestSchema, ResponseSchema
from ..webhooks.schemas import notification_types

MOST_KEY = 256  # characters of a key in base64url: p256dh is 87, auth 22


class PushKeySchema(ResponseSchema):
    public_key = fields.String(
        required=True,
        metadata={
            "description": "The service's VAPID public key (RFC 8292): an uncompressed P-256 point in base64url, "
            "the `applicationServerKey` of `pushManager.subscribe`.",
            "example": "BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U",
        },
    )


class SubscriptionKeysSchema(RequestSchema):
    p256dh = Text(
        required=True,
        validate=validate.Length(1, MOST_KEY),
        metadata={"description": "The browser's P-256 public key (65 bytes), base64url."},
    )
    auth = Text(
        required=True,
        validate=validate.Length(1, MOST_KEY),
        metadata={"description": "The browser's authentication secret (16 bytes), base64url."},
    )


class NewPushSubscriptionSchema(RequestSchema):
    endpoint = Text(
        required=True,
        validate=validate.Length(1, MOST_URL),
        metadata={
            "description": "The push service's URL: `https`, its host resolving to public addresses only (the "
            "webhooks' rule), checked now and at every delivery; else `422 push_endpoint_refused`.",
            "example": "https://fcm.googleapis.com/fcm/send/c1KrmpTuRm0:APA91bE",
        },
    )
    expirationTime = fields.Float(
        allow_none=True,
        load_default=None,
        metadata={"description": "As the browser gives it (ignored: a push service's 404 or 410 ends it)."},
    )
    keys = fields.Nested(
        SubscriptionKeysSchema,
        required=True,
        metadata={
            "description": "The keys a message is encrypted for (RFC 8291); keys that are not a P-256 point "
            "and a 16-byte secret are `422 push_subscription_invalid`."
        },
    )
    types = notification_types("to send")


class PushSubscriptionSchema(ResponseSchema):
    id = fields.String(
        required=True, metadata={"description": "The subscription's id: delete it with deletePushSubscription."}
    )
    types = fields.List(
        fields.String(metadata={"example": "your_turn", "enum_schema": "NotificationType"}), required=True
    )
    created_at = fields.DateTime(required=True)


SUBSCRIBE_DESCRIPTION = (
    "Push messages of your feed's events of the `types` it takes to a browser: the body of "
    "`PushSubscription.toJSON()` (`endpoint`, `expirationTime`, `keys`: `p256dh` and `auth`), with `types` "
    "if you like. A message is `{" + ", ".join(MESSAGE_FIELDS) + "}` (never a card), encrypted as RFC 8291 says "
    "(`aes128gcm`) and signed with the service's VAPID key (RFC 8292, `getPushKey`), sent by the service "
    "after the change, never delaying it; a failed send is tried again with growing delays; the push "
    "service's `404` or `410` removes the subscription. The same endpoint again replaces its subscription. "
    f"At most {MOST_SUBSCRIPTIONS} a player: `409 too_many_push_subscriptions`."
)
