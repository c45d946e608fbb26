"""Seats: open, taken by a person (who gets a token) or by a bot."""

from __future__ import annotations

from datetime import datetime

from ..store import StoredSeat
from .commands import NewPlayer
from .tokens import hash_token, new_token

__all__ = ["is_open", "take_seat"]


def is_open(seat: StoredSeat) -> bool:
    return seat.token_hash is None and seat.bot is None


def take_seat(seat: StoredSeat, player: NewPlayer, now: datetime) -> str | None:
    """Seat a person (returns their new token) or a bot (returns None)."""
    seat.name = player.display_name
    seat.age = player.age
    seat.joined_at = now
    if player.bot is not None:
        seat.bot = player.bot
        return None
    token = new_token()
    seat.token_hash = hash_token(token)
    return token
