"""service.ratings.rate against Weng & Lin's Algorithm 4 written out independently (tests/ratings/weng_lin.py)."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from openskill.models import PlackettLuce

from service.ratings import BETA, KAPPA, MU_0, NEW_RATING, SIGMA_0, TAU, TAU_PER_DAY, Rating, rate

from .weng_lin import algorithm_4, mean_of_strict_orders, strict_orders

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
NEW = (MU_0, SIGMA_0)
# Entries as Coins meets them: three newcomers; a strong settled player, a middling one, a newcomer;
# the weakest the most certain; two equal and one apart.
PRIORS = [
    [NEW, NEW, NEW],
    [(31.0, 2.0), (25.5, 4.0), NEW],
    [(18.0, 1.6), (24.0, 3.5), (33.0, 6.0)],
    [(27.0, 3.0), (27.0, 3.0), (21.0, 5.0)],
]
STRICT = [[1, 2, 3], [3, 2, 1], [2, 3, 1]]
TIED_BELOW = [[1, 2, 2], [2, 1, 2], [2, 2, 1], [1, 1, 1]]  # a tie for second (two leavers), a three-way tie
TIED_FOR_FIRST = [[1, 1, 3], [3, 1, 1], [1, 3, 1]]  # the winner's seat left and the other two scored alike


def entries(priors: list[tuple[float, float]]) -> list[Rating]:
    return [Rating(mu, sigma, NOW) for mu, sigma in priors]  # rated just now: no time away


def assert_close(got: tuple[Rating, ...], expected: list[tuple[float, float]]) -> None:
    assert [(r.mu, r.sigma) for r in got] == [pytest.approx(pair, rel=1e-12, abs=1e-12) for pair in expected]


@pytest.mark.parametrize("priors", PRIORS)
@pytest.mark.parametrize("ranks", STRICT + TIED_BELOW)
def test_a_strict_order_and_a_tie_below_others_follow_algorithm_4(
    priors: list[tuple[float, float]], ranks: list[int]
) -> None:
    assert_close(rate(entries(priors), ranks, NOW), algorithm_4(priors, ranks))


@pytest.mark.parametrize("priors", PRIORS)
@pytest.mark.parametrize("ranks", TIED_FOR_FIRST)
def test_a_tie_for_first_is_the_mean_of_its_two_strict_orders(
    priors: list[tuple[float, float]], ranks: list[int]
) -> None:
    assert len(strict_orders(ranks)) == 2
    assert_close(rate(entries(priors), ranks, NOW), mean_of_strict_orders(priors, ranks))


def test_why_a_tie_for_first_is_not_left_to_the_library() -> None:
    """openskill follows the paper's tie formula, whose tie for first lets the third off lightly."""
    model = PlackettLuce(mu=MU_0, sigma=SIGMA_0, beta=BETA, kappa=KAPPA, tau=TAU)
    library = model.rate([[model.rating()] for _ in range(3)], ranks=[1.0, 1.0, 3.0])
    assert [(team[0].mu, team[0].sigma) for team in library] == [
        pytest.approx(pair, rel=1e-12) for pair in algorithm_4([NEW] * 3, [1, 1, 3])
    ]
    third_strict = algorithm_4([NEW] * 3, [1, 2, 3])[2][0]  # the same in both strict orders
    third_library = library[2][0].mu
    assert MU_0 - third_library == pytest.approx(0.4 * (MU_0 - third_strict))  # 40% of the loss
    assert rate([NEW_RATING] * 3, [1, 1, 3], NOW)[2].mu == pytest.approx(third_strict, rel=1e-12)


def test_three_newcomers_in_a_strict_order() -> None:
    """The figures for the commonest first game, by hand: c² = 3(σ² + τ² + β²), p = 1/3, 1/2."""
    variance = SIGMA_0**2 + TAU**2
    c = math.sqrt(3 * (variance + BETA**2))
    first, second, third = rate([NEW_RATING] * 3, [1, 2, 3], NOW)
    assert first.mu == pytest.approx(MU_0 + variance / c * (2 / 3))
    assert second.mu == pytest.approx(MU_0 + variance / c * (-1 / 3 + 1 / 2))
    assert third.mu == pytest.approx(MU_0 + variance / c * (-1 / 3 - 1 / 2))
    gamma = math.sqrt(variance) / c
    assert first.sigma == pytest.approx(math.sqrt(variance * (1 - gamma * variance / c**2 * (2 / 9))))
    assert second.sigma == third.sigma
    assert second.sigma == pytest.approx(math.sqrt(variance * (1 - gamma * variance / c**2 * (2 / 9 + 1 / 4))))


@pytest.mark.parametrize("days", [0.5, 30, 200, 5000])
@pytest.mark.parametrize("ranks", [[1, 2, 3], [1, 2, 2], [1, 1, 3]])
def test_time_away_grows_sigma_before_the_game_is_rated(days: float, ranks: list[int]) -> None:
    stored = [(30.0, 1.6), (22.0, 2.5), (25.0, 4.0)]
    away = [NOW - timedelta(days=days), NOW, None]  # the third was never rated: no growth
    grown = [
        (stored[0][0], min(SIGMA_0, math.sqrt(stored[0][1] ** 2 + TAU_PER_DAY**2 * days))),
        stored[1],
        stored[2],
    ]
    got = rate([Rating(mu, sigma, at) for (mu, sigma), at in zip(stored, away, strict=True)], ranks, NOW)
    reference = mean_of_strict_orders if ranks == [1, 1, 3] else algorithm_4
    assert_close(got, reference(grown, ranks))
    assert all(rating.rated_at == NOW for rating in got)


@pytest.mark.parametrize("ranks", [[1, 2], [2, 1], [1, 1]])
def test_two_rated_entries_follow_algorithm_4(ranks: list[int]) -> None:
    priors = [(26.0, 3.0), (23.0, 7.0)]
    assert_close(rate(entries(priors), ranks, NOW), algorithm_4(priors, ranks))


@pytest.mark.parametrize(
    ("given", "ranks", "message"),
    [
        ([NEW_RATING] * 3, [1, 2], "3 entries but 2 ranks"),
        ([NEW_RATING], [1], "2 to 3 entries"),
        ([NEW_RATING] * 4, [1, 2, 3, 4], "2 to 3 entries"),
        ([NEW_RATING, Rating(25.0, 0.0, None)], [1, 2], "positive sigma"),
        ([NEW_RATING, Rating(math.nan, 8.0, None)], [1, 2], "finite mu"),
    ],
)
def test_rate_refuses_what_is_not_a_game(given: list[Rating], ranks: list[int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rate(given, ranks, NOW)
