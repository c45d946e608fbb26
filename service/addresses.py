"""Client addresses as the service keeps them: a keyed hash, never the address itself.

The ratings count rated games between players of one address less (:mod:`service.ratings.fairness`),
so a seat, a quick-play ticket and a new player keep where their request came from, as
``HMAC-SHA256(key, address)`` cut to 128 bits (:func:`address_hash`): equal for one address, and
without the key no way back to it (an IPv4 address could be found from an unkeyed hash by trying all
four billion). An IPv6 client is hashed by its /64 network, which one host or home usually holds
whole (an address within it is free to change). The key is ``ADDRESS_HASH_KEY``, else one the service
made and keeps in its database (``service_secrets``): docs/security.md says to set it in production.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
from collections.abc import Callable

__all__ = ["AddressHasher", "address_hash"]

log = logging.getLogger(__name__)

HEX_DIGITS = 32  # 128 bits
IPV6_NETWORK = 64


def address_hash(address: str | None, key: bytes) -> str | None:
    """The keyed hash of a client address (None for none, or for one that is not an IP address)."""
    if not address:
        return None
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return None
    if isinstance(parsed, ipaddress.IPv6Address):
        mapped = parsed.ipv4_mapped
        kept = str(mapped) if mapped is not None else str(ipaddress.IPv6Network((parsed, IPV6_NETWORK), strict=False))
    else:
        kept = str(parsed)
    return hmac.new(key, kept.encode(), hashlib.sha256).hexdigest()[:HEX_DIGITS]


class AddressHasher:
    """:func:`address_hash` with the service's key, read once (from ``key``, a callable: the setting,
    or the database's stand-in, which may not be reachable when the process starts)."""

    def __init__(self, key: Callable[[], bytes]) -> None:
        self._key = key
        self._cached: bytes | None = None

    def __call__(self, address: str | None) -> str | None:
        if not address:
            return None
        return address_hash(address, self._read())

    def warm(self) -> bool:
        """Read the key now, if it is not yet (``create_app`` calls it before each request until it
        has): before a request's own transaction begins, which on SQLite holds the one write lock
        that making the database's stand-in key would wait for. A failure waits for the next try.
        Whether the key is in hand."""
        if self._cached is None:
            try:
                self._read()
            except Exception as error:  # the database is down: the request that needs a hash answers 503
                log.warning("the key of the addresses' hashes is not readable yet: %s", type(error).__name__)
        return self._cached is not None

    def _read(self) -> bytes:
        if self._cached is None:
            self._cached = self._key()
        return self._cached
