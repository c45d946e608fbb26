"""Applying rated games' results to the players' ratings: once each, right after the game ends, without a hot row.

The change that finishes a rated game records its result, keyed by the game (:func:`.seats.record_result`),
pending; it writes nothing on the players. The worker role applies the pending results
(:meth:`RatingApplier.apply_pending`), within a moment of the commit. Two steps, each a
short transaction of its own (the locks are :mod:`service.store.ratings`'):

1. **The game**: its pending result, locked (another process applying it: left to that one); the
   persons' rows locked in id order; the bots' rows read as they stand; each person's rated games of
   the last day (who sat in them, and from where). The game is rated by the rules that keep a rating
   from being farmed (:func:`service.ratings.fairness.rate_game`: leavers give nothing, uncertain
   opponents, the same opponents again and one address count less); each person's new rating,
   distinct opponents and history row (with the game's weight) are written, each bot's history row
   as pending, and the result marked applied. The history's key (player, game) makes a second
   application impossible. What the applied result owes the players' feeds (``game_result``) is
   written to the game's outbox in the same transaction (the ``on_applied`` callback): a process
   that dies after the commit loses none of it.
2. **Each bot of the game**: whoever first locks the bot's row (``SKIP LOCKED``; the others go on)
   completes every pending row of that bot in finishing order, each rated against the persons'
   ratings that game started from, and writes the bot's rating once. It then looks again after
   its commit, so a game whose step 2 found the row held is never left behind.

So the bots' rows, which every rated game with a bot would otherwise queue on, are written once per
batch, not once per game; and the persons of a game are rated against a bot's rating as it stands.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import datetime

from ..store import RatingStore, RatingTransaction, StoredEntry, StoredHistory, StoredPlayer, StoredResult
from . import Rating, current_sigma, provisional_from
from .fairness import MEETING_WINDOW, Entry, counted_opponents, identities, listable, rate_game

__all__ = ["AppliedResult", "OnApplied", "RatingApplier", "RatingChange", "result_applied"]

log = logging.getLogger(__name__)

BOT_BATCH = 25  # a bot's pending rows completed in one transaction: short, so each commits soon
BOT_PASSES = 50  # batches one call makes at most (then the next call, or the catch-up, goes on)
PENDING_LIMIT = 20  # results one call of apply_pending applies at most


class AlreadyApplied(Exception):
    """A game's history rows were there already: the transaction rolls back (it was applied once)."""


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One seat's player's rating change in an applied result (mu and sigma before and after)."""

    player_id: str
    seat: int
    place: int
    score: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    games_after: int


@dataclass(frozen=True, slots=True)
class AppliedResult:
    """A rated game's result as applied: its persons' rating changes (bots' follow in their batches)."""

    game_id: str
    finished_at: datetime
    changes: tuple[RatingChange, ...]


OnApplied = Callable[[AppliedResult, RatingTransaction], None]


def result_applied(applied: AppliedResult, tx: RatingTransaction) -> None:
    """Called as a rated game's result is applied to its persons' ratings, in the transaction that
    applies it (``tx``): the place for what the result owes others, written with it (the player
    feeds' ``game_result``: places, scores, each rating change). Raising undoes the application."""
    log.info("rated game %s applied to %d player(s)", applied.game_id, len(applied.changes))


class RatingApplier:
    """Applies rated games' results (see the module's docstring) on one store's ratings."""

    def __init__(
        self,
        ratings: RatingStore,
        clock: Callable[[], datetime],
        on_applied: OnApplied = result_applied,
    ) -> None:
        self._ratings = ratings
        self._clock = clock
        self._on_applied = on_applied

    def apply(self, game_ids: Iterable[str]) -> None:
        """Apply these games' results (those still pending), then their bots' batches. Never raises:
        a failure is logged, and the result stays pending for the catch-up."""
        bots: set[str] = set()
        for game_id in game_ids:
            try:
                bots.update(self.apply_result(game_id))
            except Exception as error:
                log.warning("could not apply the result of game %s: %s", game_id, type(error).__name__)
        for bot in sorted(bots):
            try:
                self.apply_bot(bot)
            except Exception as error:
                log.warning("could not apply the pending games of bot player %s: %s", bot, type(error).__name__)

    def apply_pending(self) -> int:
        """Apply the pending results (a few at a time, oldest first), then the bots' rows left
        pending (a process stopped between the two steps): two indexed reads when none is. How
        many results were pending (0: nothing owed to the feeds since)."""
        now = self._clock()
        pending = self._ratings.pending_results(finished_before=now, limit=PENDING_LIMIT)
        self.apply(pending)
        for bot in self._ratings.pending_bots(finished_before=now):
            self.apply_bot(bot)
        return len(pending)

    def apply_result(self, game_id: str) -> list[str]:
        """Step 1 for one game (see the module's docstring); the bot players left to step 2."""
        now = self._clock()
        try:
            with self._ratings.transaction() as tx:
                result = tx.claim_result(game_id)
                if result is None:
                    return []  # applied, or being applied by another process
                applied = _apply(tx, result, now)
                self._on_applied(applied, tx)
        except AlreadyApplied:
            return []
        return sorted({entry.player for entry in result.entries if entry.bot})

    def apply_bot(self, bot_id: str) -> None:
        """Step 2: complete the bot's pending rows, a batch per transaction, until none is left or
        another process holds the bot's row (it then looks again after its own commit)."""
        for _ in range(BOT_PASSES):
            with self._ratings.transaction() as tx:
                bot = tx.lock_bot(bot_id)
                if bot is None:
                    return
                pending = tx.pending_of(bot_id, limit=BOT_BATCH)
                if not pending:
                    return
                _apply_bot_batch(tx, bot, pending, self._clock())


def _apply(tx: RatingTransaction, result: StoredResult, now: datetime) -> AppliedResult:
    """Rate one game: the persons' ratings and history written, the bots' rows pending, the result applied."""
    entries = result.entries
    persons = tx.lock_players([entry.player for entry in entries if not entry.bot])
    players = {**tx.players([entry.player for entry in entries if entry.bot]), **persons}
    at = result.finished_at
    recent = {
        entry.player: [
            earlier
            for earlier in tx.recent_results(entry.player, since=at - MEETING_WINDOW, until=at)
            if earlier.game_id != result.game_id
        ]
        for entry in entries
        if not entry.bot
    }
    met = {other.player for results in recent.values() for earlier in results for other in earlier.entries}
    known = {**tx.players(met - players.keys()), **players}
    rules = [
        Entry(_prior(players[entry.player], at), entry.place, entry.left, entry.bot, _who(entry, known))
        for entry in entries
    ]
    earlier = [
        [
            frozenset().union(*(_who(other, known) for other in game.entries if other.player != entry.player))
            for game in recent.get(entry.player, [])
        ]
        for entry in entries
    ]
    rated_entries = rate_game(rules, earlier, at)
    history, changes = [], []
    for index, (entry, rule, rated_entry) in enumerate(zip(entries, rules, rated_entries, strict=True)):
        player, prior, posterior = players[entry.player], rule.rating, rated_entry.rating
        done = not entry.bot
        history.append(
            StoredHistory(
                player.id, result.game_id, at, entry.seat, entry.place, entry.score, entry.left,
                prior.mu, prior.sigma, player.rated_games,
                posterior.mu if done else None, posterior.sigma if done else None, now if done else None,
                rated_entry.weight,
            )
        )  # fmt: skip
        if done:
            new = tx.add_opponents(player.id, [entries[j].player for j in counted_opponents(rules, index)])
            rated = _rated(replace(player, opponents=player.opponents + new), posterior)
            tx.set_rating(rated, _listed_until(rated))
            changes.append(
                RatingChange(
                    player.id, entry.seat, entry.place, entry.score, prior.mu, prior.sigma,
                    posterior.mu, posterior.sigma, rated.rated_games,
                )
            )  # fmt: skip
    if not tx.add_history(history):
        raise AlreadyApplied(result.game_id)
    tx.mark_applied(result.game_id, now)
    return AppliedResult(result.game_id, at, tuple(changes))


def _apply_bot_batch(tx: RatingTransaction, bot: StoredPlayer, pending: list[StoredHistory], now: datetime) -> None:
    """Complete a bot's pending rows in finishing order, each game rated against the other
    entries' ratings as the game's step 1 stored them, and write the bot's rating once."""
    others: dict[str, list[StoredHistory]] = {}
    for row in tx.entries_of([row.game_id for row in pending]):
        if row.player_id != bot.id:
            others.setdefault(row.game_id, []).append(row)
    for row in pending:
        prior = _prior(bot, row.finished_at)
        opponents = others.get(row.game_id, [])
        rules = [
            Entry(Rating(other.mu_before, other.sigma_before, row.finished_at), other.place, other.left)
            for other in opponents
        ]
        rules.append(Entry(prior, row.place, bot=True))
        rated_entry = rate_game(rules, [[] for _ in rules], row.finished_at)[-1]
        posterior = rated_entry.rating
        tx.complete(
            replace(
                row, mu_before=prior.mu, sigma_before=prior.sigma, games_before=bot.rated_games,
                mu_after=posterior.mu, sigma_after=posterior.sigma, applied_at=now, weight=rated_entry.weight,
            )
        )  # fmt: skip
        bot = _rated(bot, posterior)
    tx.set_rating(bot, _listed_until(bot))


def _prior(player: StoredPlayer, at: datetime) -> Rating:
    """The player's rating as a game finishing at ``at`` starts from: sigma grown by the time away."""
    return Rating(player.mu, current_sigma(player.sigma, player.rated_at, at), at)


def _rated(player: StoredPlayer, posterior: Rating) -> StoredPlayer:
    """The player with one more rated game: the posterior's mu and sigma, rated at the latest game's
    end, and whether the leaderboard may list them now (:func:`.fairness.listable`)."""
    rated_at = (
        posterior.rated_at if player.rated_at is None else max(player.rated_at, posterior.rated_at or player.rated_at)
    )
    may_list = listable(
        bot=player.bot is not None,
        opponents=player.opponents,
        barred=player.barred,
        deleted=player.deleted_at is not None,
    )
    return replace(
        player, mu=posterior.mu, sigma=posterior.sigma, rated_games=player.rated_games + 1, rated_at=rated_at,
        listable=may_list,
    )  # fmt: skip


def _who(entry: StoredEntry, players: dict[str, StoredPlayer]) -> frozenset[str]:
    """An entry's identities: its player, and for a person the keyed hashes of the address its seat
    was taken from and of the one that created the player."""
    if entry.bot:
        return identities(entry.player)
    player = players.get(entry.player)
    return identities(entry.player, [entry.address, player.address_hash if player is not None else None])


def _listed_until(player: StoredPlayer) -> datetime | None:
    """Until when the player is ranked: the moment time away makes the rating provisional, if the
    leaderboard may list them (None while provisional, or not listable)."""
    return provisional_from(player.sigma, player.rated_at, player.rated_games) if player.listable else None
