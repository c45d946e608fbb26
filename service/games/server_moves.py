"""The server's own moves: auto-deals, bot seats, and stand-ins for a player whose turn timed out.

They happen on the game in memory, before it is saved, with no state kept in the process. A request
makes none of them (contract 1.3: the web role answers requests, and only that): a change that
makes one owed (:func:`settle`) marks it due at a :class:`Pace` from then, in the game's turn
deadline, and the worker role (:mod:`service.worker`) makes it when it falls due
(:func:`make_due_moves`), whether or not anybody reads the game: bots a pace apart (about a
second), and a longer pause after a trick, so that people can follow. A worker's step makes the
move due, and those after it the pace puts at the same moment (a pace of 0, in tests: a run of
them, within a budget of :data:`SERVER_MOVES_PER_STEP` moves and :data:`SERVER_MOVE_SECONDS`
of CPU, the rest left due). The one server move a request still makes is a stand-in's for a person
whose own deadline passed (:func:`stand_in`). Each move, the server's or a player's, is recorded
here: queued on the stored game as an entry of its action log (a completed trick as a trick), given
a new version, and logged for the feed as its events.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from .. import engine
from ..bots import make_bot
from ..engine import Game, GameSetup, Status
from ..ratings.seats import record_result
from ..store import StoredAction, StoredGame, StoredSeat, StoredTrick
from .domain_events import (
    CardPlayedEvent,
    EventLog,
    GameFinishedEvent,
    HandDealtEvent,
    HandEndedEvent,
    HandEvent,
    TrickWonEvent,
)
from .player_events import queue_change
from .projections import public_game
from .results import WAITING_FOR_PLAYERS, TrickState
from .seats import has_left, is_person, is_vacant, owes_server_move

__all__ = [
    "BOTS_ONLY_EXPERT_PLAYOUTS",
    "Pace",
    "SERVER_MOVES_PER_STEP",
    "SERVER_MOVE_SECONDS",
    "STAND_IN",
    "WORKER_STRENGTHS",
    "begin",
    "changed",
    "make_due_moves",
    "owes_server_move",
    "record_deal",
    "record_play",
    "settle",
    "start_full_table",
    "stand_in",
    "timed_out",
]

STAND_IN = "basic"  # the strength that plays for a player whose turn timed out
# The server's moves one step of the worker's makes at most: a count, and this thread's CPU time (it
# starts no move once it is spent; a move begun is finished: an expert's search is a fixed amount of
# work, so its moves do not depend on the machine, issue 35). A step then costs at most the budget
# and one move more (docs/benchmarks.md).
SERVER_MOVES_PER_STEP = 24
SERVER_MOVE_SECONDS = 0.030
# Outside rated games, an expert's CPU cap is a safety net only, far above its fixed search's p99
# (docs/bots.md): when it bites the search stops early, which the bots log and count
# (service.bots.expert.capped_decisions).
EXPERT_SAFETY_SECONDS = 0.25
# With no person at the table (three bot seats, from createGame or after leaveGame) nobody waits
# on a move: experts search a fixed, smaller budget, so that a game to 100 costs about 2 s of CPU
# over its requests (measured from outside, issue 25) rather than a quarter of a minute.
# Not in a rated game: there an expert always searches its full, fixed budget (DEFAULT_PLAYOUTS,
# no CPU cap), so that its moves, and so the ratings, are the same whatever the machine and its
# load; the request's budget may leave a move to the worker, never shorten its search.
BOTS_ONLY_EXPERT_PLAYOUTS = 25
# The strengths whose plays are a second of CPU each (all server moves are the worker's: quick play
# counts these when it seats bots).
WORKER_STRENGTHS = frozenset({"master"})


@dataclass(frozen=True, slots=True)
class Pace:
    """How long after a move the server's next one falls due (``BOT_PACE_MS`` and ``TRICK_PAUSE_MS``):
    people follow the bots' moves, never a burst of them. Both 0 in tests, where the worker's pass
    after a request makes the moves at once."""

    move: timedelta = timedelta(0)  # between two moves
    trick: timedelta = timedelta(0)  # after a trick completes (and before the deal after a hand)

    def before_next(self, game: Game) -> timedelta:
        """The pause before the move now owed: the trick pause when the table has just completed a
        trick (the web client shows a trick that long before it gathers it), else the move pace."""
        if game.status is Status.WAITING_FOR_DEAL and game.hand_number > 0:
            return self.trick
        if game.status is Status.PLAYING and not game.trick and game.hand_tricks:
            return self.trick
        return self.move


def new_stored_game(
    game_id: str,
    seats: list[StoredSeat],
    now: datetime,
    *,
    target_score: int,
    auto_deal: bool,
    seed: str | None,
    first_dealer: int | None,
    turn_timeout_seconds: int | None,
    rematch_of: str | None = None,
    rated: bool = False,
) -> StoredGame:
    """A game as stored before anything happened in it: version 1, waiting for players, nothing
    counted yet (a full table then starts with :func:`start_full_table`)."""
    return StoredGame(
        id=game_id,
        version=1,
        status=WAITING_FOR_PLAYERS,
        target_score=target_score,
        auto_deal=auto_deal,
        seed=seed,
        requested_first_dealer=first_dealer,
        turn_timeout_seconds=turn_timeout_seconds,
        turn_deadline=None,
        open_seats=sum(1 for seat in seats if is_vacant(seat)),  # reserved ones too: the game waits for them
        trick_count=0,
        action_count=0,
        event_count=0,
        state=None,
        created_at=now,
        updated_at=now,
        rematch_of=rematch_of,
        rated=rated,
        seats=seats,
    )


def begin(stored: StoredGame) -> Game:
    """All seats taken: choose the first dealer and start the engine's game (the caller settles it)."""
    ages = [seat.age for seat in stored.seats]
    setup = GameSetup.choose(
        stored.target_score, ages=ages, first_dealer=stored.requested_first_dealer, seed=stored.seed
    )
    return Game(setup)


