"""A rated game's result, recorded by the change that finishes it: each seat's player, place and score.

Recorded in the finishing change's own save, keyed by the game (``game_results``), and nothing on
the players: the ratings apply it afterwards, in a transaction of their own (:mod:`.rating_apply`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from ..ratings import finishing_order
from ..store import StoredEntry, StoredGame, StoredResult
from .seats import has_left

__all__ = ["record_result"]


def record_result(stored: StoredGame, winner: int, scores: Sequence[int], now: datetime) -> None:
    """Queue the result of a rated game that has just finished on the stored game (its save inserts it).

    A seat left to a bot is rated as the player who left (last, :func:`.finishing_order`); the bot
    that played on for them is not rated. A bot's own seat is rated as that bot strength's player.
    A void game (:func:`.rated.void_if_unplayed`) has no result: it rates nobody. Each entry keeps the
    keyed hash of the address its seat was taken from, for the ratings' rules on one address.
    """
    if not stored.rated or stored.void:
        return
    left = [seat.seat for seat in stored.seats if has_left(seat)]
    places = finishing_order(winner, scores, left)
    entries = []
    for seat in stored.seats:
        if seat.player_id is None:  # a rated game's seats are all players' or bots': never reached
            raise ValueError(f"seat {seat.seat} of rated game {stored.id} has no player")
        is_bot = seat.bot is not None and seat.seat not in left
        entries.append(
            StoredEntry(
                seat.seat, seat.player_id, is_bot, places[seat.seat], scores[seat.seat], seat.seat in left,
                seat.address_hash,
            )
        )  # fmt: skip
    stored.new_result = StoredResult(stored.id, now, tuple(entries))
