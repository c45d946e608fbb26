"""Rated games: who may sit at one, their clock, and when one is void (the rating model itself is :mod:`.ratings`' business).

A rated game rates every seat's player once, from the finishing order. So every seat is held by a
player (an identity across games) or a bot (its strength's player): an anonymous seat is refused
(``409 player_required``, as the contract has an anonymous join); a seeded game cannot be rated
(``422 seeded_game_unrated``: whoever knows the seed knows every hand); nor can one with two seats
of one bot strength (``422 bot_seated_twice``: Plackett-Luce rates each player once a match); nor
one without a turn clock (``422 rated_needs_clock``: a losing player could stall it forever; created
without one, it gets :data:`RATED_TURN_TIMEOUT_SECONDS`). A player an operator barred from rated play
takes no seat at one (``403 rated_play_barred``).

A rated game a seat leaves (or lapses out of) before its holder has played a card is **void**
(:func:`void_if_unplayed`): it goes on (the seat's bot plays on, as for any leaver, and the others may
play it out or leave it at no cost), but it rates nobody, as Lichess aborts a game a player leaves
before their first move. A game that ends normally has seen every seat play: every trick takes a card
of each.
"""

from __future__ import annotations

from ..store import StoredGame, StoredSeat
from .commands import NewGame, NewPlayer
from .errors import BotSeatedTwice, PlayerRequired, RatedNeedsClock, RatedPlayBarred, SeededGameUnrated

__all__ = ["RATED_TURN_TIMEOUT_SECONDS", "check_rated", "check_rated_join", "void_if_unplayed"]

RATED_TURN_TIMEOUT_SECONDS = 60  # a rated game's turn clock when created without one (as quick play's)
BARRED = "you are barred from rated play by an operator of this service; unrated games stay open to you"


def check_rated(request: NewGame) -> None:
    """Refuse a rated game that could not be rated (its seats resolved to players already)."""
    if not request.rated:
        return
    if request.seed is not None:
        raise SeededGameUnrated("a seeded game cannot be rated: its seed gives away every hand")
    bots = [player.bot for player in request.seats if player is not None and player.bot is not None]
    if len(bots) != len(set(bots)):
        raise BotSeatedTwice("a rated game seats each bot strength once at most: each player is rated once a game")
    if any(player is not None and player.anonymous for player in request.seats):
        raise PlayerRequired('every seat of a rated game is a player\'s ({"player": "me"}) or a bot\'s')
    if request.turn_timeout_seconds is None:
        raise RatedNeedsClock(
            "a rated game has a turn clock: leave turn_timeout_seconds out (60 s) or give one, not null"
        )
    if any(player is not None and player.barred for player in request.seats):
        raise RatedPlayBarred(BARRED)


def check_rated_join(rated: bool, player: NewPlayer) -> None:
    """Refuse an anonymous join of a rated game, and a barred player's."""
    if rated and player.anonymous:
        raise PlayerRequired('a rated game is joined as a player: {"player": "me"} with your player key')
    if rated and player.barred:
        raise RatedPlayBarred(BARRED)


def void_if_unplayed(stored: StoredGame, seat: StoredSeat) -> None:
    """``seat`` leaves a started game, or lapses out of it: a rated game whose seat's holder has not
    played a card yet is void from now on (see the module's docstring). The lapse rule calls it too."""
    if stored.rated and not seat.played:
        stored.void = True
