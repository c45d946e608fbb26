"""Seat tokens: made once when a seat is taken, stored only as a hash, checked in constant time."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Sequence

from ..store import StoredSeat
from .errors import InvalidToken, MissingToken

__all__ = ["authenticate", "hash_token", "new_token", "rematch_token"]


def new_token() -> str:
    """256 random bits, URL-safe: shown to the seat's player once, never stored."""
    return secrets.token_urlsafe(32)


def rematch_token(token: str, rematch_id: str) -> str:
    """The token of a seat at the rematch ``rematch_id``, for the holder of ``token``, the seat's
    token at the finished game: HMAC-SHA256 keyed by that token, so the same on every call (a
    retry gets the token it lost, and no second token is ever valid), known only to whoever holds
    the old token, and telling nothing about it. 256 bits, URL-safe like :func:`new_token`'s."""
    digest = hmac.new(token.encode(), f"coins-rematch/{rematch_id}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def hash_token(token: str) -> str:
    """Tokens carry 256 random bits, so a plain SHA-256 is a safe stored form."""
    return hashlib.sha256(token.encode()).hexdigest()


def authenticate(seats: Sequence[StoredSeat], token: str | None) -> int:
    """The seat whose token this is. Every seat's hash is compared, in constant time."""
    if not token:
        raise MissingToken("send the seat's token as 'Authorization: Bearer <token>'")
    digest = hash_token(token)
    seat = None
    for candidate in seats:
        if candidate.token_hash is not None and hmac.compare_digest(candidate.token_hash, digest):
            seat = candidate.seat
    if seat is None:
        raise InvalidToken("the token is not one of this game's seats")
    return seat
