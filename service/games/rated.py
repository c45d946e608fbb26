"""Rated games: who may sit at one (the rating model itself is :mod:`.ratings`' business).

A rated game rates every seat's player once, from the finishing order. So every seat is held by a
player (an identity across games) or a bot (its strength's player): an anonymous seat is refused
(``409 player_required``, as the contract has an anonymous join); a seeded game cannot be rated
(``422 seeded_game_unrated``: whoever knows the seed knows every hand); nor can one with two seats
of one bot strength (``422 bot_seated_twice``: Plackett-Luce rates each player once a match).
"""

from __future__ import annotations

from .commands import NewGame, NewPlayer
from .errors import BotSeatedTwice, PlayerRequired, SeededGameUnrated

__all__ = ["check_rated", "check_rated_join"]


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


def check_rated_join(rated: bool, player: NewPlayer) -> None:
    """Refuse an anonymous join of a rated game."""
    if rated and player.anonymous:
        raise PlayerRequired('a rated game is joined as a player: {"player": "me"} with your player key')
