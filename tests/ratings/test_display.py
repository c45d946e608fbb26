"""The display scale, the provisional rule and the growth of sigma with time away."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.ratings import (
    DISPLAY_BASE,
    DISPLAY_SCALE,
    MIN_RATED_GAMES,
    MU_0,
    NEW_RATING,
    SIGMA_0,
    SIGMA_PROVISIONAL,
    TAU_PER_DAY,
    current_sigma,
    display,
    provisional_from,
)

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def test_a_newcomer_shows_1500_provisional() -> None:
    assert display(NEW_RATING.mu, NEW_RATING.sigma, 0) == (1500, True)
    assert DISPLAY_BASE == 1500


@pytest.mark.parametrize(
    ("mu", "sigma", "games", "shown"),
    [
        (MU_0, 2.0, MIN_RATED_GAMES, (1500, False)),
        (MU_0 + 1, 2.0, 40, (1500 + DISPLAY_SCALE, False)),
        (MU_0 - 400 / DISPLAY_SCALE, 2.0, 40, (1100, False)),
        (31.25, 3.0, 40, (1650, False)),
        (MU_0, 2.0, MIN_RATED_GAMES - 1, (1500, True)),  # too few games, however certain
        (MU_0, SIGMA_PROVISIONAL + 0.01, 500, (1500, True)),  # too uncertain, however many games
        (MU_0, SIGMA_PROVISIONAL, 500, (1500, False)),
    ],
)
def test_display(mu: float, sigma: float, games: int, shown: tuple[int, bool]) -> None:
    assert display(mu, sigma, games) == shown


def test_the_scale_maps_400_points_to_ten_to_one_between_settled_players() -> None:
    """1 / (1 + exp(-(mu_a - mu_b) / c)) with c = sqrt(3) · beta, against Elo's 1 / (1 + 10^(-400/400))."""
    from service.ratings import BETA

    c = math.sqrt(3) * BETA
    gap = 400 / DISPLAY_SCALE
    assert 1 / (1 + math.exp(-gap / c)) == pytest.approx(10 / 11, abs=0.003)


@pytest.mark.parametrize(
    ("sigma", "days", "grown"),
    [
        (2.0, 0.0, 2.0),
        (2.0, 1.0, math.sqrt(4 + TAU_PER_DAY**2)),
        (1.6, 30.0, math.sqrt(1.6**2 + 30 * TAU_PER_DAY**2)),
        (1.6, 10_000.0, SIGMA_0),  # never beyond a newcomer's uncertainty
        (SIGMA_0, 5.0, SIGMA_0),
    ],
)
def test_current_sigma_grows_with_the_days_away(sigma: float, days: float, grown: float) -> None:
    assert current_sigma(sigma, NOW - timedelta(days=days), NOW) == pytest.approx(grown)


def test_current_sigma_of_a_rating_never_rated_or_rated_after_now() -> None:
    assert current_sigma(SIGMA_0, None, NOW) == SIGMA_0
    assert current_sigma(2.0, NOW + timedelta(hours=1), NOW) == 2.0  # a clock stepped back: no growth


def test_a_settled_player_turns_provisional_after_about_ten_months_away() -> None:
    moment = provisional_from(1.6, NOW, 100)
    assert moment is not None
    assert 280 < (moment - NOW).days < 320


@pytest.mark.parametrize(("sigma", "games"), [(SIGMA_PROVISIONAL + 0.1, 100), (2.0, MIN_RATED_GAMES - 1)])
def test_provisional_from_is_none_for_a_rating_already_provisional(sigma: float, games: int) -> None:
    assert provisional_from(sigma, NOW, games) is None
    assert provisional_from(2.0, None, 100) is None


@given(
    st.floats(min_value=0.5, max_value=SIGMA_PROVISIONAL - 0.01),
    st.integers(min_value=MIN_RATED_GAMES, max_value=10_000),
    st.floats(min_value=0.0, max_value=3000.0),
)
def test_provisional_from_agrees_with_display_of_the_current_sigma(sigma: float, games: int, days: float) -> None:
    moment = provisional_from(sigma, NOW, games)
    assert moment is not None
    later = NOW + timedelta(days=days)
    provisional = display(MU_0, current_sigma(sigma, NOW, later), games).provisional
    if later < moment - timedelta(seconds=1):
        assert not provisional
    elif later > moment + timedelta(seconds=1):
        assert provisional
