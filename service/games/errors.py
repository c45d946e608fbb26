"""Failures of the use cases that a client can act on, beyond the rules' own (service.engine.errors)."""

from __future__ import annotations

from ..store import DatabaseUnavailable
from ..work.errors import ServiceError

__all__ = [
    "DatabaseUnavailable",
    "ServiceError",
    "GameNotFound",
    "MissingToken",
    "InvalidToken",
    "NotYourSeat",
    "SeatsFull",
    "SeatTaken",
    "SeatsOpen",
    "GameNotFinished",
    "ReviewNeedsAPerson",
    "VersionMismatch",
    "InvalidCursor",
    "UnknownEventId",
    "LimitReached",
    "TooManyRematches",
    "TooManyBotGames",
    "InvalidKey",
    "PlayerNotFound",
    "AlreadySeated",
    "PlayerRequired",
    "SeededGameUnrated",
    "BotSeatedTwice",
    "AlreadyQueued",
    "TicketNotFound",
    "TicketMatched",
    "RatedNeedsClock",
    "HintsOffInRated",
    "RatedPlayBarred",
    "SeatReserved",
    "RematchStarted",
    "GameCancelled",
    "ChallengesRefused",
    "ChallengedPlayerNotFound",
    "ChallengedSelf",
    "ChallengedBot",
    "TooManyChallenges",
]


class GameNotFound(ServiceError):
    code = "game_not_found"


class MissingToken(ServiceError):
    code = "missing_token"


class InvalidToken(ServiceError):
    code = "invalid_token"


class NotYourSeat(ServiceError):
    """A valid token used on another seat's resource."""

    code = "not_your_seat"


class SeatsFull(ServiceError):
    code = "seats_full"


class SeatTaken(ServiceError):
    code = "seat_taken"


class SeatsOpen(ServiceError):
    """The action needs all three players, and a seat is still open."""

    code = "seats_open"


class GameNotFinished(ServiceError):
    """A rematch or a review asked for before the game is over."""

    code = "game_not_finished"


class ReviewNeedsAPerson(ServiceError):
    """A review asked of a game of bots alone: reviews are for the games of persons and players."""

    code = "review_needs_a_person"


class VersionMismatch(ServiceError):
    """``If-Match`` named a version of the game that is no longer current. ``etag``: the current
    version's entity tag (without quotes), answered in the ``ETag`` header."""

    code = "precondition_failed"

    def __init__(self, message: str, *, etag: str) -> None:
        super().__init__(message)
        self.etag = etag


class InvalidCursor(ServiceError):
    code = "invalid_cursor"


class UnknownEventId(ServiceError):
    """A feed's reader resumes after an event id (``after``, ``Last-Event-ID``) past the feed's last
    event: no event of it ever had that id (a client's mistake, or a database restored to an earlier
    state). Its reader starts again without it, from the whole state."""

    code = "unknown_event_id"


class LimitReached(ServiceError):
    """A limit the use case checks itself; ``retry_after``: the seconds until it allows the call."""

    code = "too_many_requests"

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after  # seconds


class TooManyRematches(LimitReached):
    """A lineage of rematches made as many games in the last minute as it may."""


class TooManyBotGames(LimitReached):
    """Leaving would leave a game to bots alone, and the caller started as many such games as it may."""


class InvalidKey(ServiceError):
    """A player key no player has: never issued, or replaced."""

    code = "invalid_key"


class PlayerNotFound(ServiceError):
    code = "player_not_found"


class AlreadySeated(ServiceError):
    """A player asked for a second seat of one game (bots may hold several)."""

    code = "already_seated"


class PlayerRequired(ServiceError):
    """An anonymous seat (a name, no player) asked for in a rated game."""

    code = "player_required"


class SeededGameUnrated(ServiceError):
    """A rated game asked for with a seed: anyone who knows the seed knows every hand."""

    code = "seeded_game_unrated"


class BotSeatedTwice(ServiceError):
    """A rated game asked for with two seats of one bot strength: the rating model rates each
    player once a game."""

    code = "bot_seated_twice"


class AlreadyQueued(ServiceError):
    """A player asked for a second waiting ticket: one at a time. ``ticket``: the waiting one's id
    (``None`` if it stopped waiting in the meantime), answered as the problem's ``ticket`` member."""

    code = "already_queued"

    def __init__(self, message: str, *, ticket: str | None) -> None:
        super().__init__(message)
        self.ticket = ticket

    def members(self) -> dict[str, str]:
        return {} if self.ticket is None else {"ticket": self.ticket}


class TicketNotFound(ServiceError):
    """No such ticket, or another player's (which is not told apart: it would say the id exists)."""

    code = "ticket_not_found"


class TicketMatched(ServiceError):
    """A matched ticket asked to be cancelled: its game exists (leave it with leaveGame)."""

    code = "ticket_matched"


class RatedNeedsClock(ServiceError):
    """A rated game asked for without a turn clock (``turn_timeout_seconds: null``): it could be stalled forever."""

    code = "rated_needs_clock"


class HintsOffInRated(ServiceError):
    """A hint asked for in a rated game: the strongest bot's card is the answer a cheat wants."""

    code = "hints_off_in_rated"


class RatedPlayBarred(ServiceError):
    """A player an operator barred from rated play asked for a seat at a rated game (or rated quick play)."""

    code = "rated_play_barred"


class SeatReserved(ServiceError):
    """The seat asked for is reserved for another player (contract 1.3, "Reserved seats")."""

    code = "seat_reserved"


class RematchStarted(ServiceError):
    """A rematch is declined once it is dealt: every seat took its place (leave it instead)."""

    code = "rematch_started"


class GameCancelled(ServiceError):
    """The game was cancelled before it started (a challenge declined or run out): nothing acts on it."""

    code = "game_cancelled"


class ChallengesRefused(ServiceError):
    """The player challenged refuses all challenges (``"challenges": "nobody"``)."""

    code = "challenges_refused"


class ChallengedPlayerNotFound(ServiceError):
    """A seat of a new game names a player (a challenge) who does not exist."""

    code = "challenged_player_not_found"


class ChallengedSelf(ServiceError):
    """A seat of a new game names the caller's own player as the one challenged: use ``me``."""

    code = "challenged_self"


class ChallengedBot(ServiceError):
    """A seat of a new game names a bot's player as the one challenged: seat the bot instead."""

    code = "challenged_bot"


class TooManyChallenges(LimitReached):
    """The challenger made as many challenges to this player in the last day as they may."""

    code = "too_many_challenges"
