"""Seats: open, taken by a person (an anonymous one gets a token, a player acts with their key) or by
a bot; and whether the server acts next."""

from __future__ import annotations

from datetime import datetime

from ..engine import Game, Status
from ..store import StoredGame, StoredSeat
from .commands import NewPlayer
from .ids import BOT_PLAYER_IDS
from .tokens import hash_token, new_token

__all__ = [
    "has_left",
    "is_open",
    "is_person",
    "is_reserved",
    "is_vacant",
    "name_bots_apart",
    "owes_server_move",
    "take_seat",
]

BOT_LETTERS = "ABC"


def is_vacant(seat: StoredSeat) -> bool:
    """Nobody holds the seat yet: it is open, or reserved for a player who has not taken it."""
    return seat.token_hash is None and seat.bot is None and seat.player_id is None


def is_open(seat: StoredSeat) -> bool:
    """Anyone may take the seat: vacant and reserved for nobody (contract 1.3, "Reserved seats")."""
    return is_vacant(seat) and seat.reserved_for is None


def is_reserved(seat: StoredSeat) -> bool:
    """The seat waits for the one player it is reserved for."""
    return is_vacant(seat) and seat.reserved_for is not None


def is_person(seat: StoredSeat) -> bool:
    """A person holds the seat (with a token, or as a player with their key): not open, not a bot's."""
    return seat.bot is None and (seat.token_hash is not None or seat.player_id is not None)


def has_left(seat: StoredSeat) -> bool:
    """The seat's player left and a bot plays on for them (the seat still names the player)."""
    return seat.bot is not None and seat.player_id is not None and seat.player_id != BOT_PLAYER_IDS.get(seat.bot)


def take_seat(seat: StoredSeat, player: NewPlayer, now: datetime, address: str | None = None) -> str | None:
    """Seat an anonymous person (returns their new token), a player (known by id: their key acts
    for the seat) or a bot (its strength's player); None but for the anonymous person. ``address``:
    the keyed hash of the address the request came from (a person's seat keeps it, for the ratings)."""
    assert not player.me, "the use case resolves the caller to their player first"
    if player.reserved:  # kept for the player, who takes it later (joinGame as ``me``)
        seat.name = player.name
        seat.reserved_for = player.player_id
        return None
    seat.name = player.display_name
    seat.age = player.age
    seat.joined_at = now
    seat.address_hash = address if player.bot is None else None
    if player.bot is not None:
        seat.bot = player.bot
        seat.player_id = BOT_PLAYER_IDS[player.bot]
        return None
    if player.player_id is not None:
        seat.player_id = player.player_id
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
