"""Seats: open, taken by a person (who gets a token) or by a bot; and whether the server acts next."""

from __future__ import annotations

from datetime import datetime

from ..engine import Game, Status
from ..store import StoredGame, StoredSeat
from .commands import NewPlayer
from .tokens import hash_token, new_token

__all__ = ["is_open", "name_bots_apart", "owes_server_move", "take_seat"]

BOT_LETTERS = "ABC"


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


def name_bots_apart(seated: list[tuple[StoredSeat, NewPlayer]]) -> None:
    """Bots of one strength given no name are told apart by a letter: "Expert bot A", "Expert bot B"."""
    unnamed = [seat for seat, player in seated if player.bot is not None and not player.name]
    for strength in {seat.bot for seat in unnamed}:
        alike = [seat for seat in unnamed if seat.bot == strength]
        if len(alike) > 1:
            for letter, seat in zip(BOT_LETTERS, alike, strict=False):
                seat.name = f"{seat.name} {letter}"


def owes_server_move(stored: StoredGame, game: Game) -> bool:
    """Whether the next move is the server's: a bot seat's turn, or an auto-deal."""
    if game.turn is None:  # finished
        return False
    return stored.seats[game.turn].bot is not None or (game.status is Status.WAITING_FOR_DEAL and stored.auto_deal)
