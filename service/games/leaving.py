"""Leaving a game: the seat goes to a bot for good (or, before the game starts, opens again).

A started game whose last person leaves is played on by three bots to its target, at the server's
expense: such a leave starts a game of bots alone as surely as creating one, and the caller's limit
on those (``bots_alone_wait``, from the API's rate limits) applies to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from ..engine import Game, GameFinished
from ..store import StoredGame
from .domain_events import EventLog, SeatLeftEvent
from .errors import NotYourSeat, TooManyBotGames
from .preconditions import check_version
from .projections import public_game
from .results import PublicGame
from .server_moves import changed, settle
from .tokens import authenticate
from .transactions import Change

__all__ = ["leave_seat", "leaves_bots_alone"]


def leave_seat(
    seat: int, token: str | None, *, bot: str, if_match: Sequence[str] | None, bots_alone_wait: int | None
) -> Change[PublicGame]:
    """The change by which ``token``'s ``seat`` leaves, to a bot of strength ``bot`` once the game
    has started. With ``bots_alone_wait`` (seconds) a leave that would leave the game to bots alone
    is refused with :class:`.TooManyBotGames`, and nothing changes."""

    def change(stored: StoredGame, game: Game | None, now: datetime, log: EventLog) -> PublicGame:
        caller = authenticate(stored, token)
        if caller != seat:
            raise NotYourSeat(f"the token acts for seat {caller}, not seat {seat}")
        check_version(stored, if_match)
        if game is not None and game.is_over:
            raise GameFinished("the game is over")
        if game is not None and bots_alone_wait is not None and leaves_bots_alone(stored, seat):
            raise TooManyBotGames(
                "the other seats are bots, and this caller started as many games of bots alone as it may "
                f"this minute: leaving would start another; retry in {bots_alone_wait} s",
                retry_after=bots_alone_wait,
            )
        leaving = stored.seats[seat]
        leaving.token_hash = None
        stored.changed_seats.add(seat)
        if game is None:  # not started: the seat is open again
            leaving.name = leaving.age = leaving.joined_at = leaving.player_id = None
            stored.open_seats += 1
        else:  # a player's id stays on the seat: they sat there, and left (seats.has_left)
            leaving.bot = bot
        changed(stored, game, now)
        log.add(stored, SeatLeftEvent, public_game(stored, game), seat=seat, bot=leaving.bot)
        if game is not None:
            settle(stored, game, now, log)
        return public_game(stored, game)

    return change


def leaves_bots_alone(stored: StoredGame, seat: int) -> bool:
    """Whether every seat of ``stored`` but ``seat`` is held by a bot."""
    return all(other.bot is not None for index, other in enumerate(stored.seats) if index != seat)
