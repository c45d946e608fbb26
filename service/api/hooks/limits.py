"""Rate limits, with Flask-Limiter: per client address to create and join games, to create players and
to read reviews (public, and the first read of one asks the worker for seconds of CPU),
per seat token (or player key) and game to play and to ask for hints, per player key to queue for
quick play and to create webhooks and push subscriptions (each resolves a name). A caller over a limit gets ``429 too_many_requests`` with ``Retry-After``. A player's key
is counted per game, as a seat's token is: a player (a script, say) in many games at once has each
game's allowance in each.

A rematch is a new game: createGame and rematchGame share one count per address (:data:`SHARED_LIMITS`),
so a loop of rematches (each with fresh tokens) is held to the creation limit; and a line of
rematches from one game makes at most :data:`LINEAGE_GAMES_PER_MINUTE` games, from any addresses
(counted by the use case from the games themselves: :func:`service.games.rematch.check_lineage`). Games of three bots
(the costly ones: an expert's move is tens of milliseconds of CPU) have a smaller limit of their own,
counted apart from the others; a leaveGame that leaves a started game to bots alone counts there too
(:class:`BotGames`, and :mod:`service.games.leaving`, which refuses it once the count is used up).

leaveGame is not counted as a join: it needs a seat's token, and a token leaves once.

**When a request is counted.** The limits per client address (create, bots-only, join, players,
reviews) count every request as it arrives, in one atomic increment that also tells whether it is
over: so requests sent at the same moment cannot all pass a check made before any of them is
counted (a burst of 60 games of three bots from one address made 60 when they were counted after
their answers). A refused one counts as well. The limits per credential (plays, hints, queue,
webhooks, push) count after the answer, and only a request whose credential a seat or player holds:
a credential that no one holds stores nothing (a flood of made-up tokens would write one counter per
token), so a ``401`` (or a ``429``) is not counted, and a play, hint or leave without any credential
(``401 missing_token``, as for a rematch) is counted nowhere. The price: one credential's requests
sent at the same moment may pass together before they are counted (a play is one a turn all the
same; a hint, a queue or a webhook a burst each), which the proxy's per-address request rate bounds
(``deploy/haproxy.cfg``). Answering an unknown credential ``429`` instead of ``401`` would tell its
sender the wrong thing.

The defaults are far above what a person or a script creating a few games a minute needs. Counters
are fixed windows in a storage every worker and instance shares (``create_app`` chooses it: Redis
with ``REDIS_URL``, else the database). ``RATE_LIMITS=off`` turns them all off (benchmarks, load
tests). A token is counted by its SHA-256, never as itself; an address by its keyed hash
(:func:`client_address`). The address is ``REMOTE_ADDR``, the client's own behind
``TRUSTED_PROXY_HOPS`` proxies (see the README, "Behind a proxy").

A play costs no write of its own for its limit. In the database, a seat's accepted plays are counted
from the actions the plays wrote (see :mod:`service.store.rate_limits`): the counter is only read
before a play, and written after one only when it was refused for another reason than its credential
(Flask-Limiter's ``deduct_when``). Redis counts every play with a credential a seat holds.

Every answer of a limited operation that a limit counted says how much of it is left, in the
structured fields ``RateLimit-Policy`` and ``RateLimit`` of draft-ietf-httpapi-ratelimit-headers-10
(one item per policy: ``"create";q=30;w=60`` and ``"create";r=29;t=41``), after the request was
counted: one read of each counter (:func:`rate_limit_fields`). :class:`RateLimitDocs` states each
operation's limits in its description and declares the two fields on its answers
(:data:`LIMITED_OPERATIONS`; a test holds it to the limits the app applies).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any, cast

import flask
from apispec import BasePlugin
from flask import Flask, Response, request
from flask_limiter import Limiter, RequestLimit
from limits import RateLimitItem, parse

from ... import jsonio
from ...games import hash_token
from ..common import bearer_token
from ..context import BOT_GAMES, client_address_hash
from ..problems import Problem

__all__ = [
    "LIMITED_OPERATIONS",
    "LIMITS",
    "POLICIES",
    "RATE_LIMIT_HEADERS",
    "RateLimitDocs",
    "LINEAGE_GAMES_PER_MINUTE",
    "SHARED_LIMITS",
    "BotGames",
    "init_limits",
]

KEY_PREFIX = "coins"
BOTS_ONLY = "bots-only"


def client_address() -> str:
    """``address:<keyed hash>`` of the client's address (as the ratings' rules keep it): the counters'
    storage and the limiter's log lines never hold an address."""
    return f"address:{client_address_hash() or ''}"


