"""Asking for a rematch and declining one (contract 1.3, "Rematches are offers"): the use cases.

:class:`RematchUseCases` is part of :class:`.operations.GameService` (a base class of it, as
seating is). Asking (:meth:`RematchUseCases.rematch`) makes the offer when there is none to take (no
rematch yet, or the last offer was cancelled: see :mod:`.rematch` for how racing asks make one game),
then takes the caller's seat at it: the last seat to ask deals it. Declining
(:meth:`RematchUseCases.decline_rematch`) cancels an offer still waiting, for every seat; a cancelled
offer, or none, is declined again without a change.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from ..engine import Game, Status
from ..ratings.seats import snapshot_ratings
from ..store import StoredGame, StoredSeat
from ..work import UnitOfWork
from .challenges import DECLINED, cancel
from .domain_events import EventLog, SeatTakenEvent
from .errors import GameCancelled, GameNotFinished, NotYourSeat, RematchStarted, SeatTaken
from .projections import public_game
from .rematch import check_lineage, is_offer, link_rematch, new_rematch, rematch_id
from .results import CANCELLED, Rematch
from .seats import is_vacant
from .server_moves import Pace, begin, changed, settle, timed_out
from .tokens import authenticate, hash_token, rematch_token

if TYPE_CHECKING:
    from .transactions import Transactions

__all__ = ["RematchUseCases"]


class RematchUseCases:
    """rematchGame and declineRematch (see the module's docstring)."""

    _games: Transactions
    rematches_per_minute: int

    def rematch(self, game_id: str, token: str | None, *, uow: UnitOfWork | None = None) -> Rematch:
        """The caller's place at the rematch of a finished game: an offer made by this call when
        there is none to take (``created``), else the offer (or the game it became) with the caller's
        seat taken. The caller's token for the new game is derived from their token for this one:
        each call of a seat answers the same token, and no other is ever valid for that seat. A
        player's seat gets none: their key acts for it, as for every seat of theirs."""
        with self._games.work(uow) as work:
            finished = self._games.read(work, game_id, lambda _session, stored: stored, token=token)
            seat = authenticate(finished, token)
            assert token is not None
            if finished.status == CANCELLED:
                raise GameCancelled("the game was cancelled before it started: there is nothing to play again")
            if finished.status != Status.FINISHED.value:
                raise GameNotFinished("a rematch can be asked for once the game is finished")
            as_player = finished.seats[seat].player_id is not None  # (an anonymous seat's is None)
            offer, created = finished.rematch, False
            if offer is None or self._cancelled(work, offer):
                offer, created = self._offer(work, finished, seat, token, as_player=as_player, replacing=offer)
            new_token = None if as_player else rematch_token(token, offer)
            claimed = self._games.change(work, offer, _claim(seat, new_token, work, self._games.pace))
            return Rematch(claimed.seat, claimed.token, claimed.game, created)

    def decline_rematch(self, game_id: str, token: str | None, *, uow: UnitOfWork | None = None) -> None:
        """A seat of a finished game declines its rematch offer: the offer is cancelled (``declined``)
        for every seat. Repeatable: with no offer, or one cancelled already, nothing changes; a
        rematch already dealt is not declined (:class:`.RematchStarted`: leave it instead)."""
        with self._games.work(uow) as work:
            finished = self._games.read(work, game_id, lambda _session, stored: stored, token=token)
            authenticate(finished, token)
            if finished.rematch is not None and _stored(work, finished.rematch):  # (not purged since)
                self._games.change(work, finished.rematch, _decline, cancelled=True)

    def _cancelled(self, uow: UnitOfWork, offer_id: str) -> bool:
        """Whether the offer ``offer_id`` is cancelled (or gone: purged); one whose time has run out is
        cancelled now (the worker's expiry, made first: the old offer's players hear of it before a new one)."""
        if not _stored(uow, offer_id):  # purged since (service.store.purge): make a new offer
            return True
        stored = self._games.read(uow, offer_id, lambda _session, stored: stored)
        if is_offer(stored) and timed_out(stored, self._games.clock()):
            return self._games.change(uow, offer_id, _is_cancelled, cancelled=True)
        return stored.status == CANCELLED

    def _offer(
        self, uow: UnitOfWork, finished: StoredGame, seat: int, token: str, *, as_player: bool, replacing: str | None
    ) -> tuple[str, bool]:
        """Store a new offer of ``finished``'s rematch by ``seat`` and link it (steps 1 and 2 of
        :mod:`.rematch`): the id of the offer linked, and whether this call made it (a racing call
        may have stored or linked it first)."""
        new_id, now = rematch_id(finished), self._games.clock()
        barred = finished.rated and _seats_barred(uow, finished)
        offer = new_rematch(
            finished, seat, None if as_player else rematch_token(token, new_id), now, self._games.pace, barred=barred
        )
        with uow.session() as session:  # 429 once this line of rematches made its games of the minute
            if offer.state is not None:  # no seat waits for its person: it starts at once
                snapshot_ratings(session, offer, now)
            check_lineage(finished, session.load, now, per_minute=self.rematches_per_minute)
            created = session.create(offer)
        linked = self._games.change(uow, finished.id, link_rematch(new_id, replacing), token=token)
        return linked, created and linked == new_id


def _claim(
    seat: int, token: str | None, uow: UnitOfWork, pace: Pace
) -> Callable[[StoredGame, Game | None, datetime, EventLog], Rematch]:
    """The change that takes ``seat`` of the rematch for its asker (``token``: an anonymous person's
    new token; None for a player, whose key acts for the seat): the last seat to ask deals it."""

    def change(stored: StoredGame, game: Game | None, now: datetime, log: EventLog) -> Rematch:
        taken = stored.seats[seat]
        if taken.bot is not None:
            raise SeatTaken(f"seat {seat} of the rematch was handed to a bot when its player left")
        if not is_vacant(taken):  # asked before (or a 1.2 rematch, dealt to all at once)
            if token is not None and taken.token_hash != hash_token(token):
                taken.token_hash = hash_token(token)  # a 1.2 rematch's seat, taken by its person now
                stored.changed_seats.add(seat)  # not public: the game's version stays
            return Rematch(seat, token, public_game(stored, game), False)
        if not is_offer(stored):
            raise NotYourSeat(f"seat {seat} of this rematch is nobody's")  # (no such game is stored)
        _take(stored, taken, token, now)
        if stored.open_seats == 0:
            stored.turn_deadline = None  # the offer is complete: the turns' clock starts
            game = begin(stored)
            with uow.session() as session:  # the change's own session: the players' rows as the game begins
                snapshot_ratings(session, stored, now)
        changed(stored, game, now)
        log.add(stored, SeatTakenEvent, public_game(stored, game), seat=seat, name=taken.name, bot=None)
        if game is not None:
            settle(stored, game, now, log, pace)
        return Rematch(seat, token, public_game(stored, game), True)

    return change


def _take(stored: StoredGame, seat: StoredSeat, token: str | None, now: datetime) -> None:
    """The asker takes their vacant seat: a player's reserved seat by its player, else the anonymous
    person's by their new token."""
    if seat.reserved_for is not None:
        seat.player_id = seat.reserved_for
    else:
        assert token is not None, "a player's seat at an offer is reserved for them"
        seat.token_hash = hash_token(token)
    seat.joined_at = now
    stored.changed_seats.add(seat.seat)
    stored.open_seats -= 1


def _is_cancelled(stored: StoredGame, _game: Game | None, _now: datetime, _log: EventLog) -> bool:
    return stored.status == CANCELLED


def _decline(stored: StoredGame, _game: Game | None, now: datetime, log: EventLog) -> None:
    if stored.status == CANCELLED:
        return
    if not is_offer(stored):
        raise RematchStarted("every seat took its place and the rematch is dealt: leave it instead")
    cancel(stored, now, log, DECLINED)


def _stored(uow: UnitOfWork, game_id: str) -> bool:
    """Whether the game is stored (an offer linked once may have been purged since)."""
    with uow.session() as session:
        return session.version(game_id) is not None


def _seats_barred(uow: UnitOfWork, stored: StoredGame) -> bool:
    """Whether a person who sat in ``stored`` is barred from rated play now (its rematch is then unrated)."""
    persons = [seat.player_id for seat in stored.seats if seat.player_id is not None and seat.bot is None]
    with uow.session() as session:
        return any(player is not None and player.barred for player in map(session.player, persons))
