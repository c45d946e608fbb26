"""A player's webhooks as use cases: make one (its secret shown once), list them, delete one.

Every URL is checked by the :class:`.AddressPolicy` before anything is written (a refused request
stores nothing), and a player has at most :data:`MOST_WEBHOOKS`. The secret is sealed
(:class:`.SecretBox`) before it is stored; the answer carries it in clear, once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from ..games.errors import ServiceError
from ..games.ids import is_game_id, new_game_id
from ..games.tokens import keyed_player
from ..store import StoredWebhook
from ..work import UnitOfWork, given_or_own
from .addresses import AddressPolicy
from .secrets import SecretBox, new_secret

__all__ = [
    "DEFAULT_TYPES",
    "MOST_WEBHOOKS",
    "TYPES",
    "TooManyWebhooks",
    "Webhook",
    "WebhookNotFound",
    "WebhookService",
]

MOST_WEBHOOKS = 10
#: The player-feed types a webhook may take, and those it takes when the request names none.
DEFAULT_TYPES = ("your_turn", "match_found", "challenge_received", "rematch_offered", "game_result")
TYPES = (*DEFAULT_TYPES, "game_started", "game_cancelled")  # every player-feed type but the `player` state


class TooManyWebhooks(ServiceError):
    code = "too_many_webhooks"


class WebhookNotFound(ServiceError):
    """No such webhook of the caller's (another player's is not told apart)."""

    code = "webhook_not_found"


@dataclass(frozen=True, slots=True)
class Webhook:
    """A webhook as the caller sees it; ``secret`` only in the answer that made it."""

    id: str
    url: str
    types: tuple[str, ...]
    enabled: bool
    created_at: datetime
    secret: str | None = None


class WebhookService:
    """The players' webhooks (see the module's docstring)."""

    def __init__(
        self,
        unit_of_work: Callable[[], UnitOfWork],
        clock: Callable[[], datetime],
        policy: AddressPolicy,
        box: SecretBox,
    ) -> None:
        self._unit_of_work = unit_of_work
        self._clock = clock
        self.policy = policy
        self._box = box

    def create(
        self, key: str | None, url: str, types: Sequence[str] | None, *, uow: UnitOfWork | None = None
    ) -> Webhook:
        """A new webhook of the key's player, with its secret (shown here only)."""
        with given_or_own(uow, self._unit_of_work) as work, work.session() as session:
            player = keyed_player(session, key)
            self.policy.target(url)  # WebhookUrlRefused: nothing is written
            secret = new_secret()
            stored = StoredWebhook(
                id=new_game_id(),
                player_id=player.id,
                url=url,
                types=tuple(dict.fromkeys(types)) if types else DEFAULT_TYPES,
                secret=self._box.seal(secret),
                enabled=True,
                created_at=self._clock(),
            )
            if not session.webhooks.add(stored, most=MOST_WEBHOOKS):
                raise TooManyWebhooks(f"you have {MOST_WEBHOOKS} webhooks already: delete one first")
        return _shown(stored, secret)

    def list(self, key: str | None) -> list[Webhook]:
        """The key's player's webhooks, oldest first (no secret)."""
        with given_or_own(None, self._unit_of_work) as work, work.session() as session:
            player = keyed_player(session, key)
            return [_shown(stored) for stored in session.webhooks.of(player.id)]

    def delete(self, key: str | None, webhook_id: str) -> None:
        """Delete the key's player's webhook ``webhook_id`` and the deliveries it is owed."""
        with given_or_own(None, self._unit_of_work) as work, work.session() as session:
            player = keyed_player(session, key)
            if not is_game_id(webhook_id) or not session.webhooks.remove(player.id, webhook_id):
                raise WebhookNotFound(f"you have no webhook {webhook_id!r}")


def _shown(stored: StoredWebhook, secret: str | None = None) -> Webhook:
    return Webhook(stored.id, stored.url, stored.types, stored.enabled, stored.created_at, secret)
