"""Webhooks (contract 1.3, "Notifications"): a player's signed deliveries of their feed events.

:class:`WebhookService` (the player's requests: make, list, delete), :class:`Deliverer` (the
worker's due work: sign and send), :class:`AddressPolicy` (where a webhook may point: the SSRF
rule, checked when made and at every delivery), :class:`SecretBox` (the secrets, encrypted at rest).
See docs/security.md.
"""

from .addresses import AddressPolicy, Resolver, Target, WebhookUrlRefused, system_resolver
from .deliveries import Deliverer, signed_headers
from .secrets import SecretBox, fernet_key_from_hex, new_secret
from .service import DEFAULT_TYPES, MOST_WEBHOOKS, TYPES, TooManyWebhooks, Webhook, WebhookNotFound, WebhookService
from .transport import tls_context

__all__ = [
    "DEFAULT_TYPES",
    "MOST_WEBHOOKS",
    "TYPES",
    "AddressPolicy",
    "Deliverer",
    "Resolver",
    "SecretBox",
    "Target",
    "TooManyWebhooks",
    "Webhook",
    "WebhookNotFound",
    "WebhookService",
    "WebhookUrlRefused",
    "fernet_key_from_hex",
    "new_secret",
    "signed_headers",
    "system_resolver",
    "tls_context",
]
