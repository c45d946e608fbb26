"""Challenges (contract 1.3): a game created with a seat reserved for another player, who is told
(``challenge_received`` on their feed), and who accepts by joining it as ``me`` or declines.

The seats named ``{"player": "<id>"}`` in createGame are resolved here, in the request's unit of
work before the game is made: the player must exist and be a person other than the caller
(``422 challenged_player_not_found``, ``challenged_self``, ``challenged_bot``), take challenges
(``403 challenges_refused``), and have had fewer than :data:`CHALLENGES_PER_DAY` challenges from the
caller in the last day (``429 too_many_challenges``, counted from the games themselves: no counter
to keep; counted and inserted in one transaction, the challenger's row locked: :func:`save_challenge`). The game waits for its reserved seats until ``challenge_seconds`` have passed; that moment
is the game's ``turn_deadline`` (it has no turn yet), so the worker finds it due by the index it
finds turns by, and cancels the game under its lock, once (:func:`expire`). Declining cancels it at
once (:meth:`ChallengeUseCases.decline`). A cancelled game never starts: acting on it is
``409 game_cancelled``. Reserved seats, :func:`cancel` and :func:`expire` know nothing of
challenges: a rematch offer reserves seats and is cancelled the same way (:mod:`.rematch_offers`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ..engine import Game
from ..store import StoredGame, StoreSession
from ..work import UnitOfWork
from .commands import NewGame, NewPlayer
from .domain_events import EventLog, GameCancelledEvent
from .errors import (
    AlreadySeated,
    ChallengedBot,
    ChallengedPlayerNotFound,
    ChallengedSelf,
    ChallengesRefused,
    NotYourSeat,
    TooManyChallenges,
)
from .ids import is_player_id
from .player_events import ChallengeReceivedEvent, encode_player_event
from .projections import public_game
from .results import CANCELLED, WAITING_FOR_PLAYERS
from .seats import is_reserved
from .server_moves import changed
from .tokens import caller_player

if TYPE_CHECKING:
    from .transactions import Transactions

__all__ = [
    "CHALLENGES_PER_DAY",
    "DECLINED",
    "EVERYONE",
    "EXPIRED",
    "NOBODY",
    "ChallengeUseCases",
    "cancel",
    "expire",
    "reserve",
    "resolve_challenges",
    "save_challenge",
]

CHALLENGES_PER_DAY = 20  # challenges one player makes to another in any 24 hours, at most
DAY = timedelta(days=1)
DECLINED, EXPIRED = "declined", "expired"  # why a game was cancelled
EVERYONE, NOBODY = "everyone", "nobody"  # who may challenge a player


def resolve_challenges(session: StoreSession, caller: NewPlayer, request: NewGame, now: datetime) -> NewGame:
    """The request with each challenged seat's player checked and named as their profile."""
    seats = tuple(
        _challenged(session, caller, player.player_id, now) if player is not None and player.reserved else player
        for player in request.seats
    )
    targets = [player.player_id for player in seats if player is not None and player.reserved]
    if len(targets) != len(set(targets)):
        raise AlreadySeated("a player is challenged to one seat of a game at most")
    return replace(request, seats=(seats[0], seats[1], seats[2]))


def _challenged(session: StoreSession, caller: NewPlayer, target_id: str | None, now: datetime) -> NewPlayer:
    """The challenged player's seat, reserved for them, or why they cannot be challenged."""
    assert target_id is not None and caller.player_id is not None
    target = session.player(target_id) if is_player_id(target_id) else None
    if target is None or target.deleted_at is not None:
        raise ChallengedPlayerNotFound(f"there is no player {target_id!r} to challenge")
    if target.id == caller.player_id:
        raise ChallengedSelf('you cannot challenge yourself: take your seat with {"player": "me"}')
    if target.bot is not None:
        raise ChallengedBot(f'{target.name} is a bot: seat it with {{"bot": "{target.bot}"}} instead')
    if target.challenges == NOBODY:
        raise ChallengesRefused(f"{target.name} does not take challenges")
    return NewPlayer(name=target.name, player_id=target.id, barred=target.barred, reserved=True)


