"""The game record: a whole game as one self-contained, versioned JSON document, built from its action log.

:func:`build_record` is pure: it takes plain frozen inputs (the game's stored facts, its
seats, its action log and the engine's setup), replays the actions through the engine to
derive every trick, point and score, and returns a JSON-ready dict. It reads no clock and no
database, and knows nothing of Flask or SQLAlchemy.

The document holds public information only: every card in it has been played, and a hand's
seed (which would reveal every card of the hand) appears only once the hand is over. The
dealt hands are never listed: anyone can recompute them from the revealed seeds.
``docs/records.md`` describes the format field by field; ``service.verify`` checks it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .. import engine
from ..engine import CompletedTrick, Dealt, Game, GameSetup
from .results import CANCELLED, WAITING_FOR_PLAYERS

__all__ = ["FORMAT", "FORMAT_VERSION", "GameInfo", "SeatInfo", "ActionEntry", "build_record"]

FORMAT = "coins-record"
FORMAT_VERSION = 1

Json = dict[str, Any]


@dataclass(frozen=True, slots=True)
class GameInfo:
    """The stored facts of a game that the action log does not hold."""

    id: str
    status: str  # waiting_for_players, waiting_for_deal, playing or finished
    target_score: int
    auto_deal: bool
    turn_timeout_seconds: int | None
    seeded: bool
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Who holds a seat: a person's name, or a bot's strength (and name). Both None: the seat is open."""

    seat: int
    name: str | None
    bot: str | None


@dataclass(frozen=True, slots=True)
class ActionEntry:
    """One entry of the action log, as stored: a deal (with its seed, secret or not) or a play."""

    seq: int
    kind: str  # deal or play
    seat: int
    hand_number: int
    cause: str  # player, bot, auto or timeout
    created_at: datetime
    card: str | None = None  # a play's card code
    seed: str | None = None  # a deal's seed, in hex


def build_record(
    game: GameInfo,
    seats: Iterable[SeatInfo],
    actions: Iterable[ActionEntry],
    setup: GameSetup | None,
    *,
    now: datetime | None = None,
) -> Json:
    """The record of ``game``: ``setup`` is None only while seats are open (no action yet).

    ``actions`` are replayed in ``seq`` order with full validation: a log the engine refuses
    raises the engine's error. ``now``, when given, is stated as the time of the record.
    """
    replay = _Replay(Game(setup) if setup is not None else None)
    for action in sorted(actions, key=lambda entry: entry.seq):
        replay.apply(action)
    replay.check_status(game.status)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "id": game.id,
        "recorded_at": _time(now),
        "setup": _setup(game, setup),
        "seats": [_seat(seat) for seat in sorted(seats, key=lambda seat: seat.seat)],
        "hands": [hand.to_json() for hand in replay.hands],
        **_outcome(game, replay),
    }


# -- the parts of the document --------------------------------------------------------------