def start_full_table(stored: StoredGame, now: datetime, pace: Pace) -> Game:
    """A game stored with all three seats taken (a new game, a rematch): begin it, mark the server's
    first move due (an auto-deal, a bot's: the worker makes it), and queue its events."""
    game = begin(stored)
    log = EventLog()
    settle(stored, game, now, log, pace)
    queue_change(log, stored, now, game)
    return game


def settle(stored: StoredGame, game: Game, now: datetime, log: EventLog, pace: Pace) -> None:
    """Store the game's new state, and mark the move the server now owes (auto-deal, bot seat), if
    any, due at ``pace`` from ``now`` in the turn deadline: the worker makes it then. A request
    makes no server move (nor a read)."""
    stored.state = engine.snapshot(game)
    _set_status(stored, game, now)
    if owes_server_move(stored, game):
        stored.turn_deadline = now + pace.before_next(game)


def make_due_moves(
    stored: StoredGame,
    game: Game,
    now: datetime,
    log: EventLog,
    pace: Pace,
    *,
    first_due: bool = True,
    more: bool = True,
) -> None:
    """The worker's step: make the server's move that is due at ``now`` (``first_due``; else a
    stand-in just moved, and the next is due a pace later), and, with ``more`` (the worker's; a
    request's stand-in makes none), the ones after it that ``pace`` puts at the same moment (none,
    at a pace above 0), within the step's budget; then :func:`settle` marks the next one due. One
    step makes a move once: the caller holds the game's lock and read the deadline under it."""
    started = time.thread_time()
    for number in range(SERVER_MOVES_PER_STEP):
        spent = time.thread_time() - started
        if spent >= SERVER_MOVE_SECONDS or not owes_server_move(stored, game):
            break
        if (number > 0 or not first_due) and (not more or pace.before_next(game) > timedelta(0)):
            break  # a pace from now: the next step's
        assert game.turn is not None
        actor = stored.seats[game.turn]  # the dealer while waiting for a deal
        if actor.bot is not None:
            _server_move(stored, game, now, actor.bot, "bot", log)
        else:
            _server_move(stored, game, now, STAND_IN, "auto", log)
    settle(stored, game, now, log, pace)


def stand_in(stored: StoredGame, game: Game, now: datetime, log: EventLog) -> None:
    """The player to act let their time pass: the stand-in bot moves for them, once."""
    _server_move(stored, game, now, STAND_IN, "timeout", log)


def timed_out(stored: StoredGame, now: datetime) -> bool:
    return stored.turn_deadline is not None and stored.turn_deadline <= now


def changed(stored: StoredGame, game: Game | None, now: datetime) -> None:
    """The game changed: a new version, and the status and turn deadline it now has."""
    stored.version += 1
    stored.updated_at = now
    if game is not None:
        _set_status(stored, game, now)


def record_deal(stored: StoredGame, game: Game, dealt: engine.Dealt, cause: str, now: datetime, log: EventLog) -> None:
    """Record the deal just made: the action (with its seed: secret until the hand is over), and
    for the feed the deal, then each person's own cards for their eyes only."""
    action = game.log[-1]
    assert isinstance(action, engine.DealAction)
    _append_action(stored, "deal", action.seat, game.hand_number, cause, now, seed=action.seed.hex())
    _moved_in_time(stored, stored.seats[action.seat], cause)
    changed(stored, game, now)
    state = public_game(stored, game)
    log.add(
        stored, HandDealtEvent, state, hand_number=dealt.hand_number, dealer=dealt.dealer, shuffler=dealt.shuffler,
        cutter=dealt.cutter, leader=dealt.leader, commitment=dealt.commitment, cause=cause,
    )  # fmt: skip
    for seat in stored.seats:
        if is_person(seat):
            log.add(
                stored, HandEvent, state, to=seat.seat, seat=seat.seat, hand_number=dealt.hand_number,
                cards=game.hand(seat.seat),
            )  # fmt: skip


