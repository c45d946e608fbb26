"""Ratings on the table (contract 1.3): a rated game's seats keep their players' ratings as the game
began, and show each player's change once the result is applied to them.

The rating as the game began is written on the seats by the change that begins the game (a full
table created, the last seat joined, quick play's match, a rematch dealt), read from the players'
rows in that change's unit of work; the change is read from the ratings' history, which the
ratings' apply step writes after the game's last version (so a game showing changes has an entity
tag of its own: :attr:`.PublicGame.etag`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime

from ..engine import Status
from ..ratings import Shown, current_sigma, display
from ..store import StoredGame, StoredHistory, StoredPlayer, StoreSession
from .results import PublicGame, ShownRatingChange

__all__ = ["awaits_rating_changes", "rated_seats", "snapshot_ratings", "with_rating_changes"]


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


def awaits_rating_changes(game: PublicGame) -> bool:
    """A finished rated game that is not void: its seats' players are rated (or will be, within a second)."""
    return game.rated and not game.void and game.status == Status.FINISHED.value


def rated_seats(games: Iterable[PublicGame]) -> list[tuple[str, str]]:
    """The (player, game) pairs whose applied changes these games show: their rated seats' players."""
    return [
        (seat.player, game.id)
        for game in games
        if awaits_rating_changes(game)
        for seat in game.seats
        if seat.player is not None
    ]


def with_rating_changes(game: PublicGame, history: Sequence[StoredHistory]) -> PublicGame:
    """``game`` with each seat's ``rating_change`` from the players' applied history rows of it."""
    rows = {row.player_id: row for row in history if row.game_id == game.id and row.mu_after is not None}
    if not awaits_rating_changes(game) or not rows:
        return game
    seats = tuple(
        replace(seat, rating_change=_change(rows[seat.player])) if seat.player in rows else seat for seat in game.seats
    )
    return replace(game, seats=seats)


def _change(row: StoredHistory) -> ShownRatingChange:
    """The rating as shown before the game and after it (as the player's ``game_result`` says)."""
    assert row.mu_after is not None and row.sigma_after is not None
    before = display(row.mu_before, row.sigma_before, row.games_before).value
    after = display(row.mu_after, row.sigma_after, row.games_before + 1).value
    return ShownRatingChange(before, after)