def seat_token() -> str:
    """``token:<game id>:<hash>`` of the seat's token or the player's key (a request without one is
    exempt: the view refuses it)."""
    token, game_id = bearer_token(), (request.view_args or {}).get("game_id")
    return f"token:{game_id}:{hash_token(token)}" if token and game_id else client_address()


def player_key() -> str:
    """``key:<hash>`` of the player's key (the address for a request without one: it is refused anyway)."""
    token = bearer_token()
    return f"key:{hash_token(token)}" if token else client_address()


def seat_play() -> str:
    """``play:<game id>:<token hash>``: the key by which the database's storage finds the seat's plays
    (the hash of a seat's token or of a player's key: see :mod:`service.store.rate_limits`)."""
    token, game_id = bearer_token(), (request.view_args or {}).get("game_id")
    return f"play:{game_id}:{hash_token(token)}" if token and game_id else client_address()


def _without_token() -> bool:
    return bearer_token() is None


def _never() -> bool:
    return False


def _leaving() -> bool:
    """A leaveGame: not a join (it needs a seat's token, and each token leaves once)."""
    return request.endpoint == "players.LeaveViews"


def _credential_held(response: Response) -> bool:
    """Whether the view took the request (a 401 refused its credential, a 429 was not let in: neither
    is counted by the token, which no seat may hold)."""
    return response.status_code not in (401, 429)


def _not_accepted(response: Response) -> bool:
    """A play the view refused for another reason than its credential (an accepted one is counted by its action)."""
    return response.status_code not in (201, 401, 429)


def _not_bots_only() -> bool:
    """Whether a createGame request's seats are not all bots (then the bot games' limit spares it).
    The body is read as the view reads it (:mod:`service.jsonio`): one it cannot read is the view's
    ``400 malformed_json`` (a body nested too deep made the standard library's parser raise here)."""
    try:
        body = jsonio.loads(request.get_data(cache=True)) if request.is_json else None
    except ValueError:
        return True
    seats = body.get("seats") if isinstance(body, dict) else None
    return not (isinstance(seats, list) and seats and all(isinstance(seat, dict) and "bot" in seat for seat in seats))


def _rematch_without_token() -> bool:
    """A rematchGame without a token: the view refuses it (401) and it creates nothing, so it is not
    counted as a creation (and the caller learns what is wrong rather than to wait)."""
    return request.blueprint == "rematches" and bearer_token() is None


