"""Rematches are offers (contract 1.3): a finished game's seats at a new table, each taken by its own ask.

The first seat to ask makes the offer: a new game, waiting for players, in which the asker's seat is
theirs, a bot's seat (a leaver's bot's too) is that bot's at once, a player's seat is reserved for
them, and an anonymous person's seat is open for them alone (they ask with their token of the
finished game: :mod:`.rematch_offers`). Nobody else is seated, and no clock runs, until a seat asks;
the game is dealt once every seat is taken. Until then its ``turn_deadline`` is the moment the offer
runs out (the longer of :data:`OFFER_MINIMUM` and the game's clock): the worker finds it due by the
index it finds turns by and cancels it (:func:`.challenges.expire`), as a challenge's.

An offer touches two games, and every write touches one (the store's rule), so it is written in
three steps, each safe to repeat, in an order that never shows a link to a game not yet stored:

1. insert the offer, whose id every request computes alike from the finished game
   (:func:`rematch_id`): of two racing inserts the second finds the game stored, and writes
   nothing (:meth:`.StoreSession.create`);
2. link the finished game to it (``rematch``, with a ``rematch_created`` event), at the version
   read: of two racing links, the second finds the link made;
3. take the caller's seat (:mod:`.rematch_offers`).

A request that stops after 1 leaves a game no finished game links to yet; the next call of any
seat finds it by its id and links it. A cancelled offer stays linked until a seat asks again: that
makes a new offer (its id differs, as the link changed the finished game) and links it instead.

A chain of rematches from one game is one lineage, however many tokens and addresses its seats use:
it makes at most so many games a minute (:func:`check_lineage`), so that rematches, each with fresh
tokens, are no way around the limits of creating games.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime, timedelta

from ..engine import Game
from ..store import StoredGame, StoredSeat
from .domain_events import EventLog, RematchCreatedEvent
from .errors import TooManyRematches
from .ids import BOT_PLAYER_IDS, derived_game_id
from .projections import public_game
from .rated import RATED_TURN_TIMEOUT_SECONDS
from .results import WAITING_FOR_PLAYERS
from .server_moves import Pace, changed, new_stored_game, start_full_table
from .tokens import hash_token

__all__ = ["LINEAGE_WINDOW", "OFFER_MINIMUM", "check_lineage", "is_offer", "link_rematch", "new_rematch", "rematch_id"]

LINEAGE_WINDOW = timedelta(minutes=1)
OFFER_MINIMUM = timedelta(minutes=10)  # an offer waits this long at least (longer: the game's clock)


def rematch_id(finished: StoredGame) -> str:
    """The id of ``finished``'s next rematch offer: the same for every request that reads the
    finished game at one version (a finished game changes only by linking an offer, so each offer
    after a cancelled one has an id of its own). It sorts at the finished game's last change, by
    the finished game's id and version after that."""
    milliseconds = int(finished.updated_at.timestamp() * 1000)
    return derived_game_id(milliseconds, f"rematch/{finished.id}/{finished.version}")


def new_rematch(
    finished: StoredGame,
    caller: int,
    caller_token: str | None,
    now: datetime,
    pace: Pace,
    *,
    barred: bool = False,
) -> StoredGame:
    """The offer of ``finished``'s rematch made by seat ``caller``, as stored before anything else.

    The same seats: the caller's is theirs (a player's key acts for it; an anonymous person holds
    ``caller_token``); another player's is reserved for them, another person's is open for them
    (named, aged; only their ask takes it); bots keep their strengths, and a bot that played on for
    a player who left keeps the seat, as its strength's player. The target, the options and
    ``rated`` are kept (but a rated game whose bots would then be of one strength twice is not
    rated: see :func:`.rated.check_rated`; nor is one where a player sits that an operator has
    ``barred`` from rated play since); a rated game's clock is kept, and one stored without a clock
    gets the rated games' default; the seed is not (a rematch's deals are fresh: ``seeded`` is
    false). With every seat taken at once (the others are bots) it starts at once; else it waits
    until the offer runs out."""
    seats = []
    for old in finished.seats:
        seat = StoredSeat(old.seat, old.name, old.age, None, old.bot, None)
        if seat.bot is not None:
            seat.player_id = BOT_PLAYER_IDS[seat.bot]
            seat.joined_at = now
        elif seat.seat == caller:
            seat.joined_at = now
            if old.player_id is not None:
                seat.player_id = old.player_id
            else:
                assert caller_token is not None
                seat.token_hash = hash_token(caller_token)
        elif old.player_id is not None:
            seat.reserved_for = old.player_id
        seats.append(seat)
    bots = [seat.bot for seat in seats if seat.bot is not None]
    rated = finished.rated and len(bots) == len(set(bots)) and not barred
    clock = finished.turn_timeout_seconds
    if rated and clock is None:
        clock = RATED_TURN_TIMEOUT_SECONDS
    stored = new_stored_game(
        rematch_id(finished),
        seats,
        now,
        target_score=finished.target_score,
        auto_deal=finished.auto_deal,
        seed=None,
        first_dealer=None,
        turn_timeout_seconds=clock,
        rematch_of=finished.id,
        rated=rated,
    )
    if stored.open_seats == 0:
        start_full_table(stored, now, pace)
    else:
        stored.turn_deadline = now + max(OFFER_MINIMUM, timedelta(seconds=clock or 0))
    return stored


def is_offer(stored: StoredGame) -> bool:
    """The game is a rematch offer still waiting for seats to ask (only their asks take them)."""
    return stored.rematch_of is not None and stored.status == WAITING_FOR_PLAYERS


def link_rematch(
    new_id: str, replacing: str | None = None
) -> Callable[[StoredGame, Game | None, datetime, EventLog], str]:
    """The change that links a finished game to its rematch offer ``new_id`` (in place of the
    cancelled offer ``replacing``), unless a racing call linked it first."""

    def link(stored: StoredGame, game: Game | None, now: datetime, log: EventLog) -> str:
        if stored.rematch == replacing:
            stored.rematch = new_id
            changed(stored, game, now)
            log.add(stored, RematchCreatedEvent, public_game(stored, game), rematch=new_id)
        assert stored.rematch is not None, "a finished game links an offer before it replaces one"
        return stored.rematch

    return link


def check_lineage(
    finished: StoredGame, earlier: Callable[[str], StoredGame | None], now: datetime, *, per_minute: int
) -> None:
    """Raise :class:`.TooManyRematches` (with the seconds to wait) when the lineage of ``finished``
    (it, the game it is the rematch of, and so on back) made ``per_minute`` games in the last minute
    (``0``: no limit). ``earlier`` loads a game of the lineage (None once purged). Only the lineage's
    games of the last minute are read, at most ``per_minute``: a rematch after a game that lasted a
    minute reads none."""
    if per_minute <= 0:
        return
    since = now - LINEAGE_WINDOW
    recent: list[datetime] = []
    game: StoredGame | None = finished
    while game is not None and game.created_at > since:
        recent.append(game.created_at)
        if len(recent) == per_minute:
            break
        game = earlier(game.rematch_of) if game.rematch_of else None
    if len(recent) == per_minute:
        wait = max(1, math.ceil((recent[-1] + LINEAGE_WINDOW - now).total_seconds()))
        raise TooManyRematches(
            f"this line of rematches made {per_minute} games this minute; retry in {wait} s", retry_after=wait
        )
