"""Where the views find the use cases (one GameService per app, kept in ``app.extensions``) and the
count of games of bots alone (kept there by the rate limits), and the path parameters every resource shares."""

from __future__ import annotations

from typing import Protocol

from flask import current_app

from ..games import GameService, PlayerService, QueueService, RatingReads

EXTENSION = "coins.games"
BOT_GAMES = "coins.bot_games"
PLAYERS_EXTENSION = "coins.players"
QUEUE_EXTENSION = "coins.queue"
PLAYER_FEEDS_EXTENSION = "coins.player_feeds"  # the players' feeds (service.games.PlayerFeeds)
RATINGS_EXTENSION = "coins.ratings"

# is_game_id as a pattern: 26 characters of Crockford base32, lower case (tests hold them equal).
GAME_ID_PATTERN = "^[0-9a-hjkmnp-tv-z]{26}$"

GAME_ID = {
    "in": "path",
    "name": "game_id",
    "description": "The game's id: 26 characters of Crockford base32 (any other text is no game's id: 404).",
    "schema": {"type": "string", "minLength": 26, "maxLength": 26, "pattern": GAME_ID_PATTERN},
}
PLAYER_ID = {
    "in": "path",
    "name": "player_id",
    "description": "The player's id: 26 characters of Crockford base32, as a game's (any other text is no player's id: 404).",
    "schema": {"type": "string", "minLength": 26, "maxLength": 26, "pattern": GAME_ID_PATTERN},
}
SEAT = {
    "in": "path",
    "name": "seat",
    "description": "Seat number, 0 to 2.",
    "schema": {"type": "integer", "minimum": 0, "maximum": 2},
}


def games() -> GameService:
    service: GameService = current_app.extensions[EXTENSION]
    return service


class BotGameCount(Protocol):
    """A client address's games of bots alone (``service.api.hooks.limits.BotGames``)."""

    def wait(self) -> int | None:
        """The seconds until the caller may start another; None while it may."""

    def started(self) -> None:
        """Say that the request started one (counted once its answer is a ``200``)."""


def bot_games() -> BotGameCount:
    count: BotGameCount = current_app.extensions[BOT_GAMES]
    return count


def players() -> PlayerService:
    service: PlayerService = current_app.extensions[PLAYERS_EXTENSION]
    return service


def queue() -> QueueService:
    service: QueueService = current_app.extensions[QUEUE_EXTENSION]
    return service


def ratings() -> RatingReads:
    reads: RatingReads = current_app.extensions[RATINGS_EXTENSION]
    return reads
