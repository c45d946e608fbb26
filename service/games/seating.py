"""Taking seats: createGame's seats and joinGame, for anonymous persons, players and bots.

:class:`SeatingUseCases` is part of :class:`.operations.GameService` (a base class of it, kept in
a module of its own). A seat for ``me`` is resolved to the player whose key the request carries,
in the request's unit of work, before the game is touched: the game's own transaction only reads
and writes the game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime

from ..engine import Game
from ..ratings.seats import snapshot_ratings
from ..store import StoredGame, StoredSeat
from ..work import UnitOfWork
from .challenges import reserve, resolve_challenges, save_challenge
from .commands import NewGame, NewPlayer
from .domain_events import EventLog, SeatTakenEvent
from .errors import AlreadySeated, MissingToken, SeatReserved, SeatsFull, SeatTaken
from .ids import BOT_PLAYER_IDS, new_game_id
from .preconditions import check_version
from .projections import public_game
from .rated import check_rated, check_rated_join
from .results import WAITING_FOR_PLAYERS, Created, Credential, Joined
from .seats import is_open, is_reserved, is_vacant, name_bots_apart, take_seat
from .server_moves import Pace, begin, changed, new_stored_game, settle, start_full_table
from .tokens import caller_player
from .transactions import Transactions

__all__ = ["SeatingUseCases"]


class SeatingUseCases:
    """createGame and joinGame (see the module's docstring)."""

    _games: Transactions
    clock: Callable[[], datetime]

    def create(
        self, request: NewGame, *, key: str | None = None, address: str | None = None, uow: UnitOfWork | None = None
    ) -> Created:
        """A new game, its seats taken as asked: ``me`` seats for the player of ``key``. ``address``:
        the keyed hash of the request's address, kept on the persons' seats (for the ratings)."""
        with self._games.work(uow) as work:
            now = self.clock()
            challenger: str | None = None
            if any(player is not None and player.me for player in request.seats):
                caller = caller_player(work, key)
                request = _with_caller(request, caller)
                if any(player is not None and player.reserved for player in request.seats):
                    with work.session() as session:
                        request = resolve_challenges(session, caller, request, now)
                    challenger = caller.player_id
            elif any(player is not None and player.reserved for player in request.seats):
                raise MissingToken('a challenge is made with your player key, taking your seat as {"player": "me"}')
            check_rated(request)
            credentials: list[Credential] = []
            seats = []
            seated = []
            for number, player in enumerate(request.seats):
                seat = StoredSeat(number)
                if player is not None:
                    token = take_seat(seat, player, now, address)
                    if token is not None:
                        credentials.append(Credential(number, token))
                    seated.append((seat, player))
                seats.append(seat)
            name_bots_apart(seated)
            stored = new_stored_game(
                new_game_id(),
                seats,
                now,
                target_score=request.target_score,
                auto_deal=request.auto_deal,
                seed=request.seed,
                first_dealer=request.first_dealer,
                turn_timeout_seconds=request.turn_timeout_seconds,
                rated=request.rated,
            )
            # A full table starts at once (its first server move falls due a pace later: the
            # worker's), before a connection is taken: the store is held for the INSERTs alone.
            game = start_full_table(stored, now, self._games.pace) if stored.open_seats == 0 else None
            reserve(stored, request.challenge_seconds, now)
            with work.session() as session:
                if game is not None:
                    snapshot_ratings(session, stored, now)
                if challenger is not None:
                    save_challenge(session, stored, challenger, now)
                else:
                    session.save(stored)
        return Created(public_game(stored, game), tuple(credentials))

    def join(
        self,
        game_id: str,
        player: NewPlayer,
        *,
        seat: int | None,
        if_match: Sequence[str] | None,
        key: str | None = None,
        address: str | None = None,
        uow: UnitOfWork | None = None,
    ) -> Joined:
        """Take ``seat`` (or the first open one) for ``player``: for ``me``, the player of ``key``.
        ``address``: the keyed hash of the request's address, kept on the seat (for the ratings)."""
        with self._games.work(uow) as work:
            if player.me:
                player = caller_player(work, key)
            return self._games.change(work, game_id, _joiner(player, seat, if_match, address, work, self._games.pace))


def _with_caller(request: NewGame, caller: NewPlayer) -> NewGame:
    """The request with its ``me`` seats given to the caller's player: one seat at most."""
    if sum(1 for player in request.seats if player is not None and player.me) > 1:
        raise AlreadySeated("a player holds one seat of a game at most")
    seats = tuple(caller if player is not None and player.me else player for player in request.seats)
    return replace(request, seats=(seats[0], seats[1], seats[2]))


def _joiner(
    player: NewPlayer,
    seat: int | None,
    if_match: Sequence[str] | None,
    address: str | None,
    uow: UnitOfWork,
    pace: Pace,
) -> Callable[[StoredGame, Game | None, datetime, EventLog], Joined]:
    """The change that seats ``player`` in ``seat`` (or the first open one) of a game."""

    def change(stored: StoredGame, game: Game | None, now: datetime, log: EventLog) -> Joined:
        check_version(stored, if_match)
        if stored.rematch_of is not None and stored.status == WAITING_FOR_PLAYERS:
            raise SeatReserved("a rematch offer's seats are its finished game's: each takes theirs with rematchGame")
        vacant = [s for s in stored.seats if is_vacant(s)]
        if not vacant:
            raise SeatsFull("all three seats are taken")
        check_rated_join(stored.rated, player)
        if player.player_id is not None and player.player_id not in BOT_PLAYER_IDS.values():
            held = [s.seat for s in stored.seats if s.player_id == player.player_id]
            if held:
                raise AlreadySeated(f"you hold seat {held[0]} of this game already")
        taken = _seat_for(stored, vacant, player, seat)
        token = take_seat(taken, player, now, address)
        stored.changed_seats.add(taken.seat)
        stored.open_seats -= 1
        if not any(is_reserved(s) for s in stored.seats):
            stored.turn_deadline = None  # no reservation left to run out (a start sets the turn's)
        if stored.open_seats == 0:
            game = begin(stored)
            with uow.session() as session:  # the change's own session: the players' rows as the game begins
                snapshot_ratings(session, stored, now)
        changed(stored, game, now)
        log.add(stored, SeatTakenEvent, public_game(stored, game), seat=taken.seat, name=taken.name, bot=None)
        if game is not None:
            settle(stored, game, now, log, pace)
        return Joined(taken.seat, token, public_game(stored, game))

    return change


def _seat_for(stored: StoredGame, vacant: list[StoredSeat], player: NewPlayer, seat: int | None) -> StoredSeat:
    """The seat ``player`` takes: the one reserved for them if there is one (``seat`` may name it),
    else ``seat``, else the first open one. A seat reserved for another player is theirs alone, and
    a player with a seat reserved takes that one (:class:`.SeatReserved`: the game would wait for
    it until it is cancelled)."""
    mine = [s for s in vacant if s.reserved_for is not None and s.reserved_for == player.player_id]
    if mine and seat is not None and stored.seats[seat] not in mine:
        raise SeatReserved(f"seat {mine[0].seat} is reserved for you: take that one")
    if seat is None:
        chosen = mine or [s for s in vacant if is_open(s)]
        if not chosen:
            raise SeatReserved("the seats not taken are reserved for other players")
        return chosen[0]
    taken = stored.seats[seat]
    if not is_vacant(taken):
        free = ", ".join(str(s.seat) for s in vacant if is_open(s) or s in mine) or "none"
        raise SeatTaken(f"seat {seat} is taken; open: {free}")
    if taken.reserved_for is not None and taken.reserved_for != player.player_id:
        raise SeatReserved(f"seat {seat} is reserved for another player")
    return taken