def _time(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _setup(game: GameInfo, setup: GameSetup | None) -> Json:
    return {
        "target_score": game.target_score,
        "options": {"auto_deal": game.auto_deal, "turn_timeout_seconds": game.turn_timeout_seconds},
        "seeded": game.seeded,
        "first_dealer": setup.first_dealer if setup is not None else None,
        "first_dealer_chosen_by": setup.first_dealer_reason.value if setup is not None else None,
    }


def _seat(seat: SeatInfo) -> Json:
    kind = "bot" if seat.bot is not None else "person" if seat.name is not None else "open"
    return {"seat": seat.seat, "name": seat.name, "kind": kind, "bot": seat.bot}


def _outcome(game: GameInfo, replay: _Replay) -> Json:
    engine_game = replay.game
    scores = list(engine_game.scores) if engine_game is not None else [0, 0, 0]
    winner = engine_game.winner if engine_game is not None else None
    last = replay.hands[-1] if replay.hands else None
    mid_hand = winner is not None and last is not None and len(last.tricks) < engine.TRICKS_PER_HAND
    return {
        "status": game.status,
        "winner": winner,
        "scores": scores,
        "ended_mid_hand": mid_hand,
        "created_at": _time(game.created_at),
        "updated_at": _time(game.updated_at),
        "finished_at": replay.finished_at if winner is not None else None,
    }


# -- the replay ---------------------------------------------------------------------------


@dataclass(slots=True)
class _Hand:
    """One hand as the replay saw it: the seed is kept only once the hand is over."""

    dealt: Dealt
    deal: ActionEntry
    plays: list[Json] = field(default_factory=list)
    tricks: list[Json] = field(default_factory=list)
    seed: str | None = None
    scores_after: list[int] | None = None

    def to_json(self) -> Json:
        dealt = self.dealt
        over = self.seed is not None
        return {
            "hand_number": dealt.hand_number,
            "dealer": dealt.dealer,
            "shuffler": dealt.shuffler,
            "cutter": dealt.cutter,
            "leader": dealt.leader,
            "deal": {"seq": self.deal.seq, "cause": self.deal.cause, "at": _time(self.deal.created_at)},
            "commitment": dealt.commitment,
            **({"seed": self.seed} if over else {}),
            "over": over,
            "plays": self.plays,
            "tricks": self.tricks,
            **({"scores_after": self.scores_after} if over else {}),
        }


@dataclass(slots=True)
class _Replay:
    """The engine's game fed the log, action by action, and the hands seen so far."""

    game: Game | None
    hands: list[_Hand] = field(default_factory=list)
    finished_at: str | None = None

    def apply(self, action: ActionEntry) -> None:
        if self.game is None:
            raise engine.InvalidSetup("a game whose seats are open has no actions")
        if action.kind == "deal":
            self._deal(self.game, action)
        elif action.kind == "play":
            self._play(self.game, action)
        else:
            raise ValueError(f"action {action.seq} is of unknown kind {action.kind!r}")

    def check_status(self, stored: str) -> None:
        """The stored status must be the one the log leads to; a game cancelled before it started
        (contract 1.3: a challenge declined or run out) has no deal in it."""
        if stored == CANCELLED and not self.hands:
            return
        replayed = self.game.status.value if self.game is not None else WAITING_FOR_PLAYERS
        if stored != replayed:
            raise ValueError(f"the game is stored as {stored}, but its log leaves it {replayed}")

    def _deal(self, game: Game, action: ActionEntry) -> None:
        if action.seed is None:
            raise ValueError(f"deal {action.seq} has no seed")
        dealt = game.deal(action.seat, bytes.fromhex(action.seed))
        _check_hand_number(action, dealt.hand_number)
        self.hands.append(_Hand(dealt, action))

    def _play(self, game: Game, action: ActionEntry) -> None:
        if action.card is None:
            raise ValueError(f"play {action.seq} has no card")
        played = game.play(action.seat, engine.parse_card(action.card))
        _check_hand_number(action, played.hand_number)
        hand = self.hands[-1]
        hand.plays.append(_play(action))
        if played.completed is not None:
            hand.tricks.append(_trick(played.completed))
        if played.hand_ended is not None:
            hand.seed = played.hand_ended.seed.hex()
            hand.scores_after = list(game.scores)
        if played.winner is not None:
            self.finished_at = _time(action.created_at)


def _check_hand_number(action: ActionEntry, hand_number: int) -> None:
    if action.hand_number != hand_number:
        raise ValueError(
            f"action {action.seq} is logged in hand {action.hand_number}, but belongs to hand {hand_number}"
        )


def _play(action: ActionEntry) -> Json:
    return {
        "seq": action.seq,
        "seat": action.seat,
        "card": action.card,
        "cause": action.cause,
        "at": _time(action.created_at),
    }


def _trick(trick: CompletedTrick) -> Json:
    return {
        "number": trick.trick_number,
        "leader": trick.leader,
        "plays": [{"seat": play.seat, "card": play.card.code} for play in trick.plays],
        "winner": trick.winner,
        "points": trick.points,
    }
