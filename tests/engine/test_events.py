"""Engine events: frozen records, equal by value, every field set."""

from __future__ import annotations

import dataclasses
import random

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

A = DECK[0]


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
