"""Where the views find the use cases (one GameService per app, kept in ``app.extensions``), and the
path parameters every resource shares."""

from __future__ import annotations

from flask import current_app

from ..games import GameService, PlayerService, RatingReads

EXTENSION = "coins.games"
PLAYERS_EXTENSION = "coins.players"
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


def players() -> PlayerService:
    service: PlayerService = current_app.extensions[PLAYERS_EXTENSION]
    return service


def ratings() -> RatingReads:
    reads: RatingReads = current_app.extensions[RATINGS_EXTENSION]
    return reads
