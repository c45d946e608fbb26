"""The rules of matchmaking: which waiting tickets make a game together, and which have expired.

Pure functions over the tickets one wave read (no store, no clock of their own):

- **groups**: only tickets of one ``(target_score, rated, turn_timeout_seconds)`` are matched together;
- **closest ratings first**: within a group the tickets are ordered by rating (``mu``), and of
  every three neighbours the three closest together are matched first, if the gap between the
  highest and lowest of them (in ``mu``) is at most :func:`allowed_gap` of the waiting time of
  the longest-waiting of the three; then the next closest, until no three are close enough;
- **the gap widens** with waiting time: :data:`GAP_AT_START` at once, :data:`GAP_PER_SECOND`
  more each second, and unbounded once the longest-waiting has waited the window (60 s at most):
  then any three tickets of a group match;
- **bots**: a ticket left unmatched that has waited its ``bots_after`` seconds is completed with
  bots, together with its closest neighbour of the group in the same case if the two are within
  the gap (one bot), else alone (two bots). A neighbour within the gap whose own ``bots_after``
  comes within :data:`PARTNER_GRACE_SECONDS` is waited for (it may have bots only once it has waited
  them): two people who queued a moment apart share a table with one bot, rather than each sit
  with two. The bots are the bot players whose ratings are closest
  to the humans' (their mean): always of different strengths (each strength is one player, and a
  rated game rates each player once), and never the ``random`` bot in a rated game (beating a bot
  that plays at random says nothing of a player's skill, yet it moved ratings by tens of points);
- **expiry**: a ticket not seen (read by its player, or touched by their feed) for
  ``expire_seconds`` is expired, and matched with nobody.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from ..games.ids import new_game_id
from ..games.leaving import CORRESPONDENCE_SECONDS
from ..store import MatchedSeat, StoredPlayer, StoredTicket

__all__ = [
    "CORRESPONDENCE_TICKET_SECONDS",
    "EXPIRE_SECONDS",
    "GAP_AT_START",
    "GAP_PER_SECOND",
    "PARTNER_GRACE_SECONDS",
    "UNRATED_ONLY_BOTS",
    "WINDOW_SECONDS",
    "Match",
    "Plan",
    "allowed_gap",
    "due_for_bots",
    "lifetime",
    "plan_wave",
]

GAP_AT_START = 2.0  # in mu (a new player: mu 25, sigma 25/3): about a quarter of a new player's sigma
GAP_PER_SECOND = 0.5  # in mu, for each second the longest-waiting of three has waited
WINDOW_SECONDS = 60.0  # after this long any three tickets of a group match (the contract's "at most 60 s")
EXPIRE_SECONDS = 30.0  # a ticket not seen for this long expires
# A ticket due for bots waits at most this much longer for a neighbour about to be due too: a wait of seconds
# beside a person, against a table of two bots (the waves run on every pass of the worker while tickets wait).
PARTNER_GRACE_SECONDS = 10.0
CORRESPONDENCE_TICKET_SECONDS = 24 * 60 * 60.0  # a correspondence game's ticket lives a day unread (contract 1.3)
UNRATED_ONLY_BOTS = frozenset({"random"})  # bots that never complete a rated table


def allowed_gap(waited_seconds: float, window_seconds: float = WINDOW_SECONDS) -> float:
    """The largest rating gap (in ``mu``, highest minus lowest) allowed between three tickets
    whose longest-waiting has waited ``waited_seconds``: linear from :data:`GAP_AT_START`, by
    :data:`GAP_PER_SECOND`, and unbounded from ``window_seconds`` on."""
    if waited_seconds >= window_seconds:
        return math.inf
    return GAP_AT_START + GAP_PER_SECOND * max(0.0, waited_seconds)


@dataclass(frozen=True, slots=True)
class Match:
    """Three seats for a new game: its id (chosen now, before anything is stored), its options,
    its lineup (seat by seat), and which ticket sits where (bots hold no ticket)."""

    game_id: str
    target_score: int
    rated: bool
    turn_timeout_seconds: int
    lineup: tuple[MatchedSeat, MatchedSeat, MatchedSeat]
    tickets: tuple[tuple[str, int], ...]  # (ticket id, seat)

    @property
    def players(self) -> tuple[str, ...]:
        """The players (not bots) the match seats, by seat."""
        seated = {seat for _, seat in self.tickets}
        return tuple(self.lineup[seat].player for seat in sorted(seated))


@dataclass(frozen=True, slots=True)
class Plan:
    """What one wave does: the tickets it expires and the games it makes."""

    expired: tuple[str, ...]
    matches: tuple[Match, ...]

    def __bool__(self) -> bool:
        return bool(self.expired or self.matches)


def plan_wave(
    tickets: Sequence[StoredTicket],
    bots: Sequence[StoredPlayer],
    now: datetime,
    *,
    window_seconds: float = WINDOW_SECONDS,
    expire_seconds: float = EXPIRE_SECONDS,
    rng: random.Random | None = None,
) -> Plan:
    """The wave's plan for these waiting tickets (see the module's docstring); ``bots``: the bot
    players to complete tables with; ``rng`` shuffles each table's seats."""
    rng = rng or random.Random()
    expired = [t.id for t in tickets if (now - t.seen_at).total_seconds() > lifetime(t, expire_seconds)]
    gone = set(expired)
    groups: dict[tuple[int, bool, int], list[StoredTicket]] = {}
    for ticket in tickets:
        if ticket.id not in gone and ticket.status == "waiting":
            groups.setdefault((ticket.target_score, ticket.rated, ticket.turn_timeout_seconds), []).append(ticket)
    matches: list[Match] = []
    for kind, group in sorted(groups.items()):
        group.sort(key=lambda t: (t.mu, t.created_at, t.id))
        for three in _closest_threes(group, now, window_seconds):
            matches.append(_match(kind, three, (), rng))
        rated = kind[1]
        fit = [bot for bot in bots if not (rated and bot.bot in UNRATED_ONLY_BOTS)]
        for humans in _bot_tables(group, now, window_seconds):
            chosen = _bots_for(humans, fit)
            if chosen is not None:
                matches.append(_match(kind, humans, chosen, rng))
    return Plan(tuple(expired), tuple(matches))


