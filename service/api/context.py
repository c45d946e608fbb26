"""Where the views find the use cases (one GameService per app, kept in ``app.extensions``) and the
count of games of bots alone (kept there by the rate limits), and the path parameters every resource shares."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from flask import current_app, request

from ..games import GameService
from ..players import Accounts, PlayerService
from ..push import PushService
from ..quickplay import QueueService
from ..ratings.reads import RatingReads
from ..webhooks import WebhookService
from .common import bearer_token

EXTENSION = "coins.games"
BOT_GAMES = "coins.bot_games"
PLAYERS_EXTENSION = "coins.players"
QUEUE_EXTENSION = "coins.queue"
PLAYER_FEEDS_EXTENSION = "coins.player_feeds"  # the players' feeds (service.players.PlayerFeeds)
RATINGS_EXTENSION = "coins.ratings"
ACCOUNTS_EXTENSION = "coins.accounts"  # deleting accounts (service.players.Accounts)
WEBHOOKS_EXTENSION = "coins.webhooks"  # the players' webhooks (service.webhooks.WebhookService)
PUSH_EXTENSION = "coins.push"  # the players' push subscriptions (service.push.PushService)
ADDRESSES_EXTENSION = "coins.addresses"  # the keyed hash of client addresses (service.addresses.AddressHasher)

# is_game_id as a pattern: 26 characters of Crockford base32, lower case (tests hold them equal).
GAME_ID_PATTERN = "^[0-9a-hjkmnp-tv-z]{26}$"

GAME_ID = {
    "in": "path",
    "name": "game_id",
    "description": "The game's id: 26 characters of Crockford base32 (any other text is no game's id: 404).",
    "schema": {"type": "string", "minLength": 26, "maxLength": 26, "pattern": GAME_ID_PATTERN},
}
ME = "me"  # the player-id path parameter's value that means the caller (contract 1.3, "me everywhere")
PLAYER_ID = {
    "in": "path",
    "name": "player_id",
    "description": "A player's id (26 characters of Crockford base32, as a game's), or `me` for the caller "
    "(needs the key: `Authorization: Bearer <player key>`; without it 401). Any other text is no player's id: 404.",
    "schema": {"type": "string", "minLength": 2, "maxLength": 26, "pattern": f"^(?:{ME}|{GAME_ID_PATTERN[1:-1]})$"},
}
#: getPlayer's: `/v1/players/me` is a path of its own (1.2's getMe, with deleteMe), which a concrete path
#: serves before this template does, so here the value is an id only.
PLAYER_ID_NOT_ME = {
    **PLAYER_ID,
    "description": "A player's id (26 characters of Crockford base32, as a game's); `/v1/players/me` is the "
    "caller's own profile (getMe). Any other text is no player's id: 404.",
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


def player_id_of(value: str) -> str:
    """The player a player-id path parameter names: ``me`` is the caller, by the request's key
    (:class:`.MissingToken` without one, :class:`.InvalidKey` for an unknown one); any other value
    is taken as an id."""
    return players().id_of_key(bearer_token()) if value == ME else value


#: The headers of an answer that depends on the caller's credential (a hand, a seat's events, the caller's
#: profile): no shared cache keeps it, and none hands it to a request with another ``Authorization``.
PRIVATE = {"Vary": "Authorization", "Cache-Control": "private, no-cache"}
#: The headers of an answer that shows a secret once (a player's key, a seat's token, a webhook's secret):
#: no cache, not even the client's own, keeps a copy (idempotent replays send it again: KEPT_HEADERS).
NO_STORE = {"Cache-Control": "no-store"}


def private_if_me(value: str, headers: dict[str, str]) -> dict[str, str]:
    """An answer's headers, said to be the caller's own when the path named ``me`` (caches keep it apart)."""
    return {**headers, **PRIVATE} if value == ME else headers


def accounts() -> Accounts:
    service: Accounts = current_app.extensions[ACCOUNTS_EXTENSION]
    return service


def queue() -> QueueService:
    service: QueueService = current_app.extensions[QUEUE_EXTENSION]
    return service


def client_address_hash() -> str | None:
    """The keyed hash of the request's client address (the client's own behind ``TRUSTED_PROXY_HOPS``
    proxies): what the ratings' rules on one address keep, never the address."""
    hasher: Callable[[str | None], str | None] = current_app.extensions[ADDRESSES_EXTENSION]
    return hasher(request.remote_addr)


def ratings() -> RatingReads:
    reads: RatingReads = current_app.extensions[RATINGS_EXTENSION]
    return reads


def webhooks() -> WebhookService:
    service: WebhookService = current_app.extensions[WEBHOOKS_EXTENSION]
    return service


def push() -> PushService:
    service: PushService = current_app.extensions[PUSH_EXTENSION]
    return service
