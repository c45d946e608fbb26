"""The worker's Web Push deliveries: claimed as due work, encrypted, signed, sent, settled.

The machinery is the webhooks' (:mod:`service.webhooks.deliveries`): :meth:`PushDeliverer.deliver_due`
claims as many due deliveries as it has senders free (:data:`SENDERS` tries in flight at most; a
lease, :meth:`.PushDeliveries.claim`), sends them with no transaction open, each to the address the
:class:`.AddressPolicy` checked just before (:func:`.transport.post`: no redirect, bounded in time),
waits for them (the worker's thread ``patience`` seconds at most: a slower try stays in flight,
:mod:`service.webhooks.tries`), and settles the tries ended in one short transaction. A ``2xx`` is
delivered; ``404`` or ``410`` (the browser unsubscribed, or the subscription expired) removes the
subscription; anything else is tried again after the webhooks' :data:`.RETRY_DELAYS`, then given up.

A message is ``{"type", "game", "turn_deadline"}`` from the player's feed event, nothing more: it
passes through the browser maker's push service, and push services take some 4 KB at most. It is
encrypted for the subscription as RFC 8291 says (``aes128gcm``, by ``http_ece``, with a new
ephemeral key each time) and signed with the service's VAPID key (RFC 8292, by ``py-vapid``: a JWT
for the endpoint's origin, valid :data:`CLAIM_HOURS`, whose ``sub`` is ``VAPID_SUBJECT``).
"""

from __future__ import annotations

import json
import logging
import os
import ssl
import time
from collections.abc import Callable
from datetime import datetime
from urllib.parse import urlsplit

import http_ece
from cryptography.hazmat.primitives.asymmetric import ec

from ..store import ClaimedPush, PushDeliveries, PushOutcome, StoredPlayerEvent
from ..webhooks import AddressPolicy, SecretBox, WebhookUrlRefused
from ..webhooks.deliveries import BATCH, LEASE, RETRY_DELAYS
from ..webhooks.transport import SECONDS, post
from ..webhooks.tries import Tries
from .keys import VapidKeys, unb64url

__all__ = ["CLAIM_HOURS", "MESSAGE_FIELDS", "PushDeliverer", "message_of"]

log = logging.getLogger(__name__)

SENDERS = 8
CLAIM_HOURS = 12  # a VAPID JWT's life (RFC 8292: at most 24 hours)
TTL_SECONDS = 24 * 3600  # how long a push service keeps a message for a browser that is away
MESSAGE_FIELDS = ("type", "game", "turn_deadline")

#: A stored player event -> its JSON, as the player's feed renders it.
Render = Callable[[StoredPlayerEvent], str]


def message_of(rendered: str) -> bytes:
    """The push message of a feed event's JSON: its type, game and turn deadline only (never a card)."""
    event = json.loads(rendered)
    return json.dumps({name: event.get(name) for name in MESSAGE_FIELDS}, separators=(",", ":")).encode()


class PushDeliverer:
    """Sends what push subscriptions are owed (see the module's docstring)."""

    def __init__(
        self,
        deliveries: PushDeliveries,
        policy: AddressPolicy,
        box: SecretBox,
        keys: VapidKeys,
        subject: str,
        render: Render,
        context: ssl.SSLContext,
        *,
        seconds: float = SECONDS,
    ) -> None:
        self._deliveries = deliveries
        self.policy = policy
        self._box = box
        self._keys = keys
        self._subject = subject
        self._render = render
        self._context = context
        self._seconds = seconds
        self._tries: Tries[ClaimedPush, int | None] = Tries(self._send, senders=SENDERS, name="push")

    def deliver_due(self, now: datetime, patience: float | None = None) -> int:
        """As the webhooks' :meth:`.Deliverer.deliver_due`: send the deliveries due at ``now``, as
        many as senders are free, wait for their tries ``patience`` seconds at most (None: until each
        has ended), and write the outcomes of every try ended. How many were claimed."""
        free = self._tries.free
        claimed = self._deliveries.claim(now, limit=min(BATCH, free), lease=LEASE) if free > 0 else []
        self._tries.run(claimed, patience)
        settled = [_outcome(push, status, now) for push, status in self._tries.ended()]
        if settled:
            self._deliveries.settle(settled)
        return len(claimed)

    def _send(self, push: ClaimedPush) -> int | None:
        """Try ``push`` once: the answer's status, None (no answer, or refused before sending), 0 (nothing to send)."""
        if push.event is None:
            return 0
        subscription = push.subscription
        try:
            target = self.policy.target(subscription.endpoint)
            body = http_ece.encrypt(
                message_of(self._render(push.event)),
                salt=os.urandom(16),
                private_key=ec.generate_private_key(ec.SECP256R1()),  # ephemeral: one per message
                dh=unb64url(subscription.p256dh),
                auth_secret=unb64url(self._box.open(subscription.auth)),
                version="aes128gcm",
            )
            headers = {
                **self._authorization(subscription.endpoint),
                "Content-Type": "application/octet-stream",
                "Content-Encoding": "aes128gcm",
                "TTL": str(TTL_SECONDS),
                "Urgency": "high" if push.event.type == "your_turn" else "normal",
            }
            return post(target, body, headers, self._context, self._seconds)
        except WebhookUrlRefused as refused:
            log.warning("push subscription %s refused at delivery: %s", subscription.id, refused)
        except Exception as error:  # no answer: a timeout, TLS, a reset, a malformed answer
            log.info("push subscription %s delivery failed: %s", subscription.id, type(error).__name__)
        return None

    def _authorization(self, endpoint: str) -> dict[str, str]:
        """RFC 8292's ``Authorization: vapid t=<JWT>, k=<public key>`` for the endpoint's origin."""
        parts = urlsplit(endpoint)
        claims = {"aud": f"{parts.scheme}://{parts.netloc}", "exp": int(time.time()) + CLAIM_HOURS * 3600}
        claims["sub"] = self._subject
        return {"Authorization": self._keys.vapid.sign(claims)["Authorization"]}


def _outcome(push: ClaimedPush, status: int | None, now: datetime) -> PushOutcome:
    """What a try's answer means for its delivery (``status``: None for none, 0 for nothing to send)."""
    subscription_id = push.subscription.id
    if status == 0:
        return PushOutcome("dropped", push.id, subscription_id)
    if status is not None and 200 <= status < 300:
        return PushOutcome("delivered", push.id, subscription_id)
    if status in (404, 410):
        log.info("push subscription %s answered %s: removed", subscription_id, status)
        return PushOutcome("gone", push.id, subscription_id)
    retry_at = now + RETRY_DELAYS[push.attempts] if push.attempts < len(RETRY_DELAYS) else None
    return PushOutcome("failed", push.id, subscription_id, retry_at)
