"""Reviews of finished games: every play judged by the strongest bot's search, from what its seat knew then.

A reader's first ``GET …/review`` asks for the review (:meth:`GameReviews.review`); the worker, at its
lowest priority, computes it a few plays at a time (:meth:`GameReviews.review_due`), and readers are
answered "not ready" until the last play is judged. Each play is judged by
:func:`service.bots.review_play` on the engine's private view of the seat that played it, at that
point of the game's replayed log: its own hand and the cards played so far, never another seat's
cards. A play's judgement is seeded by the game and the play's number, so a review is the same
whenever, and by whichever worker, it is computed.
"""

from __future__ import annotations

import logging
import math
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .. import engine
from ..bots import review_play
from ..engine import CARD_BY_CODE, Card, DealAction, Game, PlayAction, Status
from ..store import DatabaseUnavailable, GameStore, StoredAction, StoredGame, StoredReview, StoreSession
from .errors import GameCancelled, GameNotFinished, ReviewNeedsAPerson
from .results import CANCELLED
from .seats import has_left, is_person
from .transactions import Transactions

__all__ = [
    "REVIEWER",
    "CandidateValue",
    "GameReview",
    "GameReviews",
    "PendingReview",
    "ReviewedPlay",
    "review_entries",
]

REVIEWER = "master"  # the strength whose search judges the plays: the strongest
SECONDS_A_PLAY = 0.1  # the mean CPU of a judged play (docs/bots.md): what Retry-After counts on
PENDING_BATCH = 10  # reviews the worker reads in a pass at most

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class CandidateValue:
    card: Card
    expected_points: float


@dataclass(frozen=True, slots=True)
class ReviewedPlay:
    """One play judged: the card played, the reviewer's choice, what the played card lost against it
    (points expected in the rest of the hand) and every card the seat could play, best first."""

    seq: int  # the play's entry in the game's action log
    hand_number: int
    trick_number: int
    seat: int
    card: Card
    choice: Card
    loss: float
    candidates: tuple[CandidateValue, ...]


@dataclass(frozen=True, slots=True)
class GameReview:
    game_id: str
    strength: str
    plays: tuple[ReviewedPlay, ...]


@dataclass(frozen=True, slots=True)
class PendingReview:
    """Asked for, not done yet: ``reviewed`` of ``total`` plays are judged; ask again in ``retry_after`` s."""

    game_id: str
    reviewed: int
    total: int
    retry_after: int


@dataclass(frozen=True, slots=True)
class _Finished:
    """What a review needs of a finished game: its engine setup and its action log."""

    setup: engine.GameSetup
    actions: list[StoredAction]


class GameReviews:
    """The reviews' use cases over one store."""

    def __init__(self, store: GameStore, games: Transactions) -> None:
        self._store = store
        self._games = games

    def review(self, game_id: str) -> GameReview | PendingReview:
        """The game's review if it is computed; else it is asked for (once) and this says how far it is.
        :class:`.GameNotFound`, :class:`.GameNotFinished`, and :class:`.ReviewNeedsAPerson` for a game
        of bots alone."""
        finished = self._finished(game_id, refuse_bots_only=True)
        stored = self._store.reviews.ask(game_id, _plays(finished.actions), self._games.clock())
        if stored.done_at is None:
            left = stored.total - len(stored.plays)
            return PendingReview(game_id, len(stored.plays), stored.total, max(1, math.ceil(left * SECONDS_A_PLAY)))
        return GameReview(game_id, REVIEWER, tuple(_reviewed(entry) for entry in stored.plays))

    def review_due(self, seconds: float) -> int:
        """The worker's step: judge the plays of the reviews asked for, oldest first, until ``seconds``
        of this thread's CPU are spent (each review read gets at least one play). How many were judged.
        The budget bounds how long the worker's next moves wait, never a play's search. A review that
        fails (a bug in its replay, its game gone) is logged and passed over: the reviews asked for
        after it go on, and it is tried again on the next pass."""
        started = time.thread_time()
        judged = 0
        for review in self._store.reviews.pending(PENDING_BATCH):
            if time.thread_time() - started >= seconds:
                break
            try:
                judged += self._extend(review, lambda: time.thread_time() - started >= seconds)
            except DatabaseUnavailable:
                raise  # every review would fail alike: the worker backs off
            except Exception:
                log.exception("the review of game %s failed: the next reviews go on", review.game_id)
        return judged

    def _extend(self, review: StoredReview, spent: Callable[[], bool]) -> int:
        finished = self._finished(review.game_id, refuse_bots_only=False)
        entries: list[dict[str, Any]] = []
        for entry in review_entries(review.game_id, finished.setup, finished.actions, start=len(review.plays)):
            entries.append(entry)
            if spent():
                break
        self._store.reviews.extend(review, entries, self._games.clock())
        return len(entries)

    def _finished(self, game_id: str, *, refuse_bots_only: bool) -> _Finished:
        def read(session: StoreSession, stored: StoredGame) -> _Finished:
            if stored.status == CANCELLED:
                raise GameCancelled("the game was cancelled before it started: there is no play to review")
            if stored.status != Status.FINISHED.value or stored.state is None:
                raise GameNotFinished("the game is not over yet: a review judges a finished game")
            actions = session.actions(game_id, after=0, limit=stored.action_count)
            if refuse_bots_only and not _a_person_played(stored, actions):
                raise ReviewNeedsAPerson("nobody but bots sat at this game: a review is for a person or a player")
            return _Finished(engine.from_snapshot(stored.state).setup, actions)

        return self._games.read(None, game_id, read, several_statements=True)


def review_entries(
    game_id: str, setup: engine.GameSetup, actions: list[StoredAction], *, start: int
) -> Iterator[dict[str, Any]]:
    """The judged plays of the game replayed from ``setup`` and its log, from its ``start``-th play on,
    as stored: each from the private view of the seat that played, just before it played."""
    game = Game(setup)
    plays = 0
    for action in actions:
        if action.kind == "deal":
            assert action.seed is not None
            game.apply(DealAction(action.seat, bytes.fromhex(action.seed)))
            continue
        assert action.card is not None
        card = CARD_BY_CODE[action.card]
        if plays >= start:
            view = engine.private_view(game, action.seat)
            judged = review_play(view, card, random.Random(f"review/{game_id}/{action.seq}"))
            yield {
                "seq": action.seq, "hand_number": view.public.hand_number,
                "trick_number": view.public.trick_number, "seat": action.seat, "card": card.code,
                "choice": judged.choice.code, "loss": judged.loss,
                "values": [[value.card.code, value.points] for value in judged.values],
            }  # fmt: skip
        plays += 1
        game.apply(PlayAction(action.seat, card))


def _plays(actions: list[StoredAction]) -> int:
    return sum(1 for action in actions if action.kind == "play")


def _a_person_played(stored: StoredGame, actions: list[StoredAction]) -> bool:
    """A person or a player sat at the game: a seat still theirs or one they left to a bot, or a move
    of theirs in the log (an anonymous person who left leaves only that)."""
    seated = any(is_person(seat) or has_left(seat) for seat in stored.seats)
    return seated or any(action.cause == "player" for action in actions)


def _reviewed(entry: dict[str, Any]) -> ReviewedPlay:
    candidates = tuple(CandidateValue(CARD_BY_CODE[code], points) for code, points in entry["values"])
    return ReviewedPlay(
        entry["seq"], entry["hand_number"], entry["trick_number"], entry["seat"], CARD_BY_CODE[entry["card"]],
        CARD_BY_CODE[entry["choice"]], entry["loss"], candidates,
    )  # fmt: skip
