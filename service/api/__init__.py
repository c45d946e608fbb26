"""The HTTP API v1: flask-smorest blueprints over the use cases. Thin: parse, call, serialise."""

from __future__ import annotations

from typing import Any

from flask import Flask

from ..bots import HINT_STRENGTHS, STRENGTHS
from ..engine import CARD_CODES
from ..games import STATUSES
from ..webhooks import TYPES as WEBHOOK_TYPES
from .deprecation import HEADERS as DEPRECATION_HEADERS
from .deprecation import DeprecationDocs, init_deprecation
from .fields import CARD_SCHEMA, CardField
from .flask_smorest_overrides import Api
from .hooks.guards import ENTITY_TAGS_MAX_LENGTH, ENTITY_TAGS_PATTERN
from .hooks.limits import RATE_LIMIT_HEADERS, RateLimitDocs
from .idempotency import HEADER as IDEMPOTENCY_KEY
from .idempotency import REPLAYED, IdempotencyDocs
from .problems import PROBLEMS, register_problem_handlers
from .resources.games.schemas import ChallengeSeatSchema, NewBotSchema, NewPersonSchema, PlayerSeatSchema
from .resources.queue.schemas import TICKET_STATUSES
from .resources.seats.schemas import JOIN_GAME_COMPONENT, JoinGameAsPersonSchema, JoinGameAsPlayerSchema
from .schemas import ACTION_KINDS, CAUSES, FIRST_DEALER_CHOICES, SEAT_KINDS, ResponseSchema

__all__ = ["CONTRACT_VERSION", "Api", "init_api"]

#: The version of the HTTP contract this code serves (docs/compatibility.md): the spec's ``info.version``.
CONTRACT_VERSION = "1.3.0"

DESCRIPTION = f"""\
A service that hosts games of **Coins**, the three-player trick-taking card game designed
by **Mark Steere** (October 2022), played with the 48-card Spanish deck. The rules are
Mark Steere's, unchanged; this API enforces them.

**How a game goes.** Create a game (`createGame`), let two more players take the open
seats (`joinGame`), and the game starts: the dealer deals (`dealHand`), each player reads
their cards (`getHand`) and plays one card per trick in turn (`playCard`), until a player's
score reaches the target. Anyone may read the public state (`getGame`), the scores
(`getScores`) and the completed tricks (`listTricks`); a lobby finds open seats with
`listGames?status=waiting_for_players`.

**Tokens.** Creating or joining a seat returns that seat's token, shown once. Send it as
`Authorization: Bearer <token>`. A token acts for exactly one seat of one game.

**Players.** A player (`createPlayer`) is one identity across games, with a key (`cpk_…`),
shown once: seats taken as `{{"player": "me"}}` with the key are the player's, and the key acts
for them wherever a seat's token is accepted. `rated` games seat players and bots only.

**Versions.** Every game has a `version` that grows with each change, sent as a strong
`ETag`. Reads honour `If-None-Match` (304 when nothing changed: poll cheaply); actions
honour `If-Match` (412 when the game has moved on).

**Retries.** Every `POST` takes an `Idempotency-Key` (a random UUID of yours): a retry with
the same key and body gets the first response again, marked `Idempotent-Replayed: true`, and
nothing is applied twice. Retry on connection errors, 5xx and 429 (after `Retry-After`).

**Limits.** Creating games (rematches included, and fewer games of bots alone, a leave that
leaves a game to three bots among them) and joining them are limited per client address, plays
and hints per token, refusals of unknown tokens per address, open event streams and long polls
per address and per token, far above what a person needs; over a limit the answer is 429
`too_many_requests` with `Retry-After`. Each limited operation states its limits, and its answers
say what is left in `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers-10).

**Links.** `Location` and `Link: <…>; rel="next"` carry root-relative URLs (`/v1/games?limit=20&cursor=…`):
resolve them against the URL of the request that got them (RFC 8288 §3.2, RFC 3986 §5), which
keeps the scheme, host and port of the base URL you call the API at: `new URL(link, response.url)`,
`urllib.parse.urljoin(str(response.url), link)`. A page's `next_cursor` says the same as its link.

**Errors** are RFC 9457 `application/problem+json` with a stable `code`:
{", ".join(f"`{code}`" for code in sorted(PROBLEMS))}. A request the server cannot read is
refused before any operation: a request line over 4,094 bytes (gunicorn's default limits) is 414
`uri_too_long`, more than 100 header fields or one over 8,190 bytes 431 `header_fields_too_large`,
malformed HTTP 400 `bad_request` (a chunked body that cannot be read, too, whatever the method: every
operation lists it).

**Cards** are strings `<rank>-<suit>` ({len(CARD_CODES)} codes, the `Card` enum).

**Fair deals.** Each hand's shuffle and cut are a pure function of a secret seed; its
SHA-256 (`commitment`) is published at the deal and the seed is revealed when the hand
ends, so every deal can be checked independently.
"""


