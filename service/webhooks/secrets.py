"""Webhook signing secrets: made, shown once, kept encrypted, read back only to sign.

A secret is ``whsec_`` and 32 random bytes in base64, as the Standard Webhooks specification writes
them. It must be read back to sign every delivery, so it is encrypted, never hashed: Fernet
(``cryptography``: AES-128-CBC with HMAC-SHA256, authenticated) under a key from the configuration
(``WEBHOOK_SECRETS_KEY``, a Fernet key), or, when none is set (the one-command SQLite run), one the
service makes once and keeps in its database (docs/security.md says what each protects against).
Neither the secret nor its key is ever logged or put in an error.
"""

from __future__ import annotations

import base64
import logging
import secrets
from collections.abc import Callable

from cryptography.fernet import Fernet, InvalidToken

__all__ = ["SECRET_PREFIX", "SecretBox", "fernet_key_from_hex", "new_secret"]

log = logging.getLogger(__name__)

SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32


def new_secret() -> str:
    """A new signing secret, as the receiver is shown it (once)."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode("ascii")


def fernet_key_from_hex(hex_key: str) -> bytes:
    """A Fernet key from 32 bytes written in hex (the database's kept secret)."""
    return base64.urlsafe_b64encode(bytes.fromhex(hex_key)[:32])


class SecretBox:
    """Encrypts secrets for storage and decrypts them to sign, under a key read at first use."""

    def __init__(self, key: Callable[[], bytes]) -> None:
        self._key = key
        self._fernet: Fernet | None = None

    def seal(self, secret: str) -> str:
        """The ciphertext kept in place of ``secret``."""
        return self._box().encrypt(secret.encode("ascii")).decode("ascii")

    def open(self, sealed: str) -> str:
        """The secret ``sealed`` holds (ValueError, naming no secret, if the key is not the one it was sealed with)."""
        try:
            return self._box().decrypt(sealed.encode("ascii")).decode("ascii")
        except InvalidToken:
            raise ValueError("a webhook secret does not open with the configured key") from None

    def warm(self) -> bool:
        """Read the key now (``create_app`` calls it before each request until it has): a key the
        service makes is then made before any request's transaction begins, never inside one (on
        SQLite a keyed request holds the write lock that making it needs). A failure (the database
        is down) waits for the next try. Whether the key is in hand."""
        if self._fernet is None:
            try:
                self._box()
            except Exception as error:
                log.warning("the key of the webhooks' secrets is not readable yet: %s", type(error).__name__)
        return self._fernet is not None

    def _box(self) -> Fernet:
        if self._fernet is None:
            self._fernet = Fernet(self._key())
        return self._fernet