# scope -> (limit, the blueprints whose POSTs it counts together per client address, exempt when)
SHARED_LIMITS: dict[str, tuple[str, tuple[str, ...], Callable[[], bool] | None]] = {
    "create": ("30/minute", ("games", "rematches"), _rematch_without_token),  # createGame and rematchGame
    BOTS_ONLY: ("6/minute", ("games",), _not_bots_only),  # createGame with three bots (and BotGames)
}
LINEAGE_GAMES_PER_MINUTE = 10  # a game and its rematches, one after another
# blueprint name -> (limit, the method it counts, whose requests it counts, exempt when)
LIMITS: dict[str, tuple[str, str, Callable[[], str], Callable[[], bool]]] = {
    "players": ("60/minute", "POST", client_address, _leaving),  # joinGame
    "profiles": ("10/minute", "POST", client_address, _never),  # createPlayer (and replacePlayerKey)
    "plays": ("120/minute", "POST", seat_play, _without_token),  # playCard
    "hints": ("60/minute", "GET", seat_token, _without_token),  # getHint
    "queue": ("30/minute", "POST", player_key, _without_token),  # enterQueue
    "reviews": ("30/minute", "GET", client_address, _never),  # getReview: public, and its first ask is costly
    "webhooks": ("10/minute", "POST", player_key, _without_token),  # createWebhook: each resolves a name
    "push": ("10/minute", "POST", player_key, _without_token),  # createPushSubscription: as createWebhook
}
#: The name of each limit in the RateLimit fields: a shared limit's scope, else by its blueprint.
POLICY_NAMES = {
    "players": "join", "profiles": "players", "plays": "plays", "hints": "hints", "queue": "queue", "reviews": "reviews",
    "webhooks": "webhooks", "push": "push",
}  # fmt: skip
#: policy name -> (its limit, whose requests it counts), as the spec states them.
POLICIES: dict[str, tuple[str, str]] = {
    "create": (SHARED_LIMITS["create"][0], "per client address, createGame and rematchGame together"),
    BOTS_ONLY: (SHARED_LIMITS[BOTS_ONLY][0], "per client address, games of three bots (and leaves to bots alone)"),
    "join": (LIMITS["players"][0], "per client address"),
    "players": (LIMITS["profiles"][0], "per client address, createPlayer and replacePlayerKey together"),
    "plays": (LIMITS["plays"][0], "per seat token (or player key) and game"),
    "hints": (LIMITS["hints"][0], "per seat token (or player key) and game"),
    "queue": (LIMITS["queue"][0], "per player key"),
    "reviews": (LIMITS["reviews"][0], "per client address"),
    "webhooks": (LIMITS["webhooks"][0], "per player key"),
    "push": (LIMITS["push"][0], "per player key"),
}
#: operationId -> the policies that count it.
LIMITED_OPERATIONS: dict[str, tuple[str, ...]] = {
    "createGame": ("create", BOTS_ONLY),
    "rematchGame": ("create",),
    "joinGame": ("join",),
    "createPlayer": ("players",),
    "replacePlayerKey": ("players",),
    "playCard": ("plays",),
    "getHint": ("hints",),
    "enterQueue": ("queue",),
    "getReview": ("reviews",),
    "createWebhook": ("webhooks",),
    "createPushSubscription": ("push",),
}
RATE_LIMIT_HEADERS = {
    "RateLimit-Policy": "The limits that count this request (draft-ietf-httpapi-ratelimit-headers-10, a "
    "structured field: a list of policies, each its name with `q`, the quota, and `w`, the window in seconds: "
    '`"create";q=30;w=60`). Sent when limits are on and one counted the request.',
    "RateLimit": "How much of each limit is left after this request (draft-ietf-httpapi-ratelimit-headers-10: "
    "each policy's name with `r`, the requests remaining, and `t`, the seconds until the window resets: "
    '`"create";r=29;t=41`). Pace yourself by it; at `r=0` the next request is 429 until `t` has passed.',
}


class BotGames:
    """The client address's count of games of bots alone (createGame's ``bots-only`` limit), for the
    leaveGame that leaves a started game to three bots: :meth:`wait` before it, :meth:`started` by the
    view once it has, and the count is taken after the response, if that is the leave's ``200`` (so
    after its commit, and never for a replay of its ``Idempotency-Key``)."""

    def __init__(self, limiter: Limiter, limit: str) -> None:
        self._limiter = limiter
        self._limit: RateLimitItem = parse(limit)

    def wait(self) -> int | None:
        """The seconds until this address may start another game of bots alone; None while it may."""
        if not self._limiter.enabled:
            return None
        key = (KEY_PREFIX, client_address(), BOTS_ONLY)
        if self._limiter.limiter.test(self._limit, *key):
            return None
        reset_at, _ = self._limiter.limiter.get_window_stats(self._limit, *key)
        return max(1, math.ceil(reset_at - time.time()))

    def started(self) -> None:
        flask.g.coins_bots_alone = True

    def count(self, response: Response) -> Response:
        """After a request: count the game of bots alone it started (see :meth:`started`)."""
        if flask.g.pop("coins_bots_alone", False) and response.status_code == 200 and self._limiter.enabled:
            self._limiter.limiter.hit(self._limit, KEY_PREFIX, client_address(), BOTS_ONLY)
        return response