def init_api(app: Flask) -> Api:
    app.config.setdefault("API_TITLE", "Coins")
    app.config.setdefault("API_VERSION", CONTRACT_VERSION)
    app.config.setdefault("OPENAPI_VERSION", "3.1.0")
    app.config.setdefault("ETAG_DISABLED", True)  # we set strong ETags from the game version ourselves
    app.config.setdefault(
        "API_SPEC_OPTIONS",
        {
            "info": {
                "description": DESCRIPTION,
                "license": {"name": "MIT", "url": "https://opensource.org/licenses/MIT"},
                "contact": {"name": "Coins service maintainers"},
            },
            "servers": [{"url": "/", "description": "This server"}],
        },
    )
    api = Api(spec_kwargs={"extra_plugins": [IdempotencyDocs(), DeprecationDocs(), RateLimitDocs()]})
    api.register_field(CardField, None, None)
    api.init_app(app)
    api.spec.components.schema("Card", CARD_SCHEMA)
    for name, enum_schema in ENUMS.items():
        api.spec.components.schema(name, enum_schema)
    api.spec.components.schemas.pop("PaginationMetadata", None)  # flask-smorest's; we paginate by cursor
    api.spec.components.security_scheme(
        "playerToken",
        {"type": "http", "scheme": "bearer", "description": "The seat's token from createGame or joinGame."},
    )
    api.spec.components.security_scheme(
        "playerKey",
        {
            "type": "http",
            "scheme": "bearer",
            "description": "A player's key (`cpk_…`) from createPlayer or replacePlayerKey: it acts for the "
            "player's seat in every game, wherever a seat's token is accepted.",
        },
    )
    for name, description in HEADERS.items():
        api.spec.components.header(name, description)
    for name, text in RATE_LIMIT_HEADERS.items():
        api.spec.components.header(name, {"description": text, "schema": {"type": "string"}})
    for name, description in DEPRECATION_HEADERS.items():  # in the spec once an operation is deprecated
        api.spec.components.header(name, description, lazy=True)
    for name, parameter in PARAMETERS.items():
        api.spec.components.parameter(name, "header", parameter)
    register_problem_handlers(app)
    init_deprecation(app)

    from .resources.actions import routes as history
    from .resources.events import routes as events
    from .resources.events.schemas import EVENT_SCHEMAS, FEED_EVENT_COMPONENT, UnlistedFeedEventSchema
    from .resources.games import routes as games
    from .resources.hands import routes as hands
    from .resources.health import routes as health
    from .resources.hints import routes as hints
    from .resources.player_events import routes as player_events
    from .resources.player_events.schemas import (
        PLAYER_EVENT_COMPONENT,
        PLAYER_EVENT_SCHEMAS,
        UnlistedPlayerEventSchema,
    )
    from .resources.players import routes as profiles
    from .resources.plays import routes as plays
    from .resources.push import routes as push_routes
    from .resources.queue import routes as quick_play
    from .resources.ratings import routes as ratings
    from .resources.records import routes as records
    from .resources.rematches import routes as rematches
    from .resources.reviews import routes as reviews
    from .resources.seats import routes as players
    from .resources.tricks import routes as tricks
    from .resources.webhooks import routes as webhook_routes

    for module in (
        games,
        players,
        rematches,
        hands,
        plays,
        hints,
        tricks,
        history,
        records,
        reviews,
        events,
        profiles,
        quick_play,
        ratings,
        webhook_routes,
        push_routes,
    ):
        api.register_blueprint(module.blp)
    api.register_blueprint(player_events.blp)
    event_schemas: list[type[ResponseSchema]] = [*EVENT_SCHEMAS.values(), *PLAYER_EVENT_SCHEMAS.values()]
    event_schemas += [UnlistedFeedEventSchema, UnlistedPlayerEventSchema]
    for schema in event_schemas:  # named as the unions refer to them
        name = schema.__name__.removesuffix("Schema")
        if name not in api.spec.components.schemas:
            api.spec.components.schema(name, schema=schema)
    api.spec.components.schema("FeedEvent", FEED_EVENT_COMPONENT)
    api.spec.components.schema("PlayerEvent", PLAYER_EVENT_COMPONENT)
    # A seat of createGame is documented as NewPerson, NewBot, PlayerSeat or ChallengeSeat; NewSeat only loads it.
    api.spec.components.schema("NewPerson", schema=NewPersonSchema)
    api.spec.components.schema("NewBot", schema=NewBotSchema)
    api.spec.components.schema("PlayerSeat", schema=PlayerSeatSchema)
    api.spec.components.schema("ChallengeSeat", schema=ChallengeSeatSchema)
    for name, only_null in (("NewPerson", "bot"), ("NewBot", "age")):  # see NewPersonSchema.bot
        api.spec.components.schemas[name]["properties"][only_null]["const"] = None
    api.spec.components.schemas.pop("NewSeat", None)
    # joinGame's body is documented as JoinGameAsPerson or JoinGameAsPlayer; JoinGame's schema loads it.
    api.spec.components.schema("JoinGameAsPerson", schema=JoinGameAsPersonSchema)
    api.spec.components.schema("JoinGameAsPlayer", schema=JoinGameAsPlayerSchema)
    api.spec.components.schemas["JoinGame"] = JOIN_GAME_COMPONENT
    api.register_blueprint(health.blp)  # the probes, outside /v1
    return api


