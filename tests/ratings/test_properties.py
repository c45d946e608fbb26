"""Properties of service.ratings.rate (Hypothesis): monotone, order-free, ties between strict results, sums."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.ratings import SIGMA_0, TAU, Rating, current_sigma, rate

from .weng_lin import strict_orders

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)

mus = st.floats(min_value=0.0, max_value=50.0)
sigmas = st.floats(min_value=0.5, max_value=SIGMA_0)
times_away = st.one_of(st.none(), st.floats(min_value=0.0, max_value=2000.0).map(lambda d: NOW - timedelta(days=d)))
ratings = st.builds(Rating, mus, sigmas, times_away)
games = st.integers(min_value=2, max_value=3).flatmap(
    lambda k: st.tuples(
        st.lists(ratings, min_size=k, max_size=k),
        st.lists(st.integers(min_value=1, max_value=3), min_size=k, max_size=k),
    )
)


def prior_sigma(entry: Rating) -> float:
    """The sigma a game starts from: grown by the time away and by the per-game tau."""
    return math.sqrt(current_sigma(entry.sigma, entry.rated_at, NOW) ** 2 + TAU**2)


@given(games)
def test_a_sole_winner_never_loses_and_a_sole_last_never_gains(game: tuple[list[Rating], list[int]]) -> None:
    entries, ranks = game
    after = rate(entries, ranks, NOW)
    for i, rank in enumerate(ranks):
        if ranks.count(rank) == 1 and rank == min(ranks):
            assert after[i].mu >= entries[i].mu
        if ranks.count(rank) == 1 and rank == max(ranks):
            assert after[i].mu <= entries[i].mu


@given(games)
def test_a_game_never_widens_the_sigma_it_starts_from(game: tuple[list[Rating], list[int]]) -> None:
    entries, ranks = game
    for entry, rated in zip(entries, rate(entries, ranks, NOW), strict=True):
        assert 0 < rated.sigma < prior_sigma(entry)


@given(
    st.lists(st.builds(Rating, st.floats(20.0, 30.0), st.floats(3.0, SIGMA_0), st.none()), min_size=3, max_size=3),
    st.lists(st.integers(min_value=1, max_value=3), min_size=3, max_size=3),
)
def test_above_the_per_game_floor_every_sigma_shrinks(entries: list[Rating], ranks: list[int]) -> None:
    """tau² added each game keeps a sigma from shrinking below about 1.6 (less in ties); from 3 up a game shrinks it."""
    for entry, rated in zip(entries, rate(entries, ranks, NOW), strict=True):
        assert rated.sigma < entry.sigma


@given(games)
def test_the_changes_weighted_by_the_prior_variances_sum_to_zero(game: tuple[list[Rating], list[int]]) -> None:
    """Sum over i of (mu_i' - mu_i) / sigma_i² is 0 (each C_q's chances sum to 1): with equal sigmas, mu is conserved."""
    entries, ranks = game
    after = rate(entries, ranks, NOW)
    weighted = [(a.mu - e.mu) / prior_sigma(e) ** 2 for e, a in zip(entries, after, strict=True)]
    assert math.fsum(weighted) == pytest.approx(0.0, abs=1e-12 * (1 + sum(abs(term) for term in weighted)))


@given(games, st.data())
def test_the_result_does_not_depend_on_the_order_of_the_entries(
    game: tuple[list[Rating], list[int]], data: st.DataObject
) -> None:
    entries, ranks = game
    before = rate(entries, ranks, NOW)
    order = data.draw(st.permutations(range(len(entries))))
    after = rate([entries[i] for i in order], [ranks[i] for i in order], NOW)
    assert list(after) == [before[i] for i in order]  # exactly, not approximately


@given(ratings, ratings, st.sampled_from([[1, 1, 3], [1, 2, 2], [2, 2, 1], [1, 1, 1]]))
def test_tied_equal_ratings_get_equal_updates(tied: Rating, other: Rating, ranks: list[int]) -> None:
    level = max(set(ranks), key=ranks.count)
    entries = [tied if rank == level else other for rank in ranks]
    after = rate(entries, ranks, NOW)
    assert len({after[i] for i, rank in enumerate(ranks) if rank == level}) == 1  # exactly equal


@given(
    st.lists(ratings, min_size=3, max_size=3),
    st.sampled_from([[1, 1, 3], [1, 3, 1], [3, 1, 1], [1, 2, 2], [2, 1, 2], [2, 2, 1], [1, 1, 1]]),
)
def test_a_tie_is_between_the_strict_results_it_stands_for(entries: list[Rating], ranks: list[int]) -> None:
    tied = rate(entries, ranks, NOW)
    stricts = [rate(entries, strict, NOW) for strict in strict_orders(ranks)]
    for i, rating in enumerate(tied):
        for value in ("mu", "sigma"):
            bounds = [getattr(result[i], value) for result in stricts]
            slack = 1e-12 * max(abs(b) for b in bounds)
            assert min(bounds) - slack <= getattr(rating, value) <= max(bounds) + slack, (i, value, bounds)
