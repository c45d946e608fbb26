"""The rules that keep a rating from being farmed (service.ratings.fairness), as tables and properties:
leavers give nothing, uncertain opponents, the same opponents again and one address count less, and a
game the rules do not touch is the model's own update, to the last bit (Weng & Lin, tests/ratings/weng_lin.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.ratings import MU_0, NEW_RATING, SIGMA_0, TAU, Rating, rate
from service.ratings.fairness import (
    MIN_OPPONENTS,
    SHARED_ADDRESS_WEIGHT,
    Entry,
    counted_opponents,
    identities,
    listable,
    rate_game,
    weighted,
    weights,
)

from .weng_lin import algorithm_4

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
NEW = Rating(MU_0, SIGMA_0, NOW)
SETTLED = Rating(27.0, 2.0, NOW)


def person(name: str, place: int, *, rating: Rating = NEW, left: bool = False, address: str | None = None) -> Entry:
    return Entry(rating, place, left, False, identities(name, [address or f"home-of-{name}"]))


def bot(name: str, place: int, *, rating: Rating = SETTLED) -> Entry:
    return Entry(rating, place, False, True, identities(name))


def none_earlier(entries: list[Entry]) -> list[list[frozenset[str]]]:
    return [[] for _ in entries]


def test_strangers_who_stay_are_the_models_own_update_to_the_last_bit() -> None:
    """Three newcomers from three addresses, none met before: weight 1, and Algorithm 4 exactly."""
    entries = [person("ana", 1), person("bo", 2), person("cy", 3)]
    rated = rate_game(entries, none_earlier(entries), NOW)
    assert [entry.weight for entry in rated] == [1.0, 1.0, 1.0]
    assert [r.rating for r in rated] == list(rate([NEW] * 3, [1, 2, 3], NOW))
    expected = algorithm_4([(MU_0, SIGMA_0)] * 3, [1, 2, 3])
    assert [(r.rating.mu, r.rating.sigma) for r in rated] == [pytest.approx(pair, rel=1e-12) for pair in expected]


@pytest.mark.parametrize(
    ("left", "expected_weights"),
    [
        ((), (1.0, 1.0, 1.0)),
        ((2,), (1.0, 1.0, 1.0)),  # the two who stayed are rated against each other; the leaver against both
        ((1, 2), (0.0, 1.0, 1.0)),  # the one who stayed has nobody to be rated against
    ],
)
def test_a_leaver_gives_nobody_points(left: tuple[int, ...], expected_weights: tuple[float, ...]) -> None:
    places = [1, 2, 3] if len(left) < 2 else [1, 2, 2]
    entries = [person(name, places[i], left=i in left) for i, name in enumerate(("ana", "bo", "cy"))]
    rated = rate_game(entries, none_earlier(entries), NOW)
    assert tuple(r.weight for r in rated) == expected_weights
    full = rate([NEW] * 3, places, NOW)
    for i in left:  # a leaver's loss is the whole order's
        assert rated[i].rating == full[i] and rated[i].rating.mu < MU_0
    if len(left) == 1:  # the two who stayed: their order between them, as a game of two
        assert [rated[0].rating, rated[1].rating] == list(rate([NEW, NEW], [1, 2], NOW))
    if len(left) == 2:  # the winner among leavers gains nothing, and loses no certainty either
        assert (rated[0].rating.mu, rated[0].rating.sigma) == (MU_0, SIGMA_0)


def test_an_uncertain_opponent_moves_a_settled_rating_little() -> None:
    """Glicko's weighting of an uncertain opponent, relative to the player's own: (sigma_me / sigma_them)²."""
    entries = [person("settled", 3, rating=SETTLED), person("new1", 1), person("new2", 2)]
    rated = rate_game(entries, none_earlier(entries), NOW)
    share = (2.0 / SIGMA_0) ** 2
    assert rated[0].weight == pytest.approx(share)  # about 0.06
    assert rated[1].weight == rated[2].weight == 1.0  # a newcomer learns fully from anyone
    plain = rate([SETTLED, NEW, NEW], [3, 1, 2], NOW)[0]
    assert SETTLED.mu - rated[0].rating.mu == pytest.approx(share * (SETTLED.mu - plain.mu))


def test_one_address_counts_a_tenth() -> None:
    entries = [person("ana", 1, address="home"), person("bo", 2, address="home"), person("cy", 3)]
    got = weights(entries, none_earlier(entries))
    assert got == pytest.approx(((SHARED_ADDRESS_WEIGHT + 1) / 2, (SHARED_ADDRESS_WEIGHT + 1) / 2, 1.0))
    assert counted_opponents(entries, 0) == [2] and counted_opponents(entries, 2) == [0, 1]


def test_the_same_opponents_again_within_a_day_count_less() -> None:
    """The n-th earlier game against a player, or a player of one of their addresses, makes the pair count 1 / (1 + n)."""
    entries = [person("ana", 1), person("bo", 2), person("cy", 3)]
    bo, cy = entries[1].who, entries[2].who
    earlier_for_ana = [
        bo | cy,
        bo | cy,
        frozenset(identities("dan", ["home-of-bo"])),
    ]  # bo twice, bo's address once more
    got = weights(entries, [earlier_for_ana, [], []])
    assert got[0] == pytest.approx((1 / 4 + 1 / 3) / 2)
    assert got[1:] == (1.0, 1.0)  # what Ana met is hers: Bo and Cy met nobody before


def test_bots_are_neither_an_address_nor_met_too_often() -> None:
    entries = [person("ana", 1, rating=SETTLED), bot("random", 2), bot("expert", 3)]
    met = [[entries[1].who | entries[2].who] * 5, [], []]
    assert weights(entries, met)[0] == 1.0  # settled against settled bots, however often


def test_the_farm_of_issue_31_gains_little() -> None:
    """A farmer who wins 90 games a day against two accounts made from the farmer's address (the bench's
    attack, where the accounts play on): a few rating points, never the hundreds the model alone gives."""
    farmer, accounts = NEW, [NEW, NEW]
    names = ("farmer", "a", "b")
    history: list[list[frozenset[str]]] = [[], [], []]
    plain_farmer = NEW
    plain_accounts = [NEW, NEW]
    for _ in range(90):
        entries = [
            Entry(rating, place, who=identities(name, ["attacker"]))
            for name, rating, place in zip(names, (farmer, *accounts), (1, 2, 3), strict=True)
        ]
        rated = rate_game(entries, history, NOW)
        for i in range(3):
            history[i].append(frozenset().union(*(entries[j].who for j in range(3) if j != i)))
        farmer, accounts = rated[0].rating, [rated[1].rating, rated[2].rating]
        plain_farmer, *plain_accounts = rate([plain_farmer, *plain_accounts], [1, 2, 3], NOW)
    assert 24 * (farmer.mu - MU_0) < 50  # on the display scale
    assert 24 * (plain_farmer.mu - MU_0) > 500  # what the model alone would have given


@given(st.floats(0.0, 1.0), st.floats(10.0, 40.0), st.floats(0.5, SIGMA_0), st.floats(-5.0, 5.0), st.floats(0.5, 1.0))
def test_a_weighted_update_lies_between_no_game_and_the_whole_game(
    weight: float, mu: float, sigma: float, move: float, kept: float
) -> None:
    prior = Rating(mu, sigma, NOW)
    posterior = Rating(mu + move, (sigma**2 + TAU**2) ** 0.5 * kept, NOW)
    got = weighted(prior, posterior, weight, NOW)
    assert min(mu, mu + move) - 1e-9 <= got.mu <= max(mu, mu + move) + 1e-9
    assert got.sigma <= (sigma**2 + weight * TAU**2) ** 0.5 + 1e-12
    assert weighted(prior, posterior, 1.0, NOW) is posterior
    assert (weighted(prior, posterior, 0.0, NOW).mu, weighted(prior, posterior, 0.0, NOW).sigma) == (mu, sigma)


@pytest.mark.parametrize(
    ("bot_player", "opponents", "barred", "deleted", "expected"),
    [
        (True, 0, False, False, True),
        (False, MIN_OPPONENTS - 1, False, False, False),
        (False, MIN_OPPONENTS, False, False, True),
        (False, MIN_OPPONENTS, True, False, False),
        (False, MIN_OPPONENTS, False, True, False),
    ],
)
def test_who_the_leaderboard_may_list(
    bot_player: bool, opponents: int, barred: bool, deleted: bool, expected: bool
) -> None:
    assert listable(bot=bot_player, opponents=opponents, barred=barred, deleted=deleted) is expected


def test_time_away_is_counted_before_the_rules() -> None:
    """An entry's rating as it comes (rated a year ago) has its sigma grown first, as rate does."""
    away = Rating(27.0, 2.0, datetime(2025, 3, 1, tzinfo=UTC))
    entries = [person("ana", 1, rating=away), person("bo", 2, rating=NEW_RATING), person("cy", 3, rating=NEW_RATING)]
    rated = rate_game(entries, none_earlier(entries), NOW)
    assert rated[0].rating.sigma > 2.0
