"""Reading ratings: a rating as shown, a player's rating history, the leaderboard.

No read changes a rating: results are applied by the worker role
(:meth:`.GameService.apply_pending_results`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from ..games.cursors import MAX_POSITION, decode_cursor, encode_cursor
from ..games.errors import InvalidCursor, PlayerNotFound
from ..games.ids import is_player_id
from ..store import RatingStore, StoredHistory, StoredPlayer
from . import current_sigma, display

__all__ = [
    "LeaderboardEntry",
    "LeaderboardPage",
    "PlayerSummary",
    "Rating",
    "RatedGame",
    "RatingHistoryPage",
    "RatingReads",
    "shown_rating",
]

HISTORY = "r"  # the kinds of the cursors of a history and of the leaderboard (its ranked and its rising players)
LEADERBOARD = "l"
RISING = "u"


@dataclass(frozen=True, slots=True)
class Rating:
    """The rating as shown (:func:`.ratings.display`): ``value`` on a scale where a new player is
    at 1500; ``provisional`` while it is still uncertain; ``games``: the rated games it counts."""

    value: int
    provisional: bool
    games: int


@dataclass(frozen=True, slots=True)
class RatedGame:
    """One rated game of a player: their place and score, their rating before and after it."""

    game: str
    finished_at: datetime
    seat: int
    place: int
    score: int
    left: bool
    before: Rating
    after: Rating
    weight: float  # how much the game counted (service.ratings.fairness): 1 for a game of strangers


@dataclass(frozen=True, slots=True)
class RatingHistoryPage:
    player: str
    games: tuple[RatedGame, ...]
    next_cursor: str | None


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    id: str
    name: str
    bot: str | None


@dataclass(frozen=True, slots=True)
class LeaderboardEntry:
    rank: int
    player: PlayerSummary
    rating: Rating


@dataclass(frozen=True, slots=True)
class LeaderboardPage:
    entries: tuple[LeaderboardEntry, ...]
    next_cursor: str | None


def shown_rating(player: StoredPlayer, now: datetime) -> Rating:
    """The player's rating as a profile shows it at ``now``: provisional by its current sigma (grown by time away)."""
    shown = display(player.mu, current_sigma(player.sigma, player.rated_at, now), player.rated_games)
    return Rating(shown.value, shown.provisional, player.rated_games)


class RatingReads:
    """The ratings' read use cases over one store's ratings."""

    def __init__(self, ratings: RatingStore, clock: Callable[[], datetime]) -> None:
        self._ratings = ratings
        self._clock = clock

    def history(self, player_id: str, *, cursor: str | None, limit: int) -> RatingHistoryPage:
        """The player's rated games, newest first, a page at a time."""
        before = _history_position(cursor) if cursor else None
        if not is_player_id(player_id) or self._ratings.player(player_id) is None:
            raise PlayerNotFound(f"there is no player {player_id!r}")
        rows = self._ratings.history(player_id, before=before, limit=limit + 1)
        more = len(rows) > limit
        rows = rows[:limit]
        last = rows[-1] if rows else None
        next_cursor = (
            encode_cursor(HISTORY, f"{last.finished_at.isoformat()}|{last.game_id}") if more and last else None
        )
        return RatingHistoryPage(player_id, tuple(_rated_game(row) for row in rows), next_cursor)

    def leaderboard(self, *, cursor: str | None, limit: int, provisional: bool = False) -> LeaderboardPage:
        """The ranked players (not provisional now), best first: ranks follow on from the cursor's.
        With ``provisional``, the rising players instead: listable, but not (or no longer) settled."""
        kind = RISING if provisional else LEADERBOARD
        rank, after = _leaderboard_position(cursor, kind) if cursor else (0, None)
        now = self._clock()
        players = self._ratings.leaderboard(now, after=after, limit=limit + 1, rising=provisional)
        more = len(players) > limit
        players = players[:limit]
        entries = tuple(
            LeaderboardEntry(rank + index, PlayerSummary(p.id, p.name, p.bot), shown_rating(p, now))
            for index, p in enumerate(players, start=1)
        )
        next_cursor = None
        if more:
            last = players[-1]
            next_cursor = encode_cursor(kind, f"{rank + len(players)}|{last.mu!r}|{last.id}")
        return LeaderboardPage(entries, next_cursor)


def _rated_game(row: StoredHistory) -> RatedGame:
    assert row.mu_after is not None and row.sigma_after is not None  # the store lists completed rows only
    before = display(row.mu_before, row.sigma_before, row.games_before)
    after = display(row.mu_after, row.sigma_after, row.games_before + 1)
    return RatedGame(
        row.game_id, row.finished_at, row.seat, row.place, row.score, row.left,
        Rating(before.value, before.provisional, row.games_before),
        Rating(after.value, after.provisional, row.games_before + 1), row.weight,
    )  # fmt: skip


def _history_position(cursor: str) -> tuple[datetime, str]:
    at, _, game_id = decode_cursor(cursor, HISTORY).partition("|")
    try:
        finished_at = datetime.fromisoformat(at)
        if finished_at.tzinfo is not None:  # the store compares in UTC: a time that has none (year 0) is no game's
            finished_at = finished_at.astimezone(UTC)
    except (ValueError, OverflowError):
        raise InvalidCursor("the cursor is not one this service issued") from None
    if finished_at.tzinfo is None or not game_id.isalnum():
        raise InvalidCursor("the cursor is not one this service issued")
    return finished_at, game_id


def _leaderboard_position(cursor: str, kind: str) -> tuple[int, tuple[float, str]]:
    parts = decode_cursor(cursor, kind).split("|")
    try:
        rank, mu, player_id = int(parts[0]), float(parts[1]), parts[2]
    except (ValueError, IndexError):
        raise InvalidCursor("the cursor is not one this service issued") from None
    if (
        len(parts) != 3
        or not 1 <= rank <= MAX_POSITION
        or not player_id.isalnum()
        or mu != mu
        or abs(mu) == float("inf")
    ):
        raise InvalidCursor("the cursor is not one this service issued")
    return rank, (mu, player_id)
