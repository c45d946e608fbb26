"""Weng & Lin's Algorithm 4 (Plackett-Luce), written out from the paper to check service.ratings against.

Weng, R. C. and Lin, C.-J. (2011), "A Bayesian Approximation Method for Online Ranking", JMLR 12:
267-300, Algorithm 4, with openskill's additive dynamics (tau² added to each variance first) and
the paper's suggested gamma_q = sigma_q / c. Ranks: lower is better, equal ranks tie.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from service.ratings import BETA, KAPPA, TAU

Prior = tuple[float, float]  # (mu, sigma)


def algorithm_4(priors: Sequence[Prior], ranks: Sequence[int]) -> list[Prior]:
    """The posterior (mu, sigma) of each entry after a game finished at ``ranks``."""
    k = len(priors)
    variances = [sigma * sigma + TAU * TAU for _, sigma in priors]
    c = math.sqrt(sum(variance + BETA * BETA for variance in variances))
    strength = [math.exp(mu / c) for mu, _ in priors]
    # Over C_q = {s: r(s) >= r(q)}, those finishing level with q or behind it; A_q = |{s: r(s) = r(q)}|.
    c_sums = [sum(strength[s] for s in range(k) if ranks[s] >= ranks[q]) for q in range(k)]
    a = [sum(1 for s in range(k) if ranks[s] == ranks[q]) for q in range(k)]
    posteriors = []
    for i in range(k):
        omega = delta = 0.0
        for q in range(k):
            if ranks[q] <= ranks[i]:  # i is in C_q
                p = strength[i] / c_sums[q]
                omega += ((1.0 if q == i else 0.0) - p) / a[q]
                delta += p * (1.0 - p) / a[q]
        gamma = math.sqrt(variances[i]) / c
        omega *= variances[i] / c
        delta *= gamma * variances[i] / (c * c)
        mu = priors[i][0] + omega
        sigma = math.sqrt(variances[i] * max(1.0 - delta, KAPPA))
        posteriors.append((mu, sigma))
    return posteriors


def strict_orders(ranks: Sequence[int]) -> list[list[int]]:
    """Every strict finishing order (ranks 0, 1, 2, …) that breaks the ties of ``ranks``."""
    k = len(ranks)
    orders = []
    for finish in itertools.permutations(range(k)):
        if all(ranks[finish[n]] <= ranks[finish[n + 1]] for n in range(k - 1)):
            strict = [0] * k
            for place, i in enumerate(finish):
                strict[i] = place
            orders.append(strict)
    return orders


def mean_of_strict_orders(priors: Sequence[Prior], ranks: Sequence[int]) -> list[Prior]:
    """The mean (mu and sigma) of Algorithm 4 over every strict order that breaks the ties of ``ranks``."""
    results = [algorithm_4(priors, strict) for strict in strict_orders(ranks)]
    return [
        (
            sum(result[i][0] for result in results) / len(results),
            sum(result[i][1] for result in results) / len(results),
        )
        for i in range(len(priors))
    ]
