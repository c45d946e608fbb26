"""The worker's deliveries to webhooks: claimed as due work, signed, sent, rescheduled.

Each call of :meth:`Deliverer.deliver_due` claims as many due deliveries as it has senders free (a
short transaction, :meth:`.WebhookDeliveries.claim`; :data:`SENDERS` tries in flight at most, on the
deliverer's own threads, kept from call to call), sends them with no transaction open, over
kept-alive connections (:class:`.transport.Connections`), waits for their tries, and writes the
outcomes of every try that has ended in one short transaction. The worker's thread waits a
try ``patience`` seconds at most: a slower one (a receiver that answers late, or not at all until
the try's time is up) keeps its sender, and its outcome is written by a later call, so that it
holds up no other player's deliveries. The outcomes:

- a 2xx: delivered (the row goes, the webhook is not failing any more, and what it still owes after
  failed tries is due at once: its receiver answers again);
- a ``410 Gone``: the webhook is removed, with all it is owed;
- anything else (another status, no answer in time, a refused address, a certificate that does not
  verify): tried again after the next of :data:`RETRY_DELAYS` (5 s, 30 s, 2 min, 10 min, 1 h, then
  every few hours: the last try comes more than 24 hours after the first), then given up; a webhook
  failing for :data:`DISABLE_AFTER` (3 days) without a success in between is disabled.

Every try checks the URL again (:meth:`.AddressPolicy.target`: a name whose answer changed to a
private address is refused then) and connects to the address it checked (:mod:`.transport`). The
body is the feed event's JSON as the player's feed gives it; the headers are the Standard Webhooks
specification's (``webhook-id``: the same for every try of one event to one webhook,
``webhook-timestamp``: the try's time, ``webhook-signature``: ``v1,`` and the HMAC-SHA256 in base64,
made by the ``standardwebhooks`` package).
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from standardwebhooks import Webhook as Signer

from ..store import DELIVERED, DROPPED, FAILED, GONE, ClaimedDelivery, Outcome, StoredPlayerEvent, WebhookDeliveries
from .addresses import AddressPolicy, WebhookUrlRefused
from .secrets import SecretBox
from .transport import SECONDS, Connections
from .tries import Tries

__all__ = ["BATCH", "DISABLE_AFTER", "LEASE", "RETRY_DELAYS", "Deliverer", "signed_headers"]

log = logging.getLogger(__name__)

BATCH = 64  # deliveries one claim takes at most
SENDERS = 64  # tries in flight at most: a try mostly waits for its receiver's answer
LEASE = timedelta(seconds=4 * SECONDS)  # a claimed delivery is left alone this long (longer than its try)
RETRY_DELAYS = tuple(
    timedelta(seconds=seconds) for seconds in (5, 30, 120, 600, 3600, 2 * 3600, 4 * 3600, 6 * 3600, 6 * 3600, 6 * 3600)
)  # after each failed try; in all some 25 hours from the first try to the last
DISABLE_AFTER = timedelta(days=3)

#: A stored player event -> its JSON, as the player's feed renders it.
Render = Callable[[StoredPlayerEvent], str]


def signed_headers(secret: str, message_id: str, sent_at: datetime, body: str) -> dict[str, str]:
    """The Standard Webhooks headers of ``body`` signed with ``secret`` (``whsec_…``) at ``sent_at``."""
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(int(sent_at.timestamp())),
        "webhook-signature": Signer(secret).sign(message_id, sent_at, body),
    }


class Deliverer:
    """Sends what webhooks are owed (see the module's docstring)."""

    def __init__(
        self,
        deliveries: WebhookDeliveries,
        policy: AddressPolicy,
        box: SecretBox,
        render: Render,
        context: ssl.SSLContext,
        *,
        seconds: float = SECONDS,
    ) -> None:
        self._deliveries = deliveries
        self.policy = policy
        self._box = box
        self._render = render
        self._connections = Connections(context)
        self._seconds = seconds
        self._tries: Tries[ClaimedDelivery, int | None] = Tries(self._send, senders=SENDERS, name="webhook")

    def deliver_due(self, now: datetime, patience: float | None = None) -> int:
        """Send deliveries due at ``now``, as many as senders are free, and wait for their tries,
        ``patience`` seconds at most (None: until each has ended); write the outcomes of every try
        ended, this call's and those earlier calls left running (:mod:`.tries`). How many were
        claimed. One caller at a time (the worker's deliveries thread, or its pass)."""
        free = self._tries.free
        claimed = self._deliveries.claim(now, limit=min(BATCH, free), lease=LEASE) if free > 0 else []
        self._tries.run(claimed, patience)
        settled = [_outcome(delivery, status, now) for delivery, status in self._tries.ended()]
        if settled:
            for webhook_id in self._deliveries.settle(settled, now, disable_after=DISABLE_AFTER):
                log.info("webhook %s failing for %s: disabled", webhook_id, DISABLE_AFTER)
        return len(claimed)

    @property
    def in_flight(self) -> int:
        """Tries still running that an earlier call started (their outcomes are written by a later one)."""
        return len(self._tries)

    def _send(self, delivery: ClaimedDelivery) -> int | None:
        """Try ``delivery`` once: the answer's status, or None (no answer, or refused before sending)."""
        if delivery.event is None:
            return 0
        try:
            target = self.policy.target(delivery.url)
            body = self._render(delivery.event)
            message_id = f"msg_{delivery.webhook_id}_{delivery.event.id}"
            headers = signed_headers(self._box.open(delivery.secret), message_id, datetime.now(UTC), body)
            return self._connections.post(target, body.encode(), headers, self._seconds)
        except WebhookUrlRefused as refused:
            log.warning("webhook %s refused at delivery: %s", delivery.webhook_id, refused)
        except Exception as error:  # no answer: a timeout, TLS, a reset, a malformed answer
            log.info("webhook %s delivery failed: %s", delivery.webhook_id, type(error).__name__)
        return None


def _outcome(delivery: ClaimedDelivery, status: int | None, now: datetime) -> Outcome:
    """What a try's answer (``status``: None for none, 0 for nothing to send) means for its delivery."""
    if status == 0:
        return Outcome(DROPPED, delivery.id, delivery.webhook_id)
    if status is not None and 200 <= status < 300:
        return Outcome(DELIVERED, delivery.id, delivery.webhook_id)
    if status == 410:
        log.info("webhook %s answered 410: removed", delivery.webhook_id)
        return Outcome(GONE, delivery.id, delivery.webhook_id)
    attempt = delivery.attempts
    retry_at = now + RETRY_DELAYS[attempt] if attempt < len(RETRY_DELAYS) else None
    return Outcome(FAILED, delivery.id, delivery.webhook_id, retry_at)
