"""What a rated game is worth to each of its entries: whom they are rated against, and how much it counts.

Plackett-Luce (:func:`.rate`) takes a finishing order as it comes. Four rules keep a rating from
being farmed with accounts that lose on purpose (docs/ratings.md, "Farming"):

- **Leavers give nothing.** A player who left is rated last against everyone (their loss stands),
  but the others are rated by their order among those who stayed: nobody gains from an opponent who
  walked away. A player left alone with leavers is not moved at all.
- **Uncertain opponents count less**, as Glicko weighs an opponent by its rating deviation, here
  relative to the player's own: an opponent tells a player at most ``(sigma_player / sigma_opponent)²``
  of a game (capped at 1). A settled rating (sigma about 2) moves some 6% of a game against a newcomer
  (sigma 25/3); a newcomer learns fully from anyone.
- **The same opponents again within a day count less**: the n-th earlier rated game within
  :data:`MEETING_WINDOW` against the same player, or a player sharing one of their addresses, makes
  the pair count ``1 / (1 + n)``.
- **One address counts less**: two players who share an address (the one they joined or queued
  from, or the one that created either account) count :data:`SHARED_ADDRESS_WEIGHT` of a game to
  each other. Bots have no address and play everyone, so neither rule applies to them.

An entry's **weight** is the mean of its pair weights over its opponents (those it is rated
against), from 0 to 1; the game's change of its rating is scaled by it (:func:`weighted`): a weight
of 1 is the model's own update, to the last bit, and a weight of 0 changes nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from .inactivity import current_sigma
from .model import Rating, rate
from .parameters import TAU

__all__ = [
    "ADDRESS",
    "MEETING_WINDOW",
    "MIN_OPPONENTS",
    "PLAYER",
    "SHARED_ADDRESS_WEIGHT",
    "Entry",
    "Rated",
    "counted_opponents",
    "identities",
    "listable",
    "rate_game",
    "weighted",
    "weights",
]

MEETING_WINDOW = timedelta(hours=24)
SHARED_ADDRESS_WEIGHT = 0.1
# The leaderboard lists a person (ranked or rising) once they have met this many distinct opponents
# who shared no address with them, in rated games (bots count, each strength as one). The three
# players of a game are two opponents each: a third needs a second table, and three accounts of one
# person, however often they play one another, never list one of them.
MIN_OPPONENTS = 3

PLAYER = "player:"  # the kinds of an identity: a player's id, and an address's keyed hash
ADDRESS = "address:"


def identities(player_id: str, addresses: Sequence[str | None] = ()) -> frozenset[str]:
    """Who an entry is, for the rules: its player, and the keyed hashes of its addresses (None: unknown)."""
    return frozenset([PLAYER + player_id, *(ADDRESS + address for address in addresses if address)])


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of a rated game as the rules see it: its rating as the game starts (sigma grown by
    the time away), its place (lower is better), whether its player left, whether it is a bot, and its
    :func:`identities`."""

    rating: Rating
    place: int
    left: bool = False
    bot: bool = False
    who: frozenset[str] = frozenset()

    @property
    def addresses(self) -> frozenset[str]:
        return frozenset(identity for identity in self.who if identity.startswith(ADDRESS))


@dataclass(frozen=True, slots=True)
class Rated:
    """An entry's rating after the game, and how much the game counted for it (0 to 1)."""

    rating: Rating
    weight: float


def opponents_of(entries: Sequence[Entry], i: int) -> list[int]:
    """Whom entry ``i`` is rated against: everyone else if it left, else the others who stayed."""
    return [j for j in range(len(entries)) if j != i and (entries[i].left or not entries[j].left)]


def pair_weight(me: Entry, other: Entry, earlier: Sequence[frozenset[str]]) -> float:
    """How much ``other`` counts as an opponent of ``me`` (see the module's docstring); ``earlier``:
    the identities of ``me``'s person opponents in each of its rated games of the last day."""
    weight = min(1.0, (me.rating.sigma / other.rating.sigma) ** 2)
    if me.bot or other.bot:
        return weight
    if me.addresses & other.addresses:
        weight *= SHARED_ADDRESS_WEIGHT
    met = sum(1 for opponents in earlier if opponents & other.who)
    return weight / (1 + met)