def save_challenge(session: StoreSession, stored: StoredGame, challenger: str, now: datetime) -> None:
    """Insert the new game of ``challenger``'s challenge, unless it is one too many to one of the
    players its seats are reserved for. The count and the insert are one transaction with the
    challenger locked: challenges sent at the same moment are counted one after another."""
    with session.player_locked(challenger):
        for seat in stored.seats:
            if not is_reserved(seat):
                continue
            assert seat.reserved_for is not None
            made, first = session.challenges_made(challenger, seat.reserved_for, now - DAY)
            if made >= CHALLENGES_PER_DAY:
                wait = (first + DAY - now) if first is not None else DAY
                raise TooManyChallenges(
                    f"you challenged {seat.name} {made} times in the last day: {CHALLENGES_PER_DAY} at most",
                    retry_after=max(1, int(wait.total_seconds()) + 1),
                )
        session.save(stored)


def reserve(stored: StoredGame, seconds: int, now: datetime) -> None:
    """A new game's reserved seats wait ``seconds`` (its ``turn_deadline`` until it starts), and each
    reserved player is told, once the game is stored (``challenge_received``, through the outbox)."""
    reserved = [seat for seat in stored.seats if is_reserved(seat)]
    if not reserved:
        return
    stored.turn_deadline = now + timedelta(seconds=seconds)
    state = public_game(stored, None)
    challenger = next((seat.player_id for seat in stored.seats if seat.player_id and not seat.bot), None)
    stored.new_player_events += [
        encode_player_event(
            seat.reserved_for,  # type: ignore[arg-type]  # reserved: not None
            ChallengeReceivedEvent(
                game=stored.id,
                version=stored.version,
                seat=seat.seat,
                challenger=challenger or "",
                expires_at=stored.turn_deadline,
                state=state,
            ),
            now,
        )
        for seat in reserved
    ]


def cancel(stored: StoredGame, now: datetime, log: EventLog, reason: str) -> None:
    """The game, not started, is cancelled for ``reason``: it will never start, and its players and
    those its seats were reserved for are told (``game_cancelled``)."""
    stored.status = CANCELLED
    stored.turn_deadline = None
    changed(stored, None, now)
    log.add(stored, GameCancelledEvent, public_game(stored, None), reason=reason)


def expire(stored: StoredGame, now: datetime, log: EventLog) -> bool:
    """The game, not started, whose deadline has passed: cancelled if a seat still waits for the
    player it is reserved for, or it is a rematch offer (whose seats wait for their askers: see
    :mod:`.rematch`) (True), else its stale deadline dropped (False, nothing to tell)."""
    offer = stored.rematch_of is not None
    if stored.status == WAITING_FOR_PLAYERS and (offer or any(is_reserved(seat) for seat in stored.seats)):
        cancel(stored, now, log, EXPIRED)
        return True
    stored.turn_deadline = None
    return False


class ChallengeUseCases:
    """Declining a challenge (a base class of :class:`.operations.GameService`, as seating is)."""

    _games: Transactions

    def decline(self, game_id: str, key: str | None, *, uow: UnitOfWork | None = None) -> None:
        """Decline the seat of ``game_id`` reserved for the player of ``key``: the game is cancelled.
        Repeatable: a game already cancelled is left as it is."""
        with self._games.work(uow) as work:
            player_id = caller_player(work, key).player_id
            assert player_id is not None
            self._games.change(work, game_id, _decliner(player_id), cancelled=True)


def _decliner(player_id: str) -> Callable[[StoredGame, Game | None, datetime, EventLog], None]:
    def change(stored: StoredGame, _game: Game | None, now: datetime, log: EventLog) -> None:
        if stored.status == CANCELLED:  # declined again (repeatable), by a player a seat was reserved for
            if not any(seat.reserved_for == player_id for seat in stored.seats):
                raise NotYourSeat("no seat of this game was reserved for you")
            return
        if not any(is_reserved(seat) and seat.reserved_for == player_id for seat in stored.seats):
            raise NotYourSeat("no seat of this game waits for you: leave a seat you took with leaveGame")
        cancel(stored, now, log, DECLINED)

    return change
