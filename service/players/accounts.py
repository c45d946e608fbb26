"""Accounts: a player deleting their own, and what an operator may do to one (``coins-admin``).

**Deleting an account** (:meth:`Accounts.delete`, ``DELETE /v1/players/me``) first takes the key away,
in one statement that also names the player "Deleted player", takes them off the leaderboard and
forgets the keyed hash of the address that created them: from then on the key is refused everywhere,
and the feed's readers that held it end (the change is signalled as a key replacement is). Then, each
in a transaction of its own, the player's waiting quick-play tickets are cancelled, their webhooks and
push subscriptions removed (:func:`.end_arrangements`, as when a key is replaced), and the player
leaves every game in progress (:meth:`.GameService.vacate`, as ``leaveGame`` leaves it: a started
game's seat goes to the stand-in bot and shows "Deleted player", and in a rated game the player
finishes last, or the game is void if they had not played a card; a game not started opens the seat).
Finished games keep the seat's name as it was (``coins-purge`` deletes them in time), and the
player's feed events go at the next retention purge (:func:`.store.purge.purge_feeds`). The rating
history stays, for the others' sake. A process that stops between the steps leaves the rest undone:
the seats of a rated game lapse on their clock.

**Operators** (:class:`Operators`) rename a player, revoke a key, issue a new one, and bar a player
from rated play or lift the bar. Each change is written with its audit row (who, why, what: never a
key) in one transaction, and logged in one line.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..games import GameService
from ..games.errors import InvalidKey, PlayerNotFound
from ..games.ids import is_player_id, new_game_id
from ..games.tokens import hash_token, keyed_player, new_player_key
from ..names import DELETED_PLAYER, checked_name
from ..ratings import provisional_from
from ..ratings.fairness import listable
from ..store import StoredPlayer, StoreSession, player_feed_id
from ..work import UnitOfWork
from .feeds import IN_PROGRESS
from .operations import end_arrangements

__all__ = ["Accounts", "OperatorAction", "Operators"]

log = logging.getLogger(__name__)

GAMES_PAGE = 100  # the player's games in progress read at a time


class Accounts:
    """A player's own account: its deletion (see the module's docstring)."""

    def __init__(self, games: GameService, clock: Callable[[], datetime]) -> None:
        self._games = games
        self._clock = clock

    def delete(self, key: str | None) -> None:
        """Delete the account of ``key``'s player: :class:`.InvalidKey` if no player has it."""
        now = self._clock()
        with self._games.unit_of_work() as uow, uow.session() as session:
            player = keyed_player(session, key)
            assert player.key_hash is not None
            deleted = session.change_player(
                player.id,
                {"key_hash": None, "name": DELETED_PLAYER, "deleted_at": now, "listable": False,
                 "listed_until": None, "address_hash": None, "legacy_name": False},
                key_hash=player.key_hash,
            )  # fmt: skip
            if not deleted:
                raise InvalidKey("the player key was replaced by another request just now")
            uow.record(player_feed_id(player.id))  # the streams the key opened end at once
            end_arrangements(session, player.id, now)  # nothing more is sent for a deleted account
        for game_id in self._games_in_progress(player.id):
            self._games.vacate(game_id, player.id, name=DELETED_PLAYER)
        log.info("player %s deleted their account", player.id)

    def _games_in_progress(self, player_id: str) -> list[str]:
        found: list[str] = []
        for status in IN_PROGRESS:
            before = None
            while True:
                with self._games.unit_of_work() as uow, uow.session() as session:
                    page = session.games(status=status, before_id=before, limit=GAMES_PAGE, player_id=player_id)
                found += [game.id for game in page]
                if len(page) < GAMES_PAGE:
                    break
                before = page[-1].id
        return found


@dataclass(frozen=True, slots=True)
class OperatorAction:
    """What an operator did to a player: the action, the player, and (for ``new-key``) the new key,
    which is shown to the operator once and kept nowhere."""

    action: str
    player_id: str
    detail: dict[str, Any]
    key: str | None = None