def weights(entries: Sequence[Entry], earlier: Sequence[Sequence[frozenset[str]]]) -> tuple[float, ...]:
    """Each entry's weight: the mean of its pair weights over the opponents it is rated against (0 without any)."""
    result = []
    for i, entry in enumerate(entries):
        opponents = opponents_of(entries, i)
        pairs = [pair_weight(entry, entries[j], earlier[i]) for j in opponents]
        result.append(math.fsum(pairs) / len(pairs) if pairs else 0.0)
    return tuple(result)


def counted_opponents(entries: Sequence[Entry], i: int) -> list[int]:
    """The opponents of entry ``i`` that count towards the leaderboard's floor: those it is rated
    against that share no address with it."""
    return [j for j in opponents_of(entries, i) if not entries[i].addresses & entries[j].addresses]


def listable(*, bot: bool, opponents: int, barred: bool, deleted: bool) -> bool:
    """Whether the leaderboard may list a player (ranked once settled, else rising), asked as a rated
    result is applied, or a bar lifted: a bot always (one that has played no rated game is not
    listable: migration 0022); a person once they have met :data:`MIN_OPPONENTS` distinct
    opponents, unless an operator barred them from rated play or their account is deleted."""
    return bot or (opponents >= MIN_OPPONENTS and not barred and not deleted)


def rate_game(
    entries: Sequence[Entry], earlier: Sequence[Sequence[frozenset[str]]], now: datetime
) -> tuple[Rated, ...]:
    """Every entry's new rating and weight. ``earlier[i]``: for entry ``i``, the identities of its
    person opponents in each of its rated games of the last :data:`MEETING_WINDOW` (none for a bot).

    Leavers are rated last by the whole order; those who stayed, by their order among themselves.
    """
    if len(earlier) != len(entries):
        raise ValueError(f"{len(entries)} entries but {len(earlier)} lists of earlier games")
    priors = [Rating(e.rating.mu, current_sigma(e.rating.sigma, e.rating.rated_at, now), now) for e in entries]
    entries = [replace(entry, rating=prior) for entry, prior in zip(entries, priors, strict=True)]
    places = [entry.place for entry in entries]
    posteriors = list(rate(priors, places, now))
    stayed = [i for i, entry in enumerate(entries) if not entry.left]
    if 0 < len(stayed) < len(entries):
        among = rate([priors[i] for i in stayed], [places[i] for i in stayed], now) if len(stayed) > 1 else None
        for k, i in enumerate(stayed):
            posteriors[i] = among[k] if among is not None else priors[i]
    return tuple(
        Rated(weighted(prior, posterior, weight, now), weight)
        for prior, posterior, weight in zip(priors, posteriors, weights(entries, earlier), strict=True)
    )


def weighted(prior: Rating, posterior: Rating, weight: float, now: datetime) -> Rating:
    """The game's update of ``prior`` to ``posterior`` counted ``weight`` (0 to 1) of a game.

    The mean moves ``weight`` of the way; the variance grows by ``weight · TAU²`` (the per-game
    dynamics) and shrinks by ``weight`` of the factor the game shrank it by. A weight of 1 is the
    posterior itself; 0 the prior (rated at ``now``: time away counts from this game on).
    """
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"a weight is from 0 to 1, not {weight}")
    if weight == 1.0:
        return posterior
    variance = prior.sigma**2
    shrink = posterior.sigma**2 / (variance + TAU**2)  # the factor the whole game kept of the variance
    mu = prior.mu + weight * (posterior.mu - prior.mu)
    sigma = math.sqrt((variance + weight * TAU**2) * (1.0 - weight * (1.0 - shrink)))
    return Rating(mu, sigma, now)
