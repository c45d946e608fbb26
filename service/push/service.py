"""A player's Web Push subscriptions as use cases: add one, delete one; and the public VAPID key.

A subscription is what a browser's ``PushSubscription.toJSON()`` gives: the push service's
``endpoint`` (an ``https`` URL, under the webhooks' address rule: :class:`.AddressPolicy`, checked
here and again at every delivery), and its ``keys``: ``p256dh``, the browser's P-256 public key, and
``auth``, its 16-byte secret (RFC 8291). Everything is checked before anything is written (a refused
request stores nothing); ``auth`` is sealed (:class:`.SecretBox`) before it is stored. A player has
at most :data:`MOST_SUBSCRIPTIONS`; the same endpoint again replaces its subscription.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from cryptography.hazmat.primitives.asymmetric import ec

from ..games.errors import ServiceError
from ..games.ids import is_game_id, new_game_id
from ..games.tokens import keyed_player
from ..store import StoredPushSubscription
from ..webhooks import DEFAULT_TYPES, AddressPolicy, SecretBox, WebhookUrlRefused
from ..work import UnitOfWork, given_or_own
from .keys import VapidKeys, unb64url

__all__ = [
    "MOST_SUBSCRIPTIONS",
    "PushEndpointRefused",
    "PushService",
    "PushSubscription",
    "PushSubscriptionInvalid",
    "PushSubscriptionNotFound",
    "TooManyPushSubscriptions",
]

MOST_SUBSCRIPTIONS = 20
AUTH_BYTES = 16  # RFC 8291: the authentication secret
POINT_BYTES = 65  # an uncompressed P-256 point


class PushEndpointRefused(ServiceError):
    """The endpoint is not one a delivery may go to (the webhooks' rule)."""

    code = "push_endpoint_refused"


class PushSubscriptionInvalid(ServiceError):
    """The subscription's keys are not a P-256 public key and a 16-byte secret in base64url."""

    code = "push_subscription_invalid"


class TooManyPushSubscriptions(ServiceError):
    code = "too_many_push_subscriptions"


class PushSubscriptionNotFound(ServiceError):
    """No such subscription of the caller's (another player's is not told apart)."""

    code = "push_subscription_not_found"


@dataclass(frozen=True, slots=True)
class PushSubscription:
    """A subscription as the caller sees it (never its keys)."""

    id: str
    types: tuple[str, ...]
    created_at: datetime


class PushService:
    """The players' push subscriptions (see the module's docstring)."""

    def __init__(
        self,
        unit_of_work: Callable[[], UnitOfWork],
        clock: Callable[[], datetime],
        policy: AddressPolicy,
        box: SecretBox,
        keys: VapidKeys,
    ) -> None:
        self._unit_of_work = unit_of_work
        self._clock = clock
        self.policy = policy
        self._box = box
        self.keys = keys

    def public_key(self) -> str:
        """The VAPID public key browsers subscribe with (``applicationServerKey``)."""
        return self.keys.public_key

    def create(
        self,
        key: str | None,
        endpoint: str,
        p256dh: str,
        auth: str,
        types: Sequence[str] | None,
        *,
        uow: UnitOfWork | None = None,
    ) -> PushSubscription:
        """A new subscription of the key's player (in place of theirs of the same endpoint)."""
        with given_or_own(uow, self._unit_of_work) as work, work.session() as session:
            player = keyed_player(session, key)
            check_keys(p256dh, auth)
            try:
                self.policy.target(endpoint)
            except WebhookUrlRefused as refused:
                raise PushEndpointRefused(str(refused)) from None
            stored = StoredPushSubscription(
                id=new_game_id(),
                player_id=player.id,
                endpoint=endpoint,
                p256dh=p256dh,
                auth=self._box.seal(auth),
                types=tuple(dict.fromkeys(types)) if types else DEFAULT_TYPES,
                created_at=self._clock(),
            )
            if session.push_subscriptions.add(stored, most=MOST_SUBSCRIPTIONS) is None:
                raise TooManyPushSubscriptions(
                    f"you have {MOST_SUBSCRIPTIONS} push subscriptions already: delete one first"
                )
        return PushSubscription(stored.id, stored.types, stored.created_at)

    def delete(self, key: str | None, subscription_id: str) -> None:
        """Delete the key's player's subscription ``subscription_id`` and what it is owed."""
        with given_or_own(None, self._unit_of_work) as work, work.session() as session:
            player = keyed_player(session, key)
            if not is_game_id(subscription_id) or not session.push_subscriptions.remove(player.id, subscription_id):
                raise PushSubscriptionNotFound(f"you have no push subscription {subscription_id!r}")


def check_keys(p256dh: str, auth: str) -> None:
    """:class:`PushSubscriptionInvalid` unless ``p256dh`` is a P-256 public key (an uncompressed
    point) and ``auth`` 16 bytes, both in base64url."""
    try:
        point = unb64url(p256dh)
        secret = unb64url(auth)
    except ValueError:
        raise PushSubscriptionInvalid("the subscription's keys must be base64url") from None
    if len(secret) != AUTH_BYTES:
        raise PushSubscriptionInvalid(f"keys.auth must be {AUTH_BYTES} bytes")
    if len(point) != POINT_BYTES or point[0] != 4:
        raise PushSubscriptionInvalid("keys.p256dh must be an uncompressed P-256 point (65 bytes)")
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise PushSubscriptionInvalid("keys.p256dh is not a point of P-256") from None
