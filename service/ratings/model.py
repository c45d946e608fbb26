"""Rating a finished game: openskill's Plackett-Luce model over the seats' finishing order."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from openskill.models import PlackettLuce

from .inactivity import current_sigma
from .parameters import BETA, KAPPA, MU_0, SIGMA_0, TAU

MOST_ENTRIES = 3  # a game of Coins has three seats
_MODEL = PlackettLuce(mu=MU_0, sigma=SIGMA_0, beta=BETA, kappa=KAPPA, tau=TAU)


@dataclass(frozen=True)
class Rating:
    """A player's rating: mean skill ``mu``, its uncertainty ``sigma``, and when it last changed (None: never)."""

    mu: float
    sigma: float
    rated_at: datetime | None


NEW_RATING = Rating(MU_0, SIGMA_0, None)


def rate(entries: Sequence[Rating], ranks: Sequence[int], now: datetime) -> tuple[Rating, ...]:
    """The new ratings of a rated game's entries, finishing at ``ranks`` (lower is better; equal ranks tie).

    Each sigma first grows by the entry's time away (:func:`current_sigma`), then by the per-game
    TAU, then the game's evidence updates mu and shrinks sigma. The result does not depend on the
    order in which the entries are given.
    """
    if len(entries) != len(ranks):
        raise ValueError(f"{len(entries)} entries but {len(ranks)} ranks")
    if not 2 <= len(entries) <= MOST_ENTRIES:
        raise ValueError(f"a rated game has 2 to {MOST_ENTRIES} entries, not {len(entries)}")
    for entry in entries:
        if not (math.isfinite(entry.mu) and math.isfinite(entry.sigma) and entry.sigma > 0):
            raise ValueError(f"a rating needs a finite mu and a positive sigma, not {entry}")
    priors = [(entry.mu, current_sigma(entry.sigma, entry.rated_at, now)) for entry in entries]
    return tuple(Rating(mu, sigma, now) for mu, sigma in _posteriors(priors, list(ranks)))


def _posteriors(priors: list[tuple[float, float]], ranks: list[int]) -> list[tuple[float, float]]:
    """The model's update, with a tie above another finisher taken as the mean of its strict orders.

    openskill passes ties to Weng & Lin's formulas (their A_q), which handle a tie among the last
    finishers well, but not a tie with someone below it: in 1, 1, 3 the third loses only about 40%
    of what it loses behind the same two in a strict order, and a tied player can end outside
    what its two strict places would give. Such a group is split into each of its strict orders,
    rated one by one, and the results averaged (mu and sigma): a tie is then always between the
    adjacent strict results. For three seats that is only a tie for first above a third.
    """
    levels = sorted(set(ranks))
    splits: list[list[list[int]]] = []
    for level in levels[:-1]:
        group = [i for i, rank in enumerate(ranks) if rank == level]
        splits.append([list(order) for order in itertools.permutations(group)] if len(group) > 1 else [group])
    last = [i for i, rank in enumerate(ranks) if rank == levels[-1]]
    results = []
    for chosen in itertools.product(*splits):
        strict = list(ranks)
        place = 0
        for order in chosen:
            for i in order:
                strict[i] = place
                place += 1
        for i in last:
            strict[i] = place  # the last group's tie stays a tie: the formulas' A_q handle it
        results.append(_library(priors, strict))
    if len(results) == 1:
        return results[0]
    return [
        (
            math.fsum(result[i][0] for result in results) / len(results),
            math.fsum(result[i][1] for result in results) / len(results),
        )
        for i in range(len(priors))
    ]


def _library(priors: list[tuple[float, float]], ranks: list[int]) -> list[tuple[float, float]]:
    """openskill's Plackett-Luce update, the entries handed over in one canonical order.

    openskill sorts the teams by rank but keeps the given order within a tie, and sums in the
    order of the teams: tied entries given in another order, and even two equal entries tied
    with each other, can come out different in the last bits. So the entries go in sorted by
    (rank, mu, sigma), and equal tied entries all take the first one's result: the result is a
    function of the entries, not of their order. (openskill 6.2 also means to give tied teams the
    mean of their mu changes, but that step compares each result with itself and changes nothing:
    ties follow the paper's formulas, which tests/ratings checks.)
    """
    keys = [(ranks[i], priors[i][0], priors[i][1]) for i in range(len(priors))]
    order = sorted(range(len(priors)), key=keys.__getitem__)
    teams = [[_MODEL.rating(mu=priors[i][0], sigma=priors[i][1])] for i in order]
    rated = _MODEL.rate(teams, ranks=[float(ranks[i]) for i in order])
    by_key: dict[tuple[int, float, float], tuple[float, float]] = {}
    for position, i in enumerate(order):
        by_key.setdefault(keys[i], (rated[position][0].mu, rated[position][0].sigma))
    return [by_key[key] for key in keys]
