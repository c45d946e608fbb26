"""The players' use cases: create a player (with their key), read profiles, replace a key, list a player's games.

A player is an identity across games: a person's, who acts with their key (``cpk_…``, shown once,
stored as its SHA-256), or a bot strength's (no key). Every check of a key reads the stored hash
(nothing is cached between requests), so a replaced key stops at once, everywhere. These use cases
write only the players table, never a game's rows; a game's transaction only reads a key's player
(:mod:`.tokens`, :mod:`.seating`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime

from ..games.cursors import decode_cursor, encode_cursor
from ..games.errors import InvalidCursor, InvalidKey, PlayerNotFound
from ..games.ids import is_player_id, new_game_id
from ..games.projections import public_game
from ..games.results import WAITING_FOR_PLAYERS
from ..games.seats import has_left, is_reserved
from ..games.tokens import hash_token, keyed_player, new_player_key
from ..games.transactions import restore
from ..ratings import MU_0, SIGMA_0, finishing_order
from ..ratings.reads import shown_rating
from ..store import StoredGame, StoredPlayer, StoreSession, player_feed_id
from ..work import UnitOfWork, given_or_own
from .results import GamesRecord, NewKey, Opponent, PlayerGame, PlayerGamePage, Profile

__all__ = ["PLAYER_GAMES", "PlayerService", "end_arrangements"]

PLAYER_GAMES = "p"  # the kind of a cursor of a player's games


def end_arrangements(session: StoreSession, player_id: str, now: datetime) -> None:
    """End what the player set up with a key that no longer works (replaced, revoked, or its account
    deleted): their waiting quick-play ticket is cancelled, their webhooks and push subscriptions are
    removed. Whoever held a leaked key may have made them: a webhook of theirs would go on receiving
    the player's hand, a ticket would seat the player in a game they never asked for. The player
    makes them again with the new key. Each in a transaction of its own."""
    waiting = session.tickets.waiting_of(player_id)
    if waiting is not None:
        session.tickets.end([waiting.id], "cancelled", now)
    session.webhooks.remove_all(player_id)
    session.push_subscriptions.remove_all(player_id)


class PlayerService:
    """The players' use cases over one store (through the units of work ``unit_of_work`` makes)."""

    def __init__(self, unit_of_work: Callable[[], UnitOfWork], clock: Callable[[], datetime]) -> None:
        self._unit_of_work = unit_of_work
        self.clock = clock

    def create(self, name: str, *, address: str | None = None, uow: UnitOfWork | None = None) -> NewKey:
        """A new player called ``name`` (checked by the caller: :func:`service.names.checked_name`),
        with their new key. ``address``: the keyed hash of the request's address (for the ratings'
        rules on accounts of one address)."""
        key = new_player_key()
        player = StoredPlayer(
            new_game_id(), name, None, hash_token(key), MU_0, SIGMA_0, 0, None, self.clock(), address_hash=address
        )
        with self._work(uow) as work, work.session() as session:
            session.add_player(player)
        return NewKey(_profile(player, GamesRecord(0, 0)), key)

    def get(self, player_id: str) -> Profile:
        """The public profile of ``player_id`` (:class:`.PlayerNotFound` without one)."""
        with self._work(None) as work, work.session() as session:
            return _with_record(session, _found(session.player(player_id), player_id))

    def id_of_key(self, key: str | None) -> str:
        """The id of the player whose key this is (:class:`.MissingToken`, :class:`.InvalidKey`)."""
        with self._work(None) as work, work.session() as session:
            return keyed_player(session, key).id

    def feed_head_of_key(self, key: str | None) -> tuple[str, int]:
        """The id of the player whose key this is (:class:`.MissingToken`, :class:`.InvalidKey`) and the
        id of their feed's last event (0: none yet), in one read transaction."""
        with self._work(None) as work, work.session() as session:
            player_id = keyed_player(session, key).id
            return player_id, session.player_heads([player_id]).get(player_id, 0)

    def me(self, key: str | None) -> Profile:
        """The profile of the player whose key this is."""
        with self._work(None) as work, work.session() as session:
            return _with_record(session, keyed_player(session, key))

    def replace_key(self, key: str | None, *, uow: UnitOfWork | None = None) -> NewKey:
        """A new key for the player of ``key``, which stops working at once, and with it what it
        arranged (:func:`end_arrangements`)."""
        new_key = new_player_key()
        with self._work(uow) as work, work.session() as session:
            player = keyed_player(session, key)
            assert player.key_hash is not None
            if not session.replace_player_key(player.id, player.key_hash, hash_token(new_key)):
                raise InvalidKey("the player key was replaced by another request just now")
            work.record(player_feed_id(player.id))  # the streams the old key opened end at once
            end_arrangements(session, player.id, self.clock())
            player.key_hash = hash_token(new_key)
            return NewKey(_with_record(session, player), new_key)

    def settle_challenges(self, key: str | None, challenges: str) -> Profile:
        """Who may challenge the player of ``key`` from now on: ``everyone`` or ``nobody``."""
        with self._work(None) as work, work.session() as session:
            player = keyed_player(session, key)
            if not session.change_player(player.id, {"challenges": challenges}, key_hash=player.key_hash):
                raise InvalidKey("the player key was replaced by another request just now")
            player.challenges = challenges
            return _with_record(session, player)

    def games(self, player_id: str, *, status: str | None, cursor: str | None, limit: int) -> PlayerGamePage:
        """The player's games, newest first, a page at a time, of one ``status`` if given."""
        before = decode_cursor(cursor, PLAYER_GAMES) if cursor else None
        if before is not None and not before.isalnum():
            raise InvalidCursor("the cursor is not one this service issued")
        with self._work(None) as work, work.session() as session:
            _found(session.player(player_id), player_id)
            with session.reading():
                found = session.games(status=status, before_id=before, limit=limit + 1, player_id=player_id)
        more = len(found) > limit
        found = found[:limit]
        next_cursor = encode_cursor(PLAYER_GAMES, found[-1].id) if more else None
        return PlayerGamePage(player_id, tuple(_player_game(stored, player_id) for stored in found), next_cursor)

    def state(
        self, key: str | None, statuses: Sequence[str], *, limit: int
    ) -> tuple[Profile, int, tuple[PlayerGame, ...]]:
        """The profile of the player whose key this is, the id of their feed's last event, then at
        most ``limit`` of their games of each of ``statuses`` (newest first, in one read transaction):
        what a ``player`` event shows, read after the feed's head its reader goes on from, so that
        nothing after it is missed."""
        with self._work(None) as work, work.session() as session:
            profile = _with_record(session, keyed_player(session, key))
            last = session.player_heads([profile.id]).get(profile.id, 0)
            with session.reading():
                games = tuple(
                    _player_game(stored, profile.id)
                    for status in statuses
                    for stored in session.games(status=status, before_id=None, limit=limit, player_id=profile.id)
                )
        return profile, last, games

    def _work(self, uow: UnitOfWork | None) -> AbstractContextManager[UnitOfWork]:
        return given_or_own(uow, self._unit_of_work)


