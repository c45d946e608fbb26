"""Seat tokens and player keys: made once, stored only as a hash, checked in constant time.

A seat token acts for one seat of one game. A player key (``cpk_`` and 256 random bits) acts for
its player in every game: for the seat of a game whose ``player_id`` is the key's player, which
the game's load reads in the same statement (:attr:`.StoredGame.caller`). The prefix only tells
which lookup to make; nothing is read out of a key, and every check reads the stored hash.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from ..store import StoredGame, StoredPlayer, StoreSession
from ..work import UnitOfWork
from .commands import NewPlayer
from .errors import InvalidKey, InvalidToken, MissingToken, NotYourSeat

__all__ = [
    "PLAYER_KEY_PREFIX",
    "authenticate",
    "caller_player",
    "hash_token",
    "is_player_key",
    "keyed_player",
    "new_player_key",
    "new_token",
    "player_key_hash",
    "reader_seat",
    "rematch_token",
]

PLAYER_KEY_PREFIX = "cpk_"


def new_token() -> str:
    """256 random bits, URL-safe: shown to the seat's player once, never stored."""
    return secrets.token_urlsafe(32)


def new_player_key() -> str:
    """A player's key: ``cpk_`` then 256 random bits, URL-safe; shown once, never stored."""
    return PLAYER_KEY_PREFIX + secrets.token_urlsafe(32)


def is_player_key(token: str | None) -> bool:
    return token is not None and token.startswith(PLAYER_KEY_PREFIX)


def player_key_hash(token: str | None) -> str | None:
    """The stored form of a player's key, for the lookup of its player; None for anything else."""
    return hash_token(token) if token is not None and is_player_key(token) else None


def rematch_token(token: str, rematch_id: str) -> str:
    """The token of a seat at the rematch ``rematch_id``, for the holder of ``token``, the seat's
    token at the finished game: HMAC-SHA256 keyed by that token, so the same on every call (a
    retry gets the token it lost, and no second token is ever valid), known only to whoever holds
    the old token, and telling nothing about it. 256 bits, URL-safe like :func:`new_token`'s."""
    digest = hmac.new(token.encode(), f"coins-rematch/{rematch_id}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def hash_token(token: str) -> str:
    """Tokens and keys carry 256 random bits, so a plain SHA-256 is a safe stored form."""
    return hashlib.sha256(token.encode()).hexdigest()


def authenticate(stored: StoredGame, token: str | None) -> int:
    """The seat this token or key acts for. Every seat's token hash is compared, in constant
    time; a player's key acts for the seat its player holds (not one they left to a bot)."""
    seat = reader_seat(stored, token)
    if seat is None:
        raise NotYourSeat("the player holds no seat of this game")
    return seat


def reader_seat(stored: StoredGame, token: str | None) -> int | None:
    """:func:`authenticate`, but None for a valid player key whose player holds no seat here (a
    player watching another's game)."""
    if not token:
        raise MissingToken("send the seat's token or your player key as 'Authorization: Bearer <token>'")
    digest = hash_token(token)
    seat = None
    for candidate in stored.seats:
        if candidate.token_hash is not None and hmac.compare_digest(candidate.token_hash, digest):
            seat = candidate.seat
    if seat is not None:
        return seat
    if not is_player_key(token):
        raise InvalidToken("the token is not one of this game's seats")
    if stored.caller_key != digest:  # a bug: the game was loaded without the key's lookup
        raise RuntimeError("a player key checked against a game loaded without its player")
    if stored.caller is None:
        raise InvalidKey("the player key is not valid: no player has it (was it replaced?)")
    held = [s.seat for s in stored.seats if s.player_id == stored.caller and s.bot is None]
    return held[0] if held else None


def caller_player(uow: UnitOfWork, key: str | None) -> NewPlayer:
    """The player whose key the request carries, as a seat's new player (their profile's name)."""
    with uow.session() as session:
        player = keyed_player(session, key)
    return NewPlayer(name=player.name, player_id=player.id, barred=player.barred)


def keyed_player(session: StoreSession, key: str | None) -> StoredPlayer:
    """The player whose key this is, read now: :class:`.MissingToken` without a key,
    :class:`.InvalidKey` when no player has it."""
    if not key:
        raise MissingToken("send your player key as 'Authorization: Bearer <key>'")
    key_hash = player_key_hash(key)
    player = session.player_by_key(key_hash) if key_hash is not None else None
    if player is None:
        raise InvalidKey("the player key is not valid: no player has it (was it replaced?)")
    return player