def init_limits(
    app: Flask,
    *,
    enabled: bool,
    storage_uri: str,
    storage_options: dict[str, Any],
    plays_counted_by_their_actions: bool = False,
) -> Limiter:
    """Count the requests of ``LIMITS`` (whose blueprints ``app`` has) in the storage named by
    ``storage_uri`` (a ``limits`` URI, with ``storage_options`` for its constructor). With
    ``plays_counted_by_their_actions`` (the database's storage), only plays not accepted are
    counted by Flask-Limiter: the storage counts the others from their actions."""
    limiter = Limiter(
        key_func=client_address,
        app=None,
        storage_uri=storage_uri,
        storage_options=storage_options,
        key_prefix=KEY_PREFIX,
        strategy="fixed-window",
        enabled=enabled,
        headers_enabled=False,  # X-RateLimit-* would cost a read of the counter on every response
        on_breach=_too_many_requests,
    )
    for scope, (limit, blueprints, exempt_when) in SHARED_LIMITS.items():
        shared = limiter.shared_limit(
            limit,
            scope,
            methods=["POST"],
            key_func=client_address,
            exempt_when=exempt_when,
        )  # counted as the request arrives: see the module's docstring
        for name in blueprints:
            shared(cast(flask.Blueprint, app.blueprints[name]))
    for name, (limit, method, key, exempt) in LIMITS.items():
        deduct_when: Callable[[Response], bool] | None = (
            _not_accepted if name == "plays" and plays_counted_by_their_actions else _credential_held
        )
        if key is client_address:
            deduct_when = None  # counted as the request arrives: see the module's docstring
        limited = limiter.limit(limit, methods=[method], key_func=key, exempt_when=exempt, deduct_when=deduct_when)
        limited(cast(flask.Blueprint, app.blueprints[name]))
    bot_games = BotGames(limiter, SHARED_LIMITS[BOTS_ONLY][0])
    app.extensions[BOT_GAMES] = bot_games
    app.after_request(bot_games.count)
    # Registered before Flask-Limiter's own hooks, so it runs after them: once the request is counted.
    app.after_request(lambda response: _with_rate_limit_fields(limiter, response))
    limiter.init_app(app)
    return limiter


def _with_rate_limit_fields(limiter: Limiter, response: Response) -> Response:
    response.headers.update(rate_limit_fields(limiter.current_limits, time.time()))
    return response


def rate_limit_fields(limits: list[RequestLimit], now: float) -> dict[str, str]:
    """The ``RateLimit-Policy`` and ``RateLimit`` fields of the limits that counted a request (none: {})."""
    policies, left = [], []
    for limit in limits:
        name = limit.request_args[-1] if limit.shared else POLICY_NAMES.get(request.blueprint or "", "default")
        window = limit.limit.get_expiry()
        remaining = max(0, limit.remaining)
        reset = window if remaining >= limit.limit.amount else seconds_to_reset(limit, now)
        policies.append(f'"{name}";q={limit.limit.amount};w={window}')
        left.append(f'"{name}";r={remaining};t={reset}')
    return {"RateLimit-Policy": ", ".join(policies), "RateLimit": ", ".join(left)} if limits else {}


class RateLimitDocs(BasePlugin):
    """An apispec plugin: a limited operation's description states its limits, and each of its
    answers (but the shared default) declares the ``RateLimit`` and ``RateLimit-Policy`` fields."""

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None, **_: Any) -> None:
        for operation in (operations or {}).values():
            names = LIMITED_OPERATIONS.get(operation.get("operationId", "")) if isinstance(operation, dict) else None
            if not names:
                continue
            stated = "; ".join(f"`{name}`: {POLICIES[name][0]} {POLICIES[name][1]}" for name in names)
            operation["description"] = (
                f"{operation.get('description', '').rstrip()}\n\n**Rate limits** ({stated}): over one, 429 "
                "`too_many_requests` with `Retry-After`. Answers say what is left in `RateLimit` and "
                "`RateLimit-Policy`."
            ).lstrip()
            for response in operation.get("responses", {}).values():
                if isinstance(response, dict) and "$ref" not in response:
                    response.setdefault("headers", {}).update({name: name for name in RATE_LIMIT_HEADERS})


def seconds_to_reset(limit: RequestLimit, now: float) -> int:
    """The whole seconds until ``limit``'s window resets, at least 1: a refusal's ``Retry-After`` and
    the ``t`` of its ``RateLimit`` field alike. Flask-Limiter's ``reset_at`` is the reset rounded up
    past the next whole second, so it may fall a second beyond the window; no window ends later
    than its length from now."""
    return max(1, min(limit.limit.get_expiry(), math.ceil(limit.reset_at - now)))


def _too_many_requests(limit: RequestLimit) -> None:
    """Raised from Flask-Limiter's check, so that the one error handler answers (problem+json)."""
    wait = seconds_to_reset(limit, time.time())
    raise Problem(
        "too_many_requests",
        f"more than {limit.limit} from this caller; retry in {wait} seconds",
        headers={"Retry-After": str(wait)},
    )