class Operators:
    """The operators' actions on players (``coins-admin``): each written with its audit row, and logged."""

    def __init__(self, games: GameService, clock: Callable[[], datetime]) -> None:
        self._games = games
        self._clock = clock

    def rename(self, player_id: str, name: str, *, operator: str, reason: str) -> OperatorAction:
        """Give the player a new name (the rule for names applies: :class:`service.names.NameRefused`).
        Their seats of games already taken keep the name they were taken with."""
        checked = checked_name(name)
        with self._session() as (uow, session):
            before = _person(session, player_id)
            detail = {"from": before.name, "to": checked}
            return self._do(
                uow, session, "rename", before, {"name": checked, "legacy_name": False}, detail, operator, reason
            )

    def revoke_key(self, player_id: str, *, operator: str, reason: str) -> OperatorAction:
        """Take the player's key away: refused at once, everywhere (the readers it opened end), and what
        it arranged ended (:func:`.end_arrangements`). The player has no key until an operator issues
        one (:meth:`issue_key`)."""
        with self._session() as (uow, session):
            player = _person(session, player_id)
            done = self._do(uow, session, "revoke-key", player, {"key_hash": None}, {}, operator, reason)
            end_arrangements(session, player.id, self._clock())
            return done

    def issue_key(self, player_id: str, *, operator: str, reason: str) -> OperatorAction:
        """A new key for the player (any key they held stops at once, and what it arranged ends:
        :func:`.end_arrangements`), for the operator to hand over: returned once, kept nowhere but as its hash."""
        key = new_player_key()
        with self._session() as (uow, session):
            player = _person(session, player_id)
            done = self._do(uow, session, "new-key", player, {"key_hash": hash_token(key)}, {}, operator, reason)
            end_arrangements(session, player.id, self._clock())
        return OperatorAction(done.action, done.player_id, done.detail, key)

    def bar(self, player_id: str, *, operator: str, reason: str) -> OperatorAction:
        """Bar the player from rated play from now on: no seat at a new rated game, no rated quick play
        (``403 rated_play_barred``; a waiting rated ticket is cancelled), off the leaderboard. Rated games
        already under way go on, and are rated."""
        now = self._clock()
        with self._session() as (uow, session):
            player = _person(session, player_id)
            done = self._do(
                uow,
                session,
                "bar",
                player,
                {"barred_at": now, "listable": False, "listed_until": None},
                {},
                operator,
                reason,
            )
            waiting = session.tickets.waiting_of(player.id)
            if waiting is not None and waiting.rated:
                session.tickets.end([waiting.id], "cancelled", now)
        return done

    def lift_bar(self, player_id: str, *, operator: str, reason: str) -> OperatorAction:
        """Lift the player's bar: rated play again, and the leaderboard as their rating allows."""
        with self._session() as (uow, session):
            player = _person(session, player_id)
            may_list = listable(
                bot=False, opponents=player.opponents, barred=False, deleted=player.deleted_at is not None
            )
            until = provisional_from(player.sigma, player.rated_at, player.rated_games) if may_list else None
            values = {"barred_at": None, "listable": may_list, "listed_until": until}
            return self._do(uow, session, "lift-bar", player, values, {}, operator, reason)

    def audit(self, player_id: str) -> list[dict[str, Any]]:
        """The operators' actions on the player, oldest first."""
        with self._session() as (_, session):
            _person(session, player_id)
            return session.admin_actions(player_id)

    def legacy_names(self, *, limit: int = 100) -> list[StoredPlayer]:
        """Players whose names predate the rule for names and would be refused now."""
        with self._session() as (_, session):
            return session.legacy_names(limit=limit)

    @contextmanager
    def _session(self) -> Iterator[tuple[UnitOfWork, StoreSession]]:
        """A plain unit of work and its session: each write commits as it is made, signalled as the block ends."""
        with self._games.unit_of_work() as uow, uow.session() as session:
            yield uow, session

    def _do(
        self,
        uow: UnitOfWork,
        session: StoreSession,
        action: str,
        player: StoredPlayer,
        values: dict[str, Any],
        detail: dict[str, Any],
        operator: str,
        reason: str,
    ) -> OperatorAction:
        if not operator.strip() or not reason.strip():
            raise ValueError("an operator's action says who did it and why")
        audit = {
            "id": new_game_id(), "at": self._clock(), "operator": operator.strip(), "action": action,
            "player_id": player.id, "reason": reason.strip(), "detail": detail,
        }  # fmt: skip
        if not session.change_player(player.id, values, audit=audit):
            raise PlayerNotFound(f"there is no player {player.id!r} (or it is a bot)")
        if "key_hash" in values:  # the streams the old key opened end at once
            uow.record(player_feed_id(player.id))
        log.info("operator action %s on player %s by %r: %s", action, player.id, audit["operator"], audit["reason"])
        return OperatorAction(action, player.id, detail)


def _person(session: StoreSession, player_id: str) -> StoredPlayer:
    player = session.player(player_id) if is_player_id(player_id) else None
    if player is None or player.bot is not None:
        raise PlayerNotFound(f"there is no player {player_id!r} (bots are not operated on)")
    return player
