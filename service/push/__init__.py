"""Web Push (contract 1.3, "Notifications"): a player's feed events as push messages to their browsers.

:class:`PushService` (the player's requests: subscribe, unsubscribe; the public key),
:class:`PushDeliverer` (the worker's due work: encrypt, sign, send), :class:`VapidKeys` (the
service's VAPID key pair). Built on the webhooks' parts: their address rule, their secrets' box,
their transport and retries. See docs/security.md.
"""

from .deliveries import MESSAGE_FIELDS, PushDeliverer, message_of
from .keys import VapidKeys, b64url, private_from_raw, private_from_seed, unb64url
from .service import (
    MOST_SUBSCRIPTIONS,
    PushEndpointRefused,
    PushService,
    PushSubscription,
    PushSubscriptionInvalid,
    PushSubscriptionNotFound,
    TooManyPushSubscriptions,
)

__all__ = [
    "MESSAGE_FIELDS",
    "MOST_SUBSCRIPTIONS",
    "PushDeliverer",
    "PushEndpointRefused",
    "PushService",
    "PushSubscription",
    "PushSubscriptionInvalid",
    "PushSubscriptionNotFound",
    "TooManyPushSubscriptions",
    "VapidKeys",
    "b64url",
    "message_of",
    "private_from_raw",
    "private_from_seed",
    "unb64url",
]
