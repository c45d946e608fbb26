"""Persistence: the format-1 JSON shape, loading, and refusing data that is not a game."""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

import pytest

from service.engine import (
    FORMAT_VERSION,
    Game,
    GameSetup,
    Status,
    UnsupportedFormat,
    from_dict,
    from_snapshot,
    snapshot,
    to_dict,
)


def sample_game(plays: int = 40, target: int = 15) -> Game:
    """A seeded game: hand 1 dealt by seat 0, then the lowest card of whoever is to play, ``plays`` times."""
    game = Game(GameSetup(target_score=target, first_dealer=0, seed="persist"))
    for _ in range(plays):
        if game.is_over:
            break
        if game.status is Status.WAITING_FOR_DEAL:
            game.deal(game.dealer)
        seat = game.turn
        assert seat is not None
        game.play(seat, game.hand(seat)[-1])
    return game


def test_the_format_1_shape() -> None:
    game = Game(GameSetup(target_score=15, first_dealer=0, seed="persist"))
    game.deal(0)
    game.play(1, game.hand(1)[-1])
    data = to_dict(game)
    assert list(data) == ["format", "setup", "state", "log"]
    assert data["format"] == FORMAT_VERSION == 1
    assert data["setup"] == {"target_score": 15, "first_dealer": 0, "first_dealer_reason": "named", "seed": "persist"}
    state = data["state"]
    assert list(state) == [
        "status",
        "hand_number",
        "dealer",
        "leader",
        "turn",
        "hands",
        "trick",
        "hand_tricks",
        "last_trick",
        "scores",
        "tricks_won",
        "winner",
        "seed",
        "commitment",
        "revealed",
    ]
    assert (state["status"], state["hand_number"], state["dealer"], state["leader"], state["turn"]) == (
        "playing",
        1,
        0,
        1,
        2,
    )
    assert [len(hand) for hand in state["hands"]] == [16, 15, 16]
    assert state["trick"] == [[1, data["log"][1]["card"]]]
    assert state["seed"] == hashlib.sha256(b"coins/v1/hand/persist/1").hexdigest()  # the hand seed, in hex
    assert state["commitment"] == hashlib.sha256(bytes.fromhex(state["seed"])).hexdigest()
    assert data["log"][0] == {"type": "deal", "seat": 0, "seed": state["seed"]}
    assert data["log"][1]["type"] == "play" and data["log"][1]["seat"] == 1
    assert snapshot(game) == {k: v for k, v in data.items() if k != "log"}


def test_the_format_1_shape_of_tricks_and_revealed_hands() -> None:
    game = sample_game(plays=60, target=100)  # past the end of hand 1
    state = to_dict(game)["state"]
    trick = state["last_trick"]
    assert list(trick) == ["hand_number", "trick_number", "leader", "plays", "winner", "points"]
    assert [seat for seat, _ in trick["plays"]] == [(trick["leader"] + k) % 3 for k in range(3)]
    (ended,) = state["revealed"]
    assert list(ended) == ["hand_number", "seed", "commitment", "next_dealer"]
    assert ended["seed"] == hashlib.sha256(b"coins/v1/hand/persist/1").hexdigest()


def test_a_pinned_game_serialises_to_the_same_bytes() -> None:
    # Any change to the deal, the rules or the format changes this digest: format 1 must not change.
    data = json.dumps(to_dict(sample_game(plays=60, target=100)), sort_keys=True, separators=(",", ":"))
    assert hashlib.sha256(data.encode()).hexdigest() == PINNED


PINNED = "49c04bcbf6b2af56ec7eeeca1fc731764a909b4252053603e2a50135e36bbdf4"  # the engine as first committed agrees


@pytest.mark.parametrize("plays", [0, 1, 2, 3, 47, 48, 49, 60])
def test_round_trips_through_json(plays: int) -> None:
    game = sample_game(plays, target=100) if plays else Game(GameSetup(seed="persist"))
    whole = json.loads(json.dumps(to_dict(game)))
    assert from_dict(whole) == game
    assert to_dict(from_dict(whole)) == whole
    loaded = from_snapshot(json.loads(json.dumps(snapshot(game))))
    assert snapshot(loaded) == snapshot(game)
    assert from_snapshot(whole) == game  # a snapshot with its log is the whole game


def test_a_finished_game_round_trips() -> None:
    game = sample_game(plays=400, target=3)
    assert game.is_over
    assert from_dict(json.loads(json.dumps(to_dict(game)))) == game
    assert snapshot(from_snapshot(snapshot(game))) == snapshot(game)


def corrupt(path: list[Any], value: Any) -> dict[str, Any]:
    data = copy.deepcopy(to_dict(sample_game()))
    target = data
    for key in path[:-1]:
        target = target[key]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


DELETE = object()

MALFORMED = [
    pytest.param(lambda: [], id="not a dict"),
    pytest.param(lambda: corrupt(["format"], 2), id="format 2"),
    pytest.param(lambda: corrupt(["format"], DELETE), id="no format"),
    pytest.param(lambda: corrupt(["setup"], DELETE), id="no setup"),
    pytest.param(lambda: corrupt(["setup", "target_score"], 0), id="impossible target"),
    pytest.param(lambda: corrupt(["setup", "first_dealer_reason"], "coin toss"), id="unknown reason"),
    pytest.param(lambda: corrupt(["state", "status"], "paused"), id="unknown status"),
    pytest.param(lambda: corrupt(["state", "hands", 0, 0], "queen-hearts"), id="bad card"),
    pytest.param(lambda: corrupt(["state", "seed"], "not hex"), id="bad seed"),
    pytest.param(lambda: corrupt(["log", 1, "type"], "pass"), id="unknown action"),
    pytest.param(lambda: corrupt(["log", 1, "card"], "ace-diamonds"), id="bad card in log"),
    pytest.param(lambda: corrupt(["log", 1, "seat"], 0), id="log out of turn"),
    pytest.param(lambda: corrupt(["log", 0, "seat"], 2), id="log dealt by the wrong seat"),
    pytest.param(lambda: corrupt(["log", 0, "seed"], "00"), id="log dealt from another seed"),
    pytest.param(lambda: corrupt(["state", "scores"], [9, 9, 9]), id="snapshot disagrees with log"),
]


@pytest.mark.parametrize("make", MALFORMED)
def test_from_dict_refuses_malformed_data(make: Any) -> None:
    with pytest.raises(UnsupportedFormat) as caught:
        from_dict(make())
    assert caught.value.code == "unsupported_format"


@pytest.mark.parametrize("make", MALFORMED[:11])
def test_from_snapshot_refuses_malformed_data(make: Any) -> None:
    with pytest.raises(UnsupportedFormat):
        from_snapshot(make())