HEADERS: dict[str, dict[str, Any]] = {
    "ETag": {"description": "Strong entity tag of the game's version.", "schema": {"type": "string"}},
    "Location": {
        "description": "URL of what the request created: a game, a player, a ticket.",
        "schema": {"type": "string"},
    },
    "Link": {
        "description": 'RFC 8288 link to the next page (rel="next"), when there is one.',
        "schema": {"type": "string"},
    },
    "WWW-Authenticate": {"description": "`Bearer` challenge.", "schema": {"type": "string"}},
    REPLAYED: {
        "description": "`true` when the response is the one first given to this request's `Idempotency-Key`: "
        "nothing was applied again.",
        "schema": {"type": "string", "enum": ["true"]},
    },
}

#: The named enums. A request takes only the values listed (an unknown one is 422); in a response
#: each is open (``anyOf: [the enum, string]``, :func:`.openapi.named_enum_to_ref`): values are
#: added within v1, and a client treats one it does not know as "something else".
ENUMS: dict[str, dict[str, Any]] = {
    "GameStatus": {
        "type": "string",
        "enum": list(STATUSES),
        "description": "Where a game stands: open seats, a hand to deal, a hand being played, over, or "
        "`cancelled` (it never started and never will: a reserved seat was declined or ran out).",
    },
    "NotificationType": {
        "type": "string",
        "enum": list(WEBHOOK_TYPES),
        "description": "A player-feed event type a webhook delivers or a push subscription sends.",
    },
    "CancelReason": {
        "type": "string",
        "enum": ["declined", "expired"],
        "description": "Why a game was cancelled: a reserved seat was `declined`, or it `expired` (not taken in time).",
    },
    "ChallengeSetting": {
        "type": "string",
        "enum": ["everyone", "nobody"],
        "description": "Who may challenge a player: `everyone` (the default) or `nobody`.",
    },
    "FirstDealerChoice": {
        "type": "string",
        "enum": list(FIRST_DEALER_CHOICES),
        "description": "How the first dealer was chosen: `named` at creation, the `oldest` player, or `drawn`.",
    },
    "BotStrength": {
        "type": "string",
        "enum": list(STRENGTHS),
        "description": "The strength of a computer player, weakest first.",
    },
    "HintStrength": {
        "type": "string",
        "enum": list(HINT_STRENGTHS),
        "description": "The strengths whose advice a hint gives, weakest first (not `master`, whose moves are the worker's).",
    },
    "ProblemCode": {
        "type": "string",
        "enum": sorted(PROBLEMS),
        "description": "Every problem `code` the service returns: stable, to branch on.",
    },
    "ActionCause": {
        "type": "string",
        "enum": list(CAUSES),
        "description": "Who made a move: the seat's `player` (a person or a player), its `bot`, the server's "
        "`auto`-deal, or a stand-in after a `timeout`.",
    },
    "ActionKind": {
        "type": "string",
        "enum": list(ACTION_KINDS),
        "description": "What a seat does on its turn: `deal` a hand or `play` a card.",
    },
    "TicketStatus": {
        "type": "string",
        "enum": list(TICKET_STATUSES),
        "description": "Where a quick-play ticket stands: `waiting`, `matched`, `expired` or `cancelled`.",
    },
    "SeatKind": {
        "type": "string",
        "enum": list(SEAT_KINDS),
        "description": "Who holds a seat in a record: a `person` (or a player), a `bot`, or nobody (`open`).",
    },
}

# `*` or entity tags; anything else (NUL, control characters, over-long) is 422 validation_error.
ENTITY_TAGS_SCHEMA = {"type": "string", "maxLength": ENTITY_TAGS_MAX_LENGTH, "pattern": ENTITY_TAGS_PATTERN}

PARAMETERS: dict[str, dict[str, Any]] = {
    "IfNoneMatch": {
        "name": "If-None-Match",
        "required": False,
        "description": "An `ETag` from an earlier read: answers 304 while the game has not changed.",
        "schema": ENTITY_TAGS_SCHEMA,
    },
    "IfMatch": {
        "name": "If-Match",
        "required": False,
        "description": "An `ETag` of the game: the action applies only if the game is still at that version (else 412).",
        "schema": ENTITY_TAGS_SCHEMA,
    },
    "IdempotencyKey": {
        "name": IDEMPOTENCY_KEY,
        "required": False,
        "description": "A key of your own (1 to 255 printable ASCII characters; a random UUID) to retry this "
        "request safely: a retry with the same key and the same body gets the first response again (with "
        "`Idempotent-Replayed: true`) and nothing is applied twice. The same key with another body is 422 "
        "`idempotency_key_reused`; while the first request runs, 409 `idempotency_key_in_use`. Keys are kept "
        "24 hours, per caller (the seat's token, else the client's address).",
        "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[\\x20-\\x7E]+$"},
    },
}
