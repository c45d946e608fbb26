"""The service's VAPID key pair (RFC 8292): the one push services know its messages by.

From the configuration (``VAPID_PRIVATE_KEY``: the private key's 32 bytes in base64url, as the usual
generators write it), or, when none is set, one the service makes once and keeps in its database:
the secret ``vapid_private_key`` (:func:`service.store.secrets.service_secret`, an insert that keeps
an existing row, so that every process and instance starting at once ends up with the same key).
The private key never leaves the process: not logged, not in an error, not in an answer; the public
key is the ``applicationServerKey`` browsers subscribe with (``GET /v1/push/key``).
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02

__all__ = ["VapidKeys", "b64url", "private_from_raw", "private_from_seed", "unb64url"]

log = logging.getLogger(__name__)

# The order of P-256's group: a private key is a number from 1 to ORDER - 1.
ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


_FROM_URL = str.maketrans("-_", "+/")


def b64url(data: bytes) -> str:
    """``data`` in base64url without padding (as Web Push writes keys)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    """The bytes of base64url ``text``, padded or not (ValueError if it is not base64url)."""
    text = text.rstrip("=")
    if not text.isascii() or any(c in text for c in "+/="):
        raise ValueError("not base64url")
    return base64.b64decode(text.translate(_FROM_URL) + "=" * (-len(text) % 4), validate=True)


def private_from_raw(raw: str) -> ec.EllipticCurvePrivateKey:
    """The private key written as its 32 bytes in base64url (ValueError otherwise)."""
    value = int.from_bytes(unb64url(raw), "big")
    if len(unb64url(raw)) != 32 or not 0 < value < ORDER:
        raise ValueError("a VAPID private key is 32 bytes in base64url, a number below P-256's order")
    return ec.derive_private_key(value, ec.SECP256R1())


def private_from_seed(hex_seed: str) -> ec.EllipticCurvePrivateKey:
    """A private key from 256 random bits in hex (the database's kept secret), in range."""
    return ec.derive_private_key(int(hex_seed, 16) % (ORDER - 1) + 1, ec.SECP256R1())


class VapidKeys:
    """The key pair, read at first use (see the module's docstring)."""

    def __init__(self, private_key: Callable[[], ec.EllipticCurvePrivateKey]) -> None:
        self._private_key = private_key
        self._vapid: Vapid02 | None = None

    @property
    def vapid(self) -> Vapid02:
        """py-vapid's signer over the key (RFC 8292 ``Authorization: vapid t=…, k=…``)."""
        if self._vapid is None:
            self._vapid = Vapid02(private_key=self._private_key())
        return self._vapid

    @property
    def public_key(self) -> str:
        """The public key as an uncompressed P-256 point in base64url: the ``applicationServerKey``."""
        point = self.vapid.public_key.public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64url(point)

    def warm(self) -> bool:
        """Read the key now (``create_app`` calls it before each request until it has), so that a key
        the service makes is made before any request's transaction begins (as the webhooks' key:
        :meth:`.SecretBox.warm`). Whether the key is in hand."""
        if self._vapid is None:
            try:
                _ = self.vapid
            except Exception as error:
                log.warning("the VAPID key is not readable yet: %s", type(error).__name__)
        return self._vapid is not None
