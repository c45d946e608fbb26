"""The game record builder: complete bot games, games in progress, and what a record must never hold."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

import pytest

from service.engine import CARD_CODES, FirstDealerReason, NotYourTurn, commitment
from service.games.game_record import FORMAT, FORMAT_VERSION, ActionEntry, GameInfo, SeatInfo, build_record
from tests.support.records import SEATS, START, Played, Table, play

CARD_PATTERN = re.compile("|".join(rf'"{re.escape(code)}"' for code in CARD_CODES))

COMPLETE = {
    "target 15, seat 0 named": Table(),
    "target 5, seat 1 oldest": Table(target=5, first_dealer=1, chosen_by=FirstDealerReason.OLDEST),
    "target 21, seeded, seat 2 drawn": Table(target=21, first_dealer=2, chosen_by=FirstDealerReason.DRAWN, seed="t"),
    "target 1": Table(target=1),
}
IN_PROGRESS = {
    "just dealt": Table(stop_after=1),
    "mid-trick": Table(stop_after=9),
    "trick just completed": Table(stop_after=13),
    "between hands": Table(stop_after=49),
    "second hand, mid-trick": Table(stop_after=60),
    "seeded, second hand": Table(seed="progress", stop_after=70),
}


def _hands_of(played: Played) -> list[list[ActionEntry]]:
    hands: list[list[ActionEntry]] = []
    for action in played.actions:
        if action.kind == "deal":
            hands.append([])
        else:
            hands[-1].append(action)
    return hands


@pytest.mark.parametrize("table", COMPLETE.values(), ids=COMPLETE.keys())
def test_a_complete_game_is_recorded_hand_by_hand(table: Table) -> None:
    played = play(table)
    record = played.record()
    game = played.game
    revealed = game.revealed_hands
    assert [hand["hand_number"] for hand in record["hands"]] == [ended.hand_number for ended in revealed]
    for hand, ended, plays in zip(record["hands"], revealed, _hands_of(played), strict=True):
        assert hand["over"] is True
        assert hand["seed"] == ended.seed.hex()
        assert hand["commitment"] == ended.commitment == commitment(ended.seed)
        assert [(p["seq"], p["seat"], p["card"]) for p in hand["plays"]] == [(a.seq, a.seat, a.card) for a in plays]
        assert [t["plays"] for t in hand["tricks"]] == [
            [{"seat": p["seat"], "card": p["card"]} for p in hand["plays"][i : i + 3]]
            for i in range(0, 3 * len(hand["tricks"]), 3)
        ]
    assert sum(t["points"] for h in record["hands"] for t in h["tricks"]) == sum(game.scores)
    assert record["hands"][-1]["scores_after"] == record["scores"] == list(game.scores)


@pytest.mark.parametrize("table", COMPLETE.values(), ids=COMPLETE.keys())
def test_a_complete_game_states_its_outcome(table: Table) -> None:
    played = play(table)
    record = played.record()
    last = record["hands"][-1]
    assert record["format"] == FORMAT and record["format_version"] == FORMAT_VERSION
    assert record["status"] == "finished"
    assert record["winner"] == played.game.winner
    assert record["scores"][record["winner"]] >= table.target
    assert record["ended_mid_hand"] is (len(last["tricks"]) < 16)
    assert record["finished_at"] == last["plays"][-1]["at"]
    assert record["setup"] == {
        "target_score": table.target,
        "options": {"auto_deal": True, "turn_timeout_seconds": None},
        "seeded": table.seed is not None,
        "first_dealer": table.first_dealer,
        "first_dealer_chosen_by": table.chosen_by.value,
    }


@pytest.mark.parametrize("table", IN_PROGRESS.values(), ids=IN_PROGRESS.keys())
def test_a_game_in_progress_shows_no_hidden_card_and_no_secret_seed(table: Table) -> None:
    played = play(table)
    text = json.dumps(played.record())
    played_cards = {action.card for action in played.actions if action.card is not None}
    assert set(match.strip('"') for match in CARD_PATTERN.findall(text)) == played_cards
    revealed = {ended.seed.hex() for ended in played.game.revealed_hands}
    for deal in (action for action in played.actions if action.kind == "deal"):
        assert (deal.seed in text) is (deal.seed in revealed)


@pytest.mark.parametrize("table", IN_PROGRESS.values(), ids=IN_PROGRESS.keys())
def test_a_game_in_progress_has_no_outcome_yet(table: Table) -> None:
    played = play(table)
    record = played.record()
    last = record["hands"][-1]
    assert record["status"] == played.game.status.value
    assert record["winner"] is None and record["finished_at"] is None and record["ended_mid_hand"] is False
    assert record["scores"] == list(played.game.scores)
    assert ("seed" in last) is last["over"] is ("scores_after" in last)
    assert all(hand["over"] for hand in record["hands"][:-1])


def _not_started() -> GameInfo:
    return replace(play(Table(stop_after=0)).info, status="waiting_for_players")


def test_seats_hold_names_and_kinds_and_nothing_personal() -> None:
    seats = (SeatInfo(0, "Ana", None), SeatInfo(1, None, None), SeatInfo(2, "Expert bot", "expert"))
    record = build_record(_not_started(), seats, (), None)
    assert record["seats"] == [
        {"seat": 0, "name": "Ana", "kind": "person", "bot": None},
        {"seat": 1, "name": None, "kind": "open", "bot": None},
        {"seat": 2, "name": "Expert bot", "kind": "bot", "bot": "expert"},
    ]


def test_a_game_not_started_has_no_hands_and_no_first_dealer() -> None:
    record = build_record(_not_started(), SEATS, (), None, now=START)
    assert record["hands"] == [] and record["winner"] is None and record["scores"] == [0, 0, 0]
    assert record["setup"]["first_dealer"] is None and record["setup"]["first_dealer_chosen_by"] is None
    assert record["recorded_at"] == START.isoformat()


def test_actions_are_replayed_in_seq_order_whatever_order_they_come_in() -> None:
    played = play(Table(stop_after=30))
    shuffled = tuple(reversed(played.actions))
    assert build_record(played.info, SEATS, shuffled, played.game.setup) == build_record(
        played.info, SEATS, played.actions, played.game.setup
    )


def _out_of_turn(actions: tuple[ActionEntry, ...]) -> tuple[ActionEntry, ...]:
    first, second = actions[1], actions[2]
    return (actions[0], replace(second, seq=first.seq), replace(first, seq=second.seq), *actions[3:])


def _wrong_hand(actions: tuple[ActionEntry, ...]) -> tuple[ActionEntry, ...]:
    return (actions[0], replace(actions[1], hand_number=2), *actions[2:])


@pytest.mark.parametrize(
    ("corrupt", "error", "message"),
    [
        (_out_of_turn, NotYourTurn, "turn"),
        (_wrong_hand, ValueError, "logged in hand 2, but belongs to hand 1"),
    ],
    ids=["play out of turn", "play logged in the wrong hand"],
)
def test_a_log_the_engine_refuses_is_not_recorded(corrupt: Any, error: type[Exception], message: str) -> None:
    played = play(Table(stop_after=10))
    with pytest.raises(error, match=message):
        build_record(played.info, SEATS, corrupt(played.actions), played.game.setup)


def test_a_stored_status_the_log_contradicts_is_refused() -> None:
    played = play(Table(stop_after=10))
    with pytest.raises(ValueError, match="stored as finished, but its log leaves it playing"):
        build_record(replace(played.info, status="finished"), SEATS, played.actions, played.game.setup)


def test_a_record_is_plain_json() -> None:
    played = play(Table(target=5))
    record = played.record()
    assert json.loads(json.dumps(record)) == record
    info: GameInfo = played.info
    assert record["created_at"] == info.created_at.isoformat() and record["updated_at"] == info.updated_at.isoformat()
