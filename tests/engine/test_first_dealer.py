"""The first dealer: the named seat, else the oldest player, else a draw (reproducible in seeded games)."""

from __future__ import annotations

import hashlib
import secrets

import pytest

from service.engine import (
    FirstDealerReason,
    Game,
    GameSetup,
    InvalidSeat,
    InvalidSetup,
    choose_first_dealer,
)

NAMED, OLDEST, DRAWN = FirstDealerReason.NAMED, FirstDealerReason.OLDEST, FirstDealerReason.DRAWN


@pytest.mark.parametrize(
    ("ages", "named", "expected"),
    [
        ((40, 50, 60), 0, (0, NAMED)),  # a named seat wins over ages
        ((None, None, None), 2, (2, NAMED)),
        ((40, 50, 60), None, (2, OLDEST)),
        ((70, 50, 60), None, (0, OLDEST)),
        ((40, 80, 60), None, (1, OLDEST)),
        ((0, 0, 1), None, (2, OLDEST)),
    ],
)
def test_named_then_oldest(
    ages: tuple[int | None, ...], named: int | None, expected: tuple[int, FirstDealerReason]
) -> None:
    assert choose_first_dealer(ages, named) == expected
    assert choose_first_dealer(ages, named, seed="any seed") == expected


@pytest.mark.parametrize(
    "ages",
    [(None, None, None), (40, None, 60), (60, 60, 40), (60, 60, 60), (None, 90, None), (30, 50, 50)],
    ids=str,
)
def test_a_draw_when_the_oldest_is_not_known(ages: tuple[int | None, ...]) -> None:
    dealer, reason = choose_first_dealer(ages, None, seed="table 9")
    assert reason is DRAWN
    assert (dealer, reason) == choose_first_dealer(ages, None, seed="table 9")  # reproducible
    seen = {choose_first_dealer(ages)[0] for _ in range(200)}  # unseeded: secrets, all seats possible
    assert seen == {0, 1, 2}
    assert {choose_first_dealer(ages)[1] for _ in range(5)} == {DRAWN}


def reference_draw(seed: str) -> int:
    """The documented draw: one uniform draw below 3 from the deal stream over 'coins/v1/first-dealer/<seed>'."""
    data = f"coins/v1/first-dealer/{seed}".encode()
    counter = 0
    while True:
        block = hashlib.sha256(data + counter.to_bytes(8, "big")).digest()
        for i in range(0, 32, 4):
            x = int.from_bytes(block[i : i + 4], "big")
            if x < 2**32 - 2**32 % 3:
                return x % 3
        counter += 1


@pytest.mark.parametrize("seed", ["", "a", "b", "table 9", "ünïcode", "x" * 100])
def test_seeded_draws_follow_the_documented_derivation(seed: str) -> None:
    assert choose_first_dealer(seed=seed) == (reference_draw(seed), DRAWN)


def test_seeded_draws_reach_every_seat() -> None:
    assert {choose_first_dealer(seed=f"seed {i}")[0] for i in range(60)} == {0, 1, 2}


def test_unseeded_draws_use_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def randbelow(n: int) -> int:
        calls.append(n)
        return 1

    monkeypatch.setattr(secrets, "randbelow", randbelow)  # the module the engine draws from
    assert choose_first_dealer() == (1, DRAWN)
    assert calls == [3]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"ages": (40, 50)}, InvalidSetup, "ages must list one entry per seat"),
        ({"ages": (40, 50, 60, 70)}, InvalidSetup, "ages must list one entry per seat"),
        ({"ages": (40, "50", 60)}, InvalidSetup, "an age is a whole number"),
        ({"ages": (40, 50.5, 60)}, InvalidSetup, "an age is a whole number"),
        ({"ages": (True, 5, 6)}, InvalidSetup, "an age is a whole number"),
        ({"ages": (-1, 5, 6)}, InvalidSetup, "an age is a whole number"),
        ({"named": 3}, InvalidSeat, "seat must be 0, 1 or 2, not 3"),
        ({"named": -1}, InvalidSeat, "seat must be 0, 1 or 2, not -1"),
        ({"named": "0"}, InvalidSeat, "seat must be 0, 1 or 2, not '0'"),
        ({"named": True}, InvalidSeat, "seat must be 0, 1 or 2, not True"),
    ],
)
def test_impossible_choices(kwargs: dict[str, object], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=f"^{message}"):
        choose_first_dealer(**kwargs)  # type: ignore[arg-type]


def test_game_setup_choose_records_the_dealer_and_the_reason() -> None:
    setup = GameSetup.choose(20, ages=(30, 31, 29), seed="s")
    assert setup == GameSetup(20, 1, OLDEST, "s")
    assert Game(setup).dealer == Game(setup).turn == 1
    drawn = GameSetup.choose(ages=(None, 3, 3), seed="s")
    assert drawn.first_dealer_reason is DRAWN and drawn.first_dealer == reference_draw("s")
    assert drawn.target_score == 15
    assert GameSetup.choose(first_dealer=2).first_dealer == 2


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"target_score": 0}, InvalidSetup),
        ({"target_score": 101}, InvalidSetup),
        ({"target_score": 15.0}, InvalidSetup),
        ({"target_score": True}, InvalidSetup),
        ({"first_dealer": 3}, InvalidSeat),
        ({"first_dealer": None}, InvalidSeat),
    ],
)
def test_impossible_setups(kwargs: dict[str, object], error: type[Exception]) -> None:
    with pytest.raises(error):
        GameSetup(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("target", [1, 10, 15, 20, 100])
def test_possible_targets(target: int) -> None:
    assert GameSetup(target_score=target).target_score == target