def _found(player: StoredPlayer | None, player_id: str) -> StoredPlayer:
    if player is None or not is_player_id(player_id):
        raise PlayerNotFound(f"there is no player {player_id!r}")
    return player


def _with_record(session: StoreSession, player: StoredPlayer) -> Profile:
    played, won = session.player_record(player.id)
    return _profile(player, GamesRecord(played, won))


def _profile(player: StoredPlayer, record: GamesRecord) -> Profile:
    rating = shown_rating(player, datetime.now(UTC))  # provisional again after time away
    return Profile(player.id, player.name, player.created_at, player.bot, rating, record, player.challenges)


def _player_game(stored: StoredGame, player_id: str) -> PlayerGame:
    """One game of the player's list: their seat (a bot's first), and whether it is theirs to act."""
    seats = [seat for seat in stored.seats if seat.player_id == player_id]
    reserved = [seat for seat in stored.seats if seat.reserved_for == player_id and is_reserved(seat)]
    held = [seat.seat for seat in seats if not has_left(seat)]
    game = public_game(stored, restore(stored))
    your_turn = game.turn is not None and game.turn in held and game.status != "finished"
    until = stored.turn_deadline if reserved and stored.status == WAITING_FOR_PLAYERS else None
    seat = (seats or reserved)[0].seat
    scores = [state.score for state in game.seats]
    left = [stored_seat.seat for stored_seat in stored.seats if has_left(stored_seat)]
    place = finishing_order(game.winner, scores, left)[seat] if game.winner is not None else None
    opponents = tuple(
        Opponent(state.seat, state.name, state.bot, state.player, state.score)
        for state in game.seats
        if state.seat != seat
    )
    return PlayerGame(
        stored.id, game.status, stored.rated, stored.version, seat, not held and not reserved,
        your_turn, game.turn, game.turn_deadline, stored.created_at, stored.updated_at, bool(reserved), until,
        scores[seat], place, opponents,
    )  # fmt: skip
