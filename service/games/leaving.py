"""Leaving a game: the seat goes to a bot for good (or, before the game starts, opens again).

A seat also leaves by letting its time pass (contract 1.3, "Clocks"): each deadline it lets pass
gets a stand-in's move, and the :data:`LIVE_LAPSES`-th in a row in a live game (the first in a
correspondence game: a clock of :data:`CORRESPONDENCE_SECONDS` or more) is a leave, to the
stand-in's strength (:func:`lapse`). The seat's own move (a card or a deal) starts the count again.

A started game whose last person leaves is played on by three bots to its target, at the server's
expense: such a leave starts a game of bots alone as surely as creating one, and the caller's limit
on those (``bots_alone_wait``, from the API's rate limits) applies to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from ..engine import Game, GameFinished
from ..store import StoredGame
from .challenges import DECLINED, cancel
from .domain_events import EventLog, SeatLeftEvent
from .errors import NotYourSeat, TooManyBotGames
from .preconditions import check_version
from .projections import public_game
from .rated import void_if_unplayed
from .results import PublicGame
from .seats import is_person, is_reserved
from .server_moves import STAND_IN, Pace, changed, settle, stand_in
from .tokens import authenticate

if TYPE_CHECKING:  # transactions makes the moves a lapse owes (lapse): a type only, here
    from .transactions import Change

__all__ = ["CORRESPONDENCE_SECONDS", "LIVE_LAPSES", "lapse", "leave_seat", "leaves_bots_alone", "vacate_seat"]

LIVE_LAPSES = 2  # deadlines in a row a seat may let pass in a live game: the last of them is a leave
CORRESPONDENCE_SECONDS = 3600  # a turn clock from which a game is a correspondence game: one lapse leaves


def leave_seat(
    seat: int,
    token: str | None,
    *,
    bot: str,
    if_match: Sequence[str] | None,
    bots_alone_wait: int | None,
    pace: Pace,
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
        return _leave(stored, game, now, log, seat, bot, pace)

    return change


def vacate_seat(player_id: str, *, bot: str, name: str, pace: Pace) -> Change[bool]:
    """The change by which ``player_id``'s seat is left without their key, as :func:`leave_seat` leaves
    it, named ``name`` from now on (their account was deleted); False, changing nothing, when the
    game is over or the player holds no seat of it. No limit applies: the service does it."""

    def change(stored: StoredGame, game: Game | None, now: datetime, log: EventLog) -> bool:
        held = [seat for seat in stored.seats if seat.player_id == player_id and seat.bot is None]
        if (
            not held
            and game is None
            and any(seat.reserved_for == player_id for seat in stored.seats if is_reserved(seat))
        ):
            cancel(stored, now, log, DECLINED)  # a challenge to a deleted account: declined
            return True
        if not held or (game is not None and game.is_over):
            return False
        held[0].name = name
        _leave(stored, game, now, log, held[0].seat, bot, pace)
        return True

    return change


def lapse(stored: StoredGame, game: Game, now: datetime, log: EventLog, pace: Pace) -> None:
    """The seat to act let its deadline pass: a stand-in moves for it, or, when this lapse is one
    too many (:data:`LIVE_LAPSES` in a row; one in a correspondence game), the seat has left: a
    bot of the stand-in's strength takes it for good (a rated game is void if the seat had not
    played yet), and makes the move."""
    assert game.turn is not None
    seat = stored.seats[game.turn]
    seat.lapses += 1
    stored.changed_seats.add(seat.seat)
    timeout = stored.turn_timeout_seconds or 0
    allowed = 1 if timeout >= CORRESPONDENCE_SECONDS else LIVE_LAPSES
    if is_person(seat) and seat.lapses >= allowed:
        _leave(stored, game, now, log, seat.seat, STAND_IN, pace)
    else:
        stand_in(stored, game, now, log)


def _leave(
    stored: StoredGame, game: Game | None, now: datetime, log: EventLog, seat: int, bot: str, pace: Pace
) -> PublicGame:
    """``seat`` leaves: to a bot of strength ``bot`` for good once the game has started (a rated game
    is void if the seat had not played yet), else the seat opens again."""
    leaving = stored.seats[seat]
    leaving.token_hash = None
    stored.changed_seats.add(seat)
    if game is None and any(is_reserved(other) for other in stored.seats):  # a challenger leaves: withdrawn
        cancel(stored, now, log, DECLINED)
        return public_game(stored, game)
    if game is None:  # not started: the seat is open again
        leaving.name = leaving.age = leaving.joined_at = leaving.player_id = leaving.address_hash = None
        stored.open_seats += 1
    else:  # a player's id stays on the seat: they sat there, and left (seats.has_left)
        void_if_unplayed(stored, leaving)
        leaving.bot = bot
    changed(stored, game, now)
    log.add(stored, SeatLeftEvent, public_game(stored, game), seat=seat, bot=leaving.bot)
    if game is not None:
        settle(stored, game, now, log, pace)
    return public_game(stored, game)


def leaves_bots_alone(stored: StoredGame, seat: int) -> bool:
    """Whether every seat of ``stored`` but ``seat`` is held by a bot."""
    return all(other.bot is not None for index, other in enumerate(stored.seats) if index != seat)
