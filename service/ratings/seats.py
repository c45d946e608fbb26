"""What the ratings do to a rated game's seats: keep each player's rating as the game begins, and
record the result as it finishes.

The rating as the game began is written on the seats by the change that begins the game (a full
table created, the last seat joined, quick play's match, a rematch dealt), read from the players'
rows in that change's unit of work (:func:`snapshot_ratings`). The change that finishes a rated game
queues its result on the stored game (:func:`record_result`): each seat's player, place and score,
saved with the change, keyed by the game (``game_results``), and nothing on the players: the
ratings apply it afterwards, in a transaction of their own (:mod:`.apply`). How a game shows its
seats' changes once applied is the games' projection (:func:`service.games.projections.with_rating_changes`).

Called by the games' and quick play's use cases inside their units of work; imports the ratings'
model and the store, never a subject's use cases.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from ..store import StoredEntry, StoredGame, StoredPlayer, StoredResult, StoreSession
from .display import Shown, display
from .finish import finishing_order
from .inactivity import current_sigma

__all__ = ["record_result", "snapshot_ratings"]


def snapshot_ratings(session: StoreSession, stored: StoredGame, now: datetime) -> None:
    """A rated game beginning: each seat's player's rating as shown at ``now``, kept on the seat."""
    if not stored.rated:
        return
    for seat in stored.seats:
        player = session.player(seat.player_id) if seat.player_id is not None else None
        if player is None:
            continue
        shown = _shown(player, now)
        seat.rating, seat.rating_provisional = shown.value, shown.provisional
        stored.changed_seats.add(seat.seat)


def _shown(player: StoredPlayer, now: datetime) -> Shown:
    """The rating as a profile shows it at ``now`` (provisional again after time away)."""
    return display(player.mu, current_sigma(player.sigma, player.rated_at, now), player.rated_games)


def record_result(stored: StoredGame, winner: int, scores: Sequence[int], left: Sequence[int], now: datetime) -> None:
    """Queue the result of a rated game that has just finished on the stored game (its save inserts it).

    ``left``: the seats whose player left, a bot playing on for them. A seat left to a bot is rated
    as the player who left (last, :func:`.finishing_order`); the bot
    that played on for them is not rated. A bot's own seat is rated as that bot strength's player.
    A void game (:func:`service.games.rated.void_if_unplayed`) has no result: it rates nobody. Each entry keeps the
    keyed hash of the address its seat was taken from, for the ratings' rules on one address.
    """
    if not stored.rated or stored.void:
        return
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
