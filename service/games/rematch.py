"""Rematches: a finished game's seats at a new table, made once however many seats ask at once.

A rematch touches two games, and every write touches one (the store's rule), so it is three
writes, each safe to repeat, in an order that never shows a link to a game not yet stored:

1. insert the new game, whose id every request computes alike from the finished game
   (:func:`rematch_id`): of two racing inserts the second finds the game stored, and writes
   nothing (:meth:`.StoreSession.create`);
2. link the finished game to it (``rematch``, with a ``rematch_created`` event), at the version
   read: of two racing links, the second finds the link made;
3. give the caller's seat at the new game the caller's token for it (:func:`.tokens.rematch_token`).

A request that stops after 1 leaves a game no finished game links to yet; the next call of any
seat finds it by its id and links it.

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
from .server_moves import Pace, changed, new_stored_game, start_full_table
from .tokens import hash_token, new_token

__all__ = ["LINEAGE_WINDOW", "check_lineage", "link_rematch", "new_rematch", "rematch_id"]

LINEAGE_WINDOW = timedelta(minutes=1)


def rematch_id(finished: StoredGame) -> str:
    """The id of ``finished``'s rematch: the same for every request that reads the finished game
    before it links its rematch (a finished game changes only by that link). It sorts at the time
    the game finished (its last change), by the finished game's id after that."""
    milliseconds = int(finished.updated_at.timestamp() * 1000)
    return derived_game_id(milliseconds, f"rematch/{finished.id}")


def new_rematch(
    finished: StoredGame,
    caller: int,
    caller_token: str | None,
    now: datetime,
    pace: Pace,
    *,
    barred: bool = False,
) -> StoredGame:
    """The rematch of ``finished``, started, its server moves made and its events queued.

    The same seats: persons keep their names and ages (the rules' first dealer is the oldest,
    else drawn, as for a new game), players their seats (their keys act for them: no token),
    bots their strengths (a bot that played on for a player who left keeps the seat, as its
    strength's player). The target, the options and ``rated`` are kept (but a rated game whose
    bots would then be of one strength twice is not rated: see :func:`.rated.check_rated`; nor is
    one where a player sits that an operator has ``barred`` from rated play since); a rated game's
    clock is kept, and one stored without a clock gets the rated games' default; the
    seed is not (a rematch's deals are fresh: ``seeded`` is false). The caller's anonymous seat
    holds ``caller_token``; every other anonymous person's seat a token no one holds until that
    person asks (the hash of a random token thrown away): so no seat is open, and none can be joined."""
    seats = []
    for old in finished.seats:
        seat = StoredSeat(old.seat, old.name, old.age, None, old.bot, now)
        if seat.bot is not None:
            seat.player_id = BOT_PLAYER_IDS[seat.bot]
        elif old.player_id is not None:
            seat.player_id = old.player_id
        else:
            assert caller_token is not None or seat.seat != caller
            seat.token_hash = hash_token(
                caller_token if caller_token is not None and seat.seat == caller else new_token()
            )
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
    start_full_table(stored, now, pace)
    return stored


def link_rematch(new_id: str) -> Callable[[StoredGame, Game | None, datetime, EventLog], str]:
    """The change that links a finished game to its rematch, unless a racing call linked it first."""

    def link(stored: StoredGame, game: Game | None, now: datetime, log: EventLog) -> str:
        if stored.rematch is None:
            stored.rematch = new_id
            changed(stored, game, now)
            log.add(stored, RematchCreatedEvent, public_game(stored, game), rematch=new_id)
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
