"""Engine events: frozen, equal by value, and the fast-built ones indistinguishable from constructed ones."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import random

import pytest

from service.engine import (
    DECK,
    CompletedTrick,
    Game,
    GameSetup,
    Play,
    PlayAction,
    Played,
    Status,
)
from service.engine.events import new_completed_trick, new_played

A, B, C = DECK[0], DECK[13], DECK[40]
PLAYS = (Play(1, A), Play(2, B), Play(0, C))
TRICK = CompletedTrick(2, 16, 1, PLAYS, 2, 1)


@pytest.mark.parametrize(
    ("fast", "slow"),
    [
        (new_completed_trick(2, 16, 1, PLAYS, 2, 1), TRICK),
        (new_played(0, C, 2, 16, PLAYS, TRICK, None, 2), Played(0, C, 2, 16, PLAYS, TRICK, None, 2)),
        (new_played(1, A, 1, 1, PLAYS[:1], None, None, None), Played(1, A, 1, 1, PLAYS[:1], None, None, None)),
    ],
    ids=["CompletedTrick", "Played, completing", "Played, leading"],
)
def test_fast_events_are_ordinary_events(fast: object, slow: object) -> None:
    assert type(fast) is type(slow)
    assert fast == slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)
    assert dataclasses.asdict(fast) == dataclasses.asdict(slow)  # type: ignore[call-overload]
    assert pickle.loads(pickle.dumps(fast)) == slow
    assert copy.copy(fast) == copy.deepcopy(fast) == slow
    assert dataclasses.replace(fast) == slow  # type: ignore[type-var]
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.winner = 0  # type: ignore[attr-defined]
    with pytest.raises((AttributeError, TypeError)):  # Python 3.11's frozen slots classes raise TypeError here
        fast.extra = 0  # type: ignore[attr-defined]


def test_every_field_of_every_record_of_a_game_is_set() -> None:
    game = Game(GameSetup(target_score=20, first_dealer=1, seed="records"))
    rng = random.Random(3)
    while not game.is_over:
        if game.status is Status.WAITING_FOR_DEAL:
            record: object = game.deal(game.dealer)
        else:
            seat = game.turn
            assert seat is not None
            record = game.play(seat, rng.choice(game.legal_cards(seat)))
            assert isinstance(record, Played)
            rebuilt = Played(**{f.name: getattr(record, f.name) for f in dataclasses.fields(Played)})
            assert rebuilt == record
            if record.completed is not None:
                completed = record.completed
                assert CompletedTrick(**dataclasses.asdict(completed) | {"plays": completed.plays}) == completed
        dataclasses.asdict(record)  # type: ignore[call-overload]  # raises if a slot were left unset


def test_plays_and_actions_compare_by_value() -> None:
    assert Play(1, A) == Play(1, A) == (1, A)
    assert PlayAction(1, A) == PlayAction(1, A) and PlayAction(1, A) != PlayAction(2, A)
    game = Game(GameSetup(seed="records"))
    game.deal(0)
    card = game.hand(1)[0]
    game.play(1, card)
    assert game.log[-1] == PlayAction(1, card)
    assert game.trick == (Play(1, card),)