def record_play(
    stored: StoredGame, game: Game, played: engine.Played, cause: str, now: datetime, log: EventLog
) -> None:
    """Record the play just made: the action, the trick it completed, and for the feed the card,
    then what it settled (the trick, the hand with its revealed seed, the game)."""
    _append_action(stored, "play", played.seat, played.hand_number, cause, now, card=played.card.code)
    _mark_played(stored, stored.seats[played.seat], cause)
    _moved_in_time(stored, stored.seats[played.seat], cause)
    trick = played.completed
    if trick is not None:
        stored.trick_count += 1
        stored.new_tricks.append(
            StoredTrick(
                number=stored.trick_count,
                hand_number=trick.hand_number,
                trick_number=trick.trick_number,
                leader=trick.leader,
                plays=[[play.seat, play.card.code] for play in trick.plays],
                winner=trick.winner,
                points=trick.points,
                created_at=now,
            )
        )
    changed(stored, game, now)
    state = public_game(stored, game)
    log.add(
        stored, CardPlayedEvent, state, seat=played.seat, card=played.card, cause=cause,
        hand_number=played.hand_number, trick_number=played.trick_number,
    )  # fmt: skip
    if trick is not None:
        log.add(stored, TrickWonEvent, state, trick=TrickState.of(trick))
    ended = played.hand_ended
    if ended is not None:
        log.add(
            stored, HandEndedEvent, state, hand_number=ended.hand_number, seed=ended.seed.hex(),
            commitment=ended.commitment, scores=game.scores,
        )  # fmt: skip
    if played.winner is not None:
        log.add(stored, GameFinishedEvent, state, winner=played.winner, scores=game.scores)
        record_result(stored, played.winner, game.scores, [seat.seat for seat in stored.seats if has_left(seat)], now)


def _append_action(
    stored: StoredGame,
    kind: str,
    seat: int,
    hand_number: int,
    cause: str,
    now: datetime,
    *,
    card: str | None = None,
    seed: str | None = None,
) -> None:
    """Number the game's next action and queue it for the log."""
    stored.action_count += 1
    stored.new_actions.append(StoredAction(stored.action_count, kind, seat, hand_number, cause, now, card, seed))


def _mark_played(stored: StoredGame, seat: StoredSeat, cause: str) -> None:
    """The seat's own holder played a card: its person, or the bot seated from the start (not a
    stand-in after a timeout, nor the bot that took over a leaver's seat). Written once a seat, and
    only in a rated game, where it decides whether a leave makes the game void (:mod:`.rated`)."""
    if stored.rated and not seat.played and cause != "timeout" and not has_left(seat):
        seat.played = True
        stored.changed_seats.add(seat.seat)


def _moved_in_time(stored: StoredGame, seat: StoredSeat, cause: str) -> None:
    """The seat's holder made their own move: the deadlines they let pass before no longer count
    towards a leave (:func:`.leaving.lapse`)."""
    if cause == "player" and seat.lapses:
        seat.lapses = 0
        stored.changed_seats.add(seat.seat)


def _bot_rng(stored: StoredGame) -> random.Random:
    """Bots' moves are a function of the game (its seed, else its id) and the move number."""
    return random.Random(f"bot/{stored.seed if stored.seed is not None else stored.id}/{stored.action_count}")


def _set_status(stored: StoredGame, game: Game, now: datetime) -> None:
    """The status, and the turn deadline: ``now`` while the server owes a move (:func:`settle` then
    puts it a pace later), else the time the person to act has, if the game gives one."""
    stored.status = game.status.value
    stored.winner = game.winner
    timeout = stored.turn_timeout_seconds
    if owes_server_move(stored, game):
        stored.turn_deadline = now
    elif game.turn is not None and timeout:
        stored.turn_deadline = now + timedelta(seconds=timeout)
    else:
        stored.turn_deadline = None


def _server_move(
    stored: StoredGame,
    game: Game,
    now: datetime,
    strength: str,
    cause: str,
    log: EventLog,
) -> None:
    """The server acts for the seat whose turn it is: deals, or plays as a bot of ``strength``
    (an expert's fixed search, with :data:`EXPERT_SAFETY_SECONDS` as a safety net outside rated games)."""
    if game.status is Status.WAITING_FOR_DEAL:
        record_deal(stored, game, game.deal(game.dealer), cause, now, log)
        return
    seat = game.turn
    assert seat is not None
    bots_only = all(s.bot is not None for s in stored.seats)
    options: dict[str, object] = {}
    if strength == "expert" and not stored.rated:  # rated: the full, fixed search (see BOTS_ONLY_EXPERT_PLAYOUTS)
        options = {"playouts": BOTS_ONLY_EXPERT_PLAYOUTS} if bots_only else {}
        options["max_seconds"] = EXPERT_SAFETY_SECONDS
    decision = make_bot(strength, seat, _bot_rng(stored), **options).decide(engine.private_view(game, seat))
    record_play(stored, game, game.play(seat, decision.card), cause, now, log)
