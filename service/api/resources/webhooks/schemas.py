"""The schemas of webhooks: what a player asks for, and the webhook they get (its secret once)."""

from __future__ import annotations

from marshmallow import fields, validate

from ....webhooks import DEFAULT_TYPES, MOST_WEBHOOKS, TYPES
from ....webhooks.addresses import MOST_URL
from ...fields import Text
from ...schemas import RequestSchema, ResponseSchema

URL_DESCRIPTION = (
    "Where deliveries go: an `https` URL whose host resolves to public addresses only (no loopback, "
    "private, link-local, shared, multicast or metadata address), checked now and at every delivery; "
    "in ASCII (the path and query percent-encoded, an internationalized host in its `xn--` form); "
    "else `422 webhook_url_refused`."
)


def notification_types(what: str) -> fields.List[str]:
    """The ``types`` a webhook or a push subscription takes: player-feed event types (the named enum
    ``NotificationType``), each once; absent (or null), :data:`DEFAULT_TYPES`, which the spec states
    as its default."""
    return fields.List(
        fields.String(
            validate=validate.OneOf(TYPES), metadata={"example": "your_turn", "enum_schema": "NotificationType"}
        ),
        validate=validate.Length(1, len(TYPES)),
        load_default=None,
        metadata={
            "description": f"The player-feed event types {what} (absent or null: "
            + ", ".join(f"`{name}`" for name in DEFAULT_TYPES)
            + ").",
            "default": list(DEFAULT_TYPES),
        },
    )


class NewWebhookSchema(RequestSchema):
    url = Text(
        required=True,
        validate=validate.Length(1, MOST_URL),
        metadata={"description": URL_DESCRIPTION, "example": "https://bots.example.com/coins"},
    )
    types = notification_types("to deliver")


class WebhookSchema(ResponseSchema):
    id = fields.String(required=True, metadata={"description": "The webhook's id: delete it with deleteWebhook."})
    url = fields.String(required=True, metadata={"example": "https://bots.example.com/coins"})
    types = fields.List(
        fields.String(metadata={"example": "your_turn", "enum_schema": "NotificationType"}), required=True
    )
    enabled = fields.Boolean(
        required=True,
        metadata={
            "description": "`false` once deliveries have failed for 3 days: nothing more is sent (delete it "
            "and create it again)."
        },
    )
    created_at = fields.DateTime(required=True)


class CreatedWebhookSchema(WebhookSchema):
    secret = fields.String(
        required=True,
        metadata={
            "description": "The signing secret (`whsec_` and base64), shown in this answer only: verify each "
            "delivery's `webhook-signature` with it, as the Standard Webhooks specification says.",
            "example": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        },
    )


class WebhookListSchema(ResponseSchema):
    items = fields.List(
        fields.Nested(WebhookSchema),
        required=True,
        metadata={"description": f"Your webhooks, oldest first (at most {MOST_WEBHOOKS})."},
    )
