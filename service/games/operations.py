"""The use cases: create and join games, deal, play, hints, leaving, and reads.

No Flask here: the API turns HTTP into these calls and their results (public information only,
:mod:`.results`) back into JSON. Each call works in the unit of work it is handed (``uow=``, a keyed
request's, say), else in one of its own (:mod:`service.work.unit_of_work`), and touches one game
(:class:`.transactions.Transactions`); the server's own moves (:mod:`.server_moves`) are the
worker role's (:meth:`GameService.make_due_moves`), each a :class:`.Pace` after the move before it:
a request only marks the next one due (and makes a stand-in's move when a person's time is up).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime

from .. import engine
from ..bots import make_bot
from ..engine import Card, Game, GameFinished, NoHandInProgress, Status
from ..ratings.apply import AppliedResult, OnApplied, RatingApplier, result_applied
from ..store import GameStore, IdempotencyStore, RatingTransaction, StoredGame, StoreSession
from ..work import IdempotencyKeys, KeyedRequest, Signals, UnitOfWork
from .challenges import ChallengeUseCases
from .cursors import ACTIONS, GAMES, TRICKS, decode_cursor, encode_cursor, number_cursor
from .domain_events import EventLog, FeedStart, GameEvent
from .errors import HintsOffInRated, InvalidCursor
from .game_record import ActionEntry, GameInfo, SeatInfo, build_record
from .leaving import leave_seat, vacate_seat
from .preconditions import check_version, running
from .projections import action_state, hands_over, public_game, rated_seats, trick_state, with_rating_changes
from .rematch_offers import RematchUseCases
from .results import (
    CANCELLED,
    ActionPage,
    DealResult,
    GamePage,
    GameRecord,
    HandState,
    Hint,
    PlayResult,
    PublicGame,
    TrickPage,
    TrickState,
)
from .reviews import GameReview, GameReviews, PendingReview
from .seating import SeatingUseCases
from .server_moves import STAND_IN, Pace, record_deal, record_play, settle
from .tokens import authenticate, reader_seat
from .transactions import Transactions, restore

__all__ = ["GameService"]


def _now() -> datetime:
    return datetime.now(UTC)


class GameService(SeatingUseCases, ChallengeUseCases, RematchUseCases):
    """The use cases over one store. Stateless between calls: any number can run side by side.
    Taking seats (``create``, ``join``) is in :mod:`.seating`, declining a challenge in :mod:`.challenges`,
    asking for a rematch and declining one in :mod:`.rematch_offers`."""

    def __init__(
        self,
        store: GameStore,
        *,
        signals: Signals | None = None,
        key_hours: int = 24,
        rematches_per_minute: int = 0,
        clock: Callable[[], datetime] = _now,
        pace: Pace | None = None,
    ) -> None:
        """``signals``: how the units of work tell the other processes which feeds changed (the
        event feed's channel; none: nobody is told); ``key_hours``: how long a response is kept for the retries of its ``Idempotency-Key``;
        ``rematches_per_minute``: the games a line of rematches makes at most (0: no limit, see
        :func:`.check_lineage`); ``pace``: when the server's moves fall due (none: at once)."""
        self.store = store
        self.signals = signals
        self.rematches_per_minute = rematches_per_minute
        self.keys = IdempotencyKeys(IdempotencyStore(store), hours=key_hours)
        self._games = Transactions(clock, self.unit_of_work, pace)
        self._reviews = GameReviews(store, self._games)
        self._rated_listeners: list[OnApplied] = []

    def unit_of_work(self, request: KeyedRequest | None = None) -> UnitOfWork:
        """A unit of work for one use case (see :mod:`service.work.unit_of_work`): keyed with ``request``."""
        return UnitOfWork(self.store, self.keys, request, self.signals)

    def on_rated(self, listener: OnApplied) -> None:
        """Tell ``listener`` of every rated game's result as it is applied to the players' ratings, in
        the transaction that applies it (what the result owes others is written with it)."""
        self._rated_listeners.append(listener)

    def _rated(self, applied: AppliedResult, tx: RatingTransaction) -> None:
        """A listener that fails undoes the application: the result stays pending and is tried again."""
        result_applied(applied, tx)
        for listener in self._rated_listeners:
            listener(applied, tx)

    @property
    def clock(self) -> Callable[[], datetime]:
        """What tells the time: deadlines of turns, times of actions (tests set their own)."""
        return self._games.clock

    @clock.setter
    def clock(self, clock: Callable[[], datetime]) -> None:
        self._games.clock = clock

    @property
    def pace(self) -> Pace:
        """When the server's moves fall due after a move (see :class:`.Pace`)."""
        return self._games.pace

    # -- writes -----------------------------------------------------------------------

    def deal(
        self, game_id: str, token: str | None, *, if_match: Sequence[str] | None, uow: UnitOfWork | None = None
    ) -> DealResult:
        def change(stored: StoredGame, game: Game | None, now: datetime, log: EventLog) -> DealResult:
            seat = authenticate(stored, token)
            check_version(stored, if_match)
            game = running(stored, game)
            dealt = game.deal(seat)
            record_deal(stored, game, dealt, "player", now, log)
            settle(stored, game, now, log, self._games.pace)
            return DealResult(
                dealt.hand_number,
                dealt.dealer,
                dealt.shuffler,
                dealt.cutter,
                dealt.leader,
                dealt.commitment,
                public_game(stored, game),
            )

        return self._games.change(uow, game_id, change, token=token)

    def play(
        self,
        game_id: str,
        token: str | None,
        card: Card,
        *,
        if_match: Sequence[str] | None,
        uow: UnitOfWork | None = None,
    ) -> PlayResult:
        def change(stored: StoredGame, game: Game | None, now: datetime, log: EventLog) -> PlayResult:
            seat = authenticate(stored, token)
            check_version(stored, if_match)
            game = running(stored, game)
            leader = game.leader
            played = game.play(seat, card)
            record_play(stored, game, played, "player", now, log)
            if played.completed is not None:
                trick = TrickState.of(played.completed)
            else:
                assert leader is not None
                trick = TrickState(leader, played.trick, played.hand_number, played.trick_number)
            settle(stored, game, now, log, self._games.pace)
            return PlayResult(seat, card, trick, public_game(stored, game))

        return self._games.change(uow, game_id, change, token=token)

    def leave(
        self,
        game_id: str,
        seat: int,
        token: str | None,
        *,
        bot: str,
        if_match: Sequence[str] | None,
        bots_alone_wait: int | None = None,
        uow: UnitOfWork | None = None,
    ) -> PublicGame:
        """Hand a seat to a bot for good (or, before the game starts, give it up): see :func:`.leave_seat`
        (``bots_alone_wait``: the seconds the caller must wait before leaving a game to bots alone)."""
        leave = leave_seat(
            seat, token, bot=bot, if_match=if_match, bots_alone_wait=bots_alone_wait, pace=self._games.pace
        )
        return self._games.change(uow, game_id, leave, token=token)

    def vacate(self, game_id: str, player_id: str, *, name: str, bot: str = STAND_IN) -> bool:
        """Leave ``player_id``'s seat of a game without their key (:func:`.vacate_seat`: their account
        is being deleted), named ``name`` from now on; whether there was one to leave."""
        return self._games.change(None, game_id, vacate_seat(player_id, bot=bot, name=name, pace=self._games.pace))

    # -- reads ------------------------------------------------------------------------

    def get(self, game_id: str) -> PublicGame:
        game = self._games.read(None, game_id, lambda _session, stored: public_game(stored, restore(stored)))
        return self._rating_changes([game])[0]

    def _rating_changes(self, games: Sequence[PublicGame]) -> list[PublicGame]:
        """The games with their seats' applied rating changes (one read of the ratings' history, and
        none unless a finished rated game is among them)."""
        seats = rated_seats(games)
        history = self.store.ratings.applied(seats) if seats else []
        return [with_rating_changes(game, history) for game in games]

    def hand(self, game_id: str, token: str | None) -> HandState:
        def read(_session: StoreSession, stored: StoredGame) -> HandState:
            seat = authenticate(stored, token)
            game = restore(stored)
            if game is None:
                return HandState(seat, 0, (), stored.version, stored.id)
            return HandState(seat, game.hand_number, game.hand(seat), stored.version, stored.id)

        return self._games.read(None, game_id, read, token=token)

    def hint(self, game_id: str, token: str | None, strength: str) -> Hint:
        """The card a bot of ``strength`` would play for the caller now, and why. Deterministic.
        Never in a rated game (:class:`.HintsOffInRated`)."""

        def read(_session: StoreSession, stored: StoredGame) -> Hint:
            seat = authenticate(stored, token)
            if stored.rated:
                raise HintsOffInRated("hints are off in rated games: the strongest bot's card is a cheat's answer")
            game = running(stored, restore(stored))
            if game.is_over:
                raise GameFinished("the game is over")
            if game.status is not Status.PLAYING:
                raise NoHandInProgress(f"hand {game.hand_number + 1} has not been dealt yet")
            rng = random.Random(f"hint/{stored.id}/{stored.version}/{seat}/{strength}")
            decision = make_bot(strength, seat, rng).decide(engine.private_view(game, seat))
            return Hint(seat, decision.card, strength, decision.reason, stored.version, stored.id)

        return self._games.read(None, game_id, read, token=token)

    def tricks(self, game_id: str, *, cursor: str | None, limit: int) -> TrickPage:
        after = number_cursor(cursor, TRICKS)

        def read(session: StoreSession, stored: StoredGame) -> TrickPage:
            found = session.tricks(game_id, after=after, limit=limit + 1)
            tricks = tuple(trick_state(trick) for trick in found[:limit])
            next_cursor = encode_cursor(TRICKS, str(found[limit - 1].number)) if len(found) > limit else None
            return TrickPage(stored.id, stored.version, tricks, next_cursor)

        return self._games.read(None, game_id, read, several_statements=True)

    def history(self, game_id: str, *, cursor: str | None, limit: int) -> ActionPage:
        after = number_cursor(cursor, ACTIONS)

        def read(session: StoreSession, stored: StoredGame) -> ActionPage:
            found = session.actions(game_id, after=after, limit=limit + 1)
            over = hands_over(restore(stored))
            actions = tuple(action_state(action, over) for action in found[:limit])
            next_cursor = encode_cursor(ACTIONS, str(found[limit - 1].seq)) if len(found) > limit else None
            return ActionPage(stored.id, stored.version, actions, next_cursor)

        return self._games.read(None, game_id, read, several_statements=True)

    def record(self, game_id: str) -> GameRecord:
        """The game as a self-contained record (:mod:`.game_record`): public information only, as
        of the game's last change (its time is the record's), so one version has one record."""

        def read(session: StoreSession, stored: StoredGame) -> GameRecord:
            log = session.actions(game_id, after=0, limit=stored.action_count)
            game = restore(stored)
            info = GameInfo(
                stored.id, stored.status, stored.target_score, stored.auto_deal, stored.turn_timeout_seconds,
                stored.seed is not None, stored.created_at, stored.updated_at,
            )  # fmt: skip
            seats = [SeatInfo(seat.seat, seat.name, seat.bot) for seat in stored.seats]
            actions = [
                ActionEntry(a.seq, a.kind, a.seat, a.hand_number, a.cause, a.created_at, a.card, a.seed) for a in log
            ]
            setup = game.setup if game is not None else None
            document = build_record(info, seats, actions, setup, now=stored.updated_at)
            return GameRecord(stored.id, stored.version, document)

        return self._games.read(None, game_id, read, several_statements=True)

    def review(self, game_id: str) -> GameReview | PendingReview:
        """The finished game's review, or how far it is (the first call asks for it): :mod:`.reviews`."""
        return self._reviews.review(game_id)

    def review_due(self, seconds: float) -> int:
        """Judge the plays of the reviews asked for within ``seconds`` of CPU; how many. The worker's call,
        after its moves."""
        return self._reviews.review_due(seconds)

    def make_due_moves(self, game_id: str) -> bool:
        """The moves due in the game now (a stand-in's or a leave for a lapsed turn, bots', auto-deals),
        committed; False when none was. The worker's call (:mod:`service.worker`)."""
        return self._games.make_due_moves(game_id)

    def apply_pending_results(self) -> int:
        """Apply the rated results pending (finished games'), each with the ``game_result`` it owes
        its players (:meth:`.RatingApplier.apply_pending`); how many were pending. The worker's call."""
        return RatingApplier(self.store.ratings, self._games.clock, self._rated).apply_pending()

    def finished_version(self, game_id: str) -> int | None:
        """The game's version if it is finished, else None (:meth:`.Transactions.finished_version`)."""
        return self._games.finished_version(game_id)

    def list_games(self, *, status: str | None, cursor: str | None, limit: int) -> GamePage:
        before = decode_cursor(cursor, GAMES) if cursor else None
        if before is not None and not before.isalnum():
            raise InvalidCursor("the cursor is not one this service issued")
        with self._games.work(None) as work, work.session() as session, session.reading():
            found = session.games(status=status, before_id=before, limit=limit + 1)
        more = len(found) > limit
        found = found[:limit]
        games = tuple(self._rating_changes([public_game(stored, restore(stored)) for stored in found]))
        next_cursor = encode_cursor(GAMES, found[-1].id) if more else None
        return GamePage(games, next_cursor)

    def feed_start(self, game_id: str, token: str | None) -> FeedStart:
        """Where a reader of the game's feed starts: the whole state now, as the ``game`` event
        (with the reader's own hand, for a seat's token), numbered as the last event it includes."""

        def read(_session: StoreSession, stored: StoredGame) -> FeedStart:
            seat = reader_seat(stored, token) if token is not None else None
            game = restore(stored)
            hand = None
            if seat is not None and game is not None and game.status is Status.PLAYING:
                hand = HandState(seat, game.hand_number, game.hand(seat), stored.version, stored.id)
            state = GameEvent(id=stored.event_count, version=stored.version, game=public_game(stored, game), hand=hand)
            finished = (game is not None and game.is_over) or stored.status == CANCELLED
            return FeedStart(seat, stored.event_count, finished, state)

        start = self._games.read(None, game_id, read, token=token)
        [game] = self._rating_changes([start.state.game])
        return replace(start, state=replace(start.state, game=game))

    def ping(self) -> None:
        """Raise :class:`.DatabaseUnavailable` unless the store can be reached (readiness)."""
        self.store.ping()