def lifetime(ticket: StoredTicket, expire_seconds: float) -> float:
    """How long ``ticket`` lives unread: ``expire_seconds``, or a day for a correspondence game's
    (a clock of :data:`CORRESPONDENCE_SECONDS` or more: its player need not keep a page open)."""
    return CORRESPONDENCE_TICKET_SECONDS if ticket.turn_timeout_seconds >= CORRESPONDENCE_SECONDS else expire_seconds


def due_for_bots(tickets: Iterable[StoredTicket], now: datetime) -> bool:
    """Whether a ticket has waited its ``bots_after``: only then does a wave need the bot players."""
    return any(t.bots_after is not None and _waited(t, now) >= t.bots_after for t in tickets)


def _waited(ticket: StoredTicket, now: datetime) -> float:
    return (now - ticket.created_at).total_seconds()


def _gap_allows(tickets: Sequence[StoredTicket], now: datetime, window_seconds: float) -> bool:
    spread = max(t.mu for t in tickets) - min(t.mu for t in tickets)
    return spread <= allowed_gap(max(_waited(t, now) for t in tickets), window_seconds)


def _closest_threes(group: list[StoredTicket], now: datetime, window: float) -> Iterable[list[StoredTicket]]:
    """Take out of ``group`` (sorted by rating) the threes of neighbours the gap allows, closest first."""
    while len(group) >= 3:
        allowed = [
            (group[i + 2].mu - group[i].mu, i)
            for i in range(len(group) - 2)
            if _gap_allows(group[i : i + 3], now, window)
        ]
        if not allowed:
            return
        _, first = min(allowed)
        three = group[first : first + 3]
        del group[first : first + 3]
        yield three


def _bot_tables(group: list[StoredTicket], now: datetime, window: float) -> Iterable[list[StoredTicket]]:
    """The humans of each table bots complete: tickets that have waited their ``bots_after``, in
    pairs of neighbours the gap allows, else alone unless such a neighbour is due within
    :data:`PARTNER_GRACE_SECONDS` (then it waits for it); oldest first."""
    due = sorted(
        (t for t in group if t.bots_after is not None and _waited(t, now) >= t.bots_after),
        key=lambda t: (t.created_at, t.id),
    )
    soon = [
        t for t in group if t.bots_after is not None and 0 < t.bots_after - _waited(t, now) <= PARTNER_GRACE_SECONDS
    ]
    taken: set[str] = set()
    for ticket in due:
        if ticket.id in taken:
            continue
        partners = [t for t in due if t.id not in taken and t.id != ticket.id and _gap_allows((ticket, t), now, window)]
        partner = min(partners, key=lambda t: abs(t.mu - ticket.mu), default=None)
        if partner is None and any(_gap_allows((ticket, t), now, window) for t in soon):
            continue  # a person about to be due: a table of two with one bot at a later wave
        humans = [ticket] if partner is None else [ticket, partner]
        taken.update(t.id for t in humans)
        yield humans


def _bots_for(humans: Sequence[StoredTicket], bots: Sequence[StoredPlayer]) -> list[StoredPlayer] | None:
    """The bots (of different strengths) whose ratings are closest to the humans' mean; None if too few."""
    needed = 3 - len(humans)
    mean = sum(t.mu for t in humans) / len(humans)
    chosen = sorted(bots, key=lambda bot: (abs(bot.mu - mean), bot.id))[:needed]
    return chosen if len(chosen) == needed else None


def _match(
    kind: tuple[int, bool, int], humans: Sequence[StoredTicket], bots: Sequence[StoredPlayer], rng: random.Random
) -> Match:
    entries: list[tuple[StoredTicket | None, MatchedSeat]] = [
        (t, MatchedSeat(t.player_id, t.name, None, t.address_hash)) for t in humans
    ]
    entries += [(None, MatchedSeat(bot.id, bot.name, bot.bot)) for bot in bots]
    rng.shuffle(entries)
    lineup = (entries[0][1], entries[1][1], entries[2][1])
    seats = tuple((ticket.id, seat) for seat, (ticket, _) in enumerate(entries) if ticket is not None)
    target, rated, clock = kind
    return Match(new_game_id(), target, rated, clock, lineup, seats)
