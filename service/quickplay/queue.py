"""Quick play: players queue tickets, waves match them into new games, and the games are started.

Tickets change in short transactions of their own (:mod:`service.store.tickets`), a game in
its own, so every transaction that changes a game touches that game alone:

1. a **wave** (:meth:`QueueService.match_due`) locks the waiting tickets, plans the matches
   (:func:`.matching.plan_wave`) with a game id chosen for each, and commits the tickets as
   matched, each with the game's id, its seat and the game's lineup: the commit point;
2. then each game is created (every seat taken for its player or bot, dealt by the server,
   started at once) and stored if no game of its id is (:meth:`.StoreSession.create`), with each
   ticket holder's ``match_found`` in the game's outbox (the worker delivers it to their feeds), and
   its tickets marked started.

Whoever finds a matched ticket whose game is not stored (its reader, or a later wave for one
matched some seconds ago) makes step 2 again, alike from the ticket's lineup: a crash between the
steps loses nothing, and no player ends up in two games. Each pass of the worker role runs a
wave (:mod:`service.worker`), and so does a ticket's queueing once committed
(:meth:`QueueService.match_due`); each finds what is due then. A ticket's read and the player
feed's heartbeat only keep a waiting ticket alive.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from ..engine import DEFAULT_TARGET
from ..games.errors import AlreadyQueued, InvalidKey, MissingToken, RatedPlayBarred, TicketMatched, TicketNotFound
from ..games.ids import BOT_PLAYER_IDS, is_game_id, new_game_id
from ..games.operations import GameService
from ..games.player_events import MatchFoundEvent, PlayerEvent
from ..games.rated import BARRED
from ..games.server_moves import WORKER_STRENGTHS, new_stored_game, start_full_table
from ..games.tokens import player_key_hash
from ..players.feeds import stamped
from ..ratings.seats import snapshot_ratings
from ..store import MatchedSeat, StoredPlayer, StoredSeat, StoredTicket, StoreSession
from ..work import UnitOfWork
from .matching import EXPIRE_SECONDS, WINDOW_SECONDS, Match, Plan, due_for_bots, lifetime, plan_wave

__all__ = ["MAX_BOTS_AFTER", "QUEUE_TURN_TIMEOUT_SECONDS", "QueueRequest", "QueueService", "Ticket"]

log = logging.getLogger(__name__)

MAX_BOTS_AFTER = 3600  # seconds: bots_after is at most an hour (null: never)
QUEUE_TURN_TIMEOUT_SECONDS = 60  # a queued game's turns by default: then a stand-in plays for whoever let it pass
WAVE_TICKETS = 500  # the waiting tickets one wave reads at most, oldest first
RESTART_AFTER = timedelta(seconds=10)  # a wave makes the game of a ticket matched this long ago
UNSTARTED_PER_WAVE = 30  # matched tickets whose games one wave makes at most
SEEN_EVERY = timedelta(seconds=5)  # a ticket read within this of its last sighting is not written again


@dataclass(frozen=True, slots=True)
class QueueRequest:
    """What a player queues for (the defaults are the contract's example's)."""

    target_score: int = DEFAULT_TARGET
    rated: bool = True
    bots_after: int | None = 60
    turn_timeout_seconds: int = QUEUE_TURN_TIMEOUT_SECONDS


@dataclass(frozen=True, slots=True)
class Ticket:
    """A ticket as its player sees it."""

    id: str
    status: str
    created_at: datetime
    game: str | None
    seat: int | None
    target_score: int
    rated: bool
    bots_after: int | None
    matched_at: datetime | None
    turn_timeout_seconds: int

    @classmethod
    def of(cls, stored: StoredTicket) -> Ticket:
        return cls(
            stored.id,
            stored.status,
            stored.created_at,
            stored.game_id,
            stored.seat,
            stored.target_score,
            stored.rated,
            stored.bots_after,
            stored.matched_at,
            stored.turn_timeout_seconds,
        )


class QueueService:
    """The queue's use cases over a :class:`.GameService`'s store and units of work."""

    def __init__(
        self,
        games: GameService,
        *,
        window_seconds: float = WINDOW_SECONDS,
        expire_seconds: float = EXPIRE_SECONDS,
    ) -> None:
        """``window_seconds``: after this long any three tickets match (at most 60: the contract's);
        ``expire_seconds``: a ticket not seen this long expires."""
        self._games = games
        self.window_seconds = window_seconds
        self.expire_seconds = expire_seconds

    def _now(self) -> datetime:
        return self._games.clock()

    # -- a player's own requests ---------------------------------------------------------

    def enter(self, key: str | None, request: QueueRequest, *, uow: UnitOfWork, address: str | None = None) -> Ticket:
        """Queue a ticket for the key's player; a wave runs once it has committed. ``address``: the
        keyed hash of the request's address, which the seat keeps (for the ratings' rules). A player
        barred from rated play queues for unrated games only (:class:`.RatedPlayBarred`)."""
        with uow.session() as session:
            player = _player(session, key)
            if request.rated and player.barred:
                raise RatedPlayBarred(BARRED)
            now = self._now()
            stored = StoredTicket(
                id=new_game_id(),
                player_id=player.id,
                name=player.name,
                target_score=request.target_score,
                rated=request.rated,
                bots_after=request.bots_after,
                status="waiting",
                mu=player.mu,
                sigma=player.sigma,
                created_at=now,
                seen_at=now,
                address_hash=address,
                turn_timeout_seconds=request.turn_timeout_seconds,
            )
            if not session.tickets.add(stored):
                waiting = session.tickets.waiting_of(player.id)
                ticket = None if waiting is None else waiting.id
                named = "" if ticket is None else f" ({ticket})"
                raise AlreadyQueued(
                    f"you have a waiting ticket{named}: cancel it first, or wait for its match", ticket=ticket
                )
        uow.after_commit(self._match_after_queueing)
        return Ticket.of(stored)

    def read(self, key: str | None, ticket_id: str) -> Ticket:
        """The caller's ticket as it stands: a waiting one is kept alive, the one mark a read leaves
        (contract 1.3: no read changes matchmaking; the worker's waves match, expire and start),
        unless its time has run out: it is shown expired, as the next wave will store it."""
        with self._games.unit_of_work() as uow, uow.session() as session:
            ticket = _own(session, _player(session, key), ticket_id)
            now = self._now()
            if ticket.status == "waiting":
                if (now - ticket.seen_at).total_seconds() > lifetime(ticket, self.expire_seconds):
                    return replace(Ticket.of(ticket), status="expired")
                session.tickets.touch([ticket.player_id], now, older_than=now - SEEN_EVERY)
            uow.commit()
        return Ticket.of(ticket)

    def cancel(self, key: str | None, ticket_id: str) -> None:
        """Cancel the caller's waiting ticket; nothing to do for one that ended already; a matched
        one cannot be (:class:`.TicketMatched`)."""
        with self._games.unit_of_work() as uow, uow.session() as session:
            ticket = _own(session, _player(session, key), ticket_id)
            if ticket.status == "waiting" and not session.tickets.end([ticket.id], "cancelled", self._now()):
                ticket = _found(session.tickets.get(ticket_id), ticket_id)  # a wave matched it meanwhile
            if ticket.status == "matched":
                raise TicketMatched(f"the ticket is matched into game {ticket.game_id}: leave the game instead")
            uow.commit()

    # -- what drives the queue -----------------------------------------------------------

    def match_due(self, now: datetime | None = None) -> list[Match]:
        """Run a wave: expire, match and start what is due (see the module's docstring); the matches made."""
        with self._games.unit_of_work() as uow, uow.session() as session:
            matches = self._wave(session, now or self._now())
            uow.commit()
        return matches

    def _match_after_queueing(self) -> None:
        self.match_due()

    def touch_tickets(self, player_ids: Collection[str], now: datetime | None = None) -> int:
        """These players are following their feeds: their waiting tickets do not expire (the feeds'
        heartbeat, for every player a real-time process follows at once); how many were marked."""
        now = now or self._now()
        with self._games.unit_of_work() as uow, uow.session() as session:
            touched = session.tickets.touch(player_ids, now, older_than=now - SEEN_EVERY)
            uow.commit()
        return touched

    # -- the wave --------------------------------------------------------------------------

    def _wave(self, session: StoreSession, now: datetime) -> list[Match]:
        """One wave on ``session``: plan on the tickets as read (no lock, nothing to do: done),
        then plan again on them locked and commit; then make the games, and those of tickets
        matched a while ago whose games nobody made."""
        tickets = session.tickets
        waiting = tickets.waiting(limit=WAVE_TICKETS)
        bots = _bots(session) if due_for_bots(waiting, now) else []
        matches: list[Match] = []
        if self._plan(waiting, bots, now):
            with tickets.waiting_locked(limit=WAVE_TICKETS) as locked:
                plan = self._plan(locked, bots, now)
                tickets.end(plan.expired, "expired", now)
                for match in plan.matches:
                    for ticket_id, seat in match.tickets:
                        if not tickets.match(ticket_id, match.game_id, seat, match.lineup, now):
                            raise RuntimeError(f"ticket {ticket_id} changed under the wave's lock")
                matches = list(plan.matches)
        for match in matches:
            self._start(
                session, match.game_id, match.lineup, match.target_score, match.rated, match.turn_timeout_seconds, now,
                tickets=match.tickets,
            )  # fmt: skip
        for ticket in _one_each(tickets.unstarted(matched_before=now - RESTART_AFTER, limit=UNSTARTED_PER_WAVE)):
            self._start_matched(session, ticket, now)
        return matches

    def _plan(self, tickets: list[StoredTicket], bots: list[StoredPlayer], now: datetime) -> Plan:
        return plan_wave(
            tickets, bots, now, window_seconds=self.window_seconds, expire_seconds=self.expire_seconds, rng=_rng
        )

    def _start_matched(self, session: StoreSession, ticket: StoredTicket, now: datetime) -> None:
        """Store the game a matched ticket names, from the ticket's lineup and options (:meth:`_start`)."""
        assert ticket.game_id is not None, "a matched ticket names its game"
        tickets = [(each.id, each.seat) for each in session.tickets.of_game(ticket.game_id) if each.seat is not None]
        self._start(
            session, ticket.game_id, ticket.lineup, ticket.target_score, ticket.rated, ticket.turn_timeout_seconds, now,
            tickets=tickets,
        )  # fmt: skip

    def _start(
        self,
        session: StoreSession,
        game_id: str | None,
        lineup: Iterable[MatchedSeat] | None,
        target_score: int,
        rated: bool,
        turn_timeout_seconds: int,
        now: datetime,
        *,
        tickets: Iterable[tuple[str, int]],
    ) -> None:
        """Store the matched game (unless a game of its id is), started, with each of its ``tickets``'
        holders told ``match_found`` in its outbox (so in the game's own write: never one without the
        other), and mark its tickets started."""
        assert game_id is not None and lineup is not None, "a matched ticket names its game and lineup"
        seats = [
            StoredSeat(
                number, name=seat.name, bot=seat.bot, joined_at=now, player_id=seat.player, address_hash=seat.address
            )
            for number, seat in enumerate(lineup)
        ]
        stored = new_stored_game(
            game_id,
            seats,
            now,
            target_score=target_score,
            auto_deal=True,
            seed=None,
            first_dealer=None,
            turn_timeout_seconds=turn_timeout_seconds,
            rated=rated,
        )
        start_full_table(stored, now, self._games.pace)
        found = match_found_events((seats[seat].player_id or "", ticket_id, game_id) for ticket_id, seat in tickets)
        stored.new_player_events += stamped(found, now)
        snapshot_ratings(session, stored, now)
        session.create(stored)  # False: another request made it first, the same game
        session.tickets.started(game_id)


_rng = random.SystemRandom()


def _player(session: StoreSession, key: str | None) -> StoredPlayer:
    """The player whose key the request carries."""
    if not key:
        raise MissingToken("send your player key as 'Authorization: Bearer <key>'")
    key_hash = player_key_hash(key)
    player = session.player_by_key(key_hash) if key_hash is not None else None
    if player is None:
        raise InvalidKey("the player key is not valid: no player has it (was it replaced?)")
    return player


def _own(session: StoreSession, player: StoredPlayer, ticket_id: str) -> StoredTicket:
    """The ticket, if it is the player's (another's is not told apart from none)."""
    ticket = session.tickets.get(ticket_id) if is_game_id(ticket_id) else None  # no query for a malformed id
    if ticket is None or ticket.player_id != player.id:
        raise TicketNotFound(f"you have no ticket {ticket_id!r}")
    return ticket


def _found(ticket: StoredTicket | None, ticket_id: str) -> StoredTicket:
    if ticket is None:
        raise TicketNotFound(f"you have no ticket {ticket_id!r}")
    return ticket


def _bots(session: StoreSession) -> list[StoredPlayer]:
    """The bot players (one per strength) that complete tables: not the master, whose plays take up to
    a second of CPU each and are the worker's alone (:data:`.WORKER_STRENGTHS`)."""
    strengths = (strength for strength in BOT_PLAYER_IDS if strength not in WORKER_STRENGTHS)
    bots = (session.player(BOT_PLAYER_IDS[strength]) for strength in strengths)
    return [bot for bot in bots if bot is not None]


def _one_each(tickets: Iterable[StoredTicket]) -> list[StoredTicket]:
    """One ticket of each game."""
    by_game = {ticket.game_id: ticket for ticket in tickets}
    return list(by_game.values())


def match_found_events(matches: Iterable[tuple[str, str, str]]) -> list[tuple[str, PlayerEvent]]:
    """The ``match_found`` of each (player id, ticket id, game id) quick play matched."""
    return [(player, MatchFoundEvent(ticket=ticket, game=game)) for player, ticket, game in matches]
