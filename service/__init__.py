"""Coins game service: create_app() wires Flask, the API and the database in one place."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from flask import Flask, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.middleware.proxy_fix import ProxyFix

from .addresses import AddressHasher
from .api import init_api
from .api.context import (
    ACCOUNTS_EXTENSION,
    ADDRESSES_EXTENSION,
    EXTENSION,
    PLAYER_FEEDS_EXTENSION,
    PLAYERS_EXTENSION,
    PUSH_EXTENSION,
    QUEUE_EXTENSION,
    RATINGS_EXTENSION,
    WEBHOOKS_EXTENSION,
)
from .api.docs import configure_docs
from .api.hooks.cors import init_cors
from .api.hooks.guards import init_guards
from .api.hooks.limits import LIMITS, LINEAGE_GAMES_PER_MINUTE, init_limits
from .api.hooks.security_headers import init_security_headers
from .api.problems import RETRY_AFTER_SECONDS, Problem
from .api.record_cache import init_record_cache
from .api.resources.events.routes import init_feed
from .api.resources.events.schemas import render_event
from .api.resources.player_events.schemas import render_player_event
from .config import Settings
from .events import EventFeed, channel_for
from .games import GameService, Pace
from .games.player_events import decode_player_event
from .observability import init_observability
from .players import Accounts, PlayerFeeds, PlayerService, connect_quick_play, connect_ratings
from .push import PushDeliverer, PushService, VapidKeys, private_from_raw, private_from_seed
from .quickplay import QueueService
from .ratings.reads import RatingReads
from .store import Database, DatabaseUnavailable, GameStore
from .store.migrate import SchemaNotMigrated, require_migrated, upgrade
from .store.rate_limits import DatabaseStorage
from .store.secrets import service_secret
from .web import init_web
from .webhooks import AddressPolicy, Deliverer, SecretBox, WebhookService, fernet_key_from_hex, tls_context

__all__ = ["SCHEMA_EXTENSION", "KeysWarmUp", "SchemaCheck", "SchemaNotMigrated", "create_app"]

log = logging.getLogger(__name__)
ADDRESS_KEY_SECRET = "address_hash_key"
WEBHOOK_KEY_SECRET = "webhook_secrets_key"
VAPID_KEY_SECRET = "vapid_private_key"
DELIVERER_EXTENSION = "coins.deliverers"  # the worker's deliveries: to webhooks, and push messages (Deliverers)
SCHEMA_EXTENSION = "coins.schema"  # with AUTO_MIGRATE=false: the check that the database was migrated (SchemaCheck)


def create_app(settings: Settings | None = None, *, pre_ping: bool = True) -> Flask:
    """The WSGI application. Without ``settings`` they come from the environment. ``pre_ping``: see
    :class:`.Database` (the worker, which tries a failed pass again, goes without).

    With ``AUTO_MIGRATE=false``, raises :class:`SchemaNotMigrated` (after logging why) when the
    database answers and was not migrated to this code's revision: each role then exits."""
    settings = settings or Settings.from_env()
    app = Flask(__name__)
    # A path with "//" (or a %2F between slashes) names no resource: 404 not_found, not werkzeug's redirect
    # (a 308 with an HTML body) to the path with the slashes merged. Set before any route is added.
    app.url_map.merge_slashes = False
    app.config["MAX_CONTENT_LENGTH"] = settings.max_request_bytes
    app.config["COINS_SETTINGS"] = settings
    json_bodies = app.json
    assert isinstance(json_bodies, DefaultJSONProvider)
    json_bodies.sort_keys = False  # keys in the order the schemas give them
    json_bodies.ensure_ascii = False  # UTF-8, as the rest of the service writes JSON
    init_security_headers(app)  # first registered, so its after_request hook runs last: on every response
    init_guards(app)  # malformed game ids, entity tags and bodies, refused before any view reads the database

    db = Database(
        settings.sqlalchemy_url,
        pool_size=settings.db_pool_size,
        busy_timeout_ms=settings.db_busy_timeout_ms,
        pre_ping=pre_ping,
    )
    schema: SchemaCheck | None = None
    if settings.auto_migrate:
        _migrate_when_reachable(app, db)
    else:
        schema = app.extensions[SCHEMA_EXTENSION] = SchemaCheck(db)
        app.before_request(schema.before_request)
    app.extensions["coins.db"] = db
    addresses = AddressHasher(_address_key(settings, db))
    app.extensions[ADDRESSES_EXTENSION] = addresses
    keys = KeysWarmUp(addresses.warm)  # the keys read before any request's transaction begins
    app.before_request(keys)
    channel = channel_for(db, listen_url=settings.database_listen_url, redis_url=settings.redis_url)
    store = GameStore(db)
    lineage = LINEAGE_GAMES_PER_MINUTE if settings.rate_limits == "on" else 0
    pace = Pace(timedelta(milliseconds=settings.bot_pace_ms), timedelta(milliseconds=settings.trick_pause_ms))
    games = GameService(
        store, signals=channel, key_hours=settings.idempotency_key_hours, rematches_per_minute=lineage, pace=pace
    )
    app.extensions[EXTENSION] = games
    players = PlayerService(games.unit_of_work, lambda: games.clock())
    app.extensions[PLAYERS_EXTENSION] = players
    app.extensions[ACCOUNTS_EXTENSION] = Accounts(games, lambda: games.clock())
    # The players' feeds: quick play's match_found and the ratings' game_result are appended here.
    player_feeds = PlayerFeeds(store, players, lambda: games.clock())
    app.extensions[PLAYER_FEEDS_EXTENSION] = player_feeds
    queue = QueueService(games, window_seconds=settings.queue_match_seconds)
    app.extensions[QUEUE_EXTENSION] = queue
    connect_quick_play(queue, player_feeds)  # match_found on the feeds; the feeds' heartbeats keep tickets
    connect_ratings(games, player_feeds)  # game_result on the feeds once a rated game's ratings are applied
    app.extensions[RATINGS_EXTENSION] = RatingReads(store.ratings, lambda: games.clock())
    keys.steps += _init_webhooks(app, settings, store, games)
    init_record_cache(app, settings.record_cache_bytes)
    init_feed(
        app,
        EventFeed(
            games,
            store,
            channel,
            render_event,  # the api's one renderer: the feed renders the domain events it reads, on the way out
            players=player_feeds,
            render_player=render_player_event,
        ),
    )

    configure_docs(app)
    init_web(app)
    init_api(app)
    init_cors(app, settings.cors_origins)
    init_observability(app, settings)
    # After the request ids and the access log's clock; a hook, so before every view: a request
    # over a limit claims no Idempotency-Key (the views claim keys, see api/idempotency.py).
    init_limits(app, enabled=settings.rate_limits == "on", **_limits_storage(settings, db))
    _trust_proxies(app, settings.trusted_proxy_hops)
    if schema is not None:
        schema.at_start()  # once the logs are set up: a refusal is one JSON line
    return app


def _address_key(settings: Settings, db: Database) -> Callable[[], bytes]:
    """The key of the addresses' keyed hashes: ``ADDRESS_HASH_KEY``, else the one kept in the database."""
    if settings.address_hash_key:
        return settings.address_hash_key.encode
    return lambda: bytes.fromhex(service_secret(db, ADDRESS_KEY_SECRET))


class KeysWarmUp:
    """One hook before every request: the keys the service may have to make and keep in the database
    (the addresses', the webhooks' secrets', the VAPID key) are read before the request's own
    transaction begins, never inside one (on SQLite it holds the one write lock that making a key
    waits for). Each warm-up says whether its key is in hand; once all are, a request does nothing
    more here."""

    def __init__(self, *steps: Callable[[], bool]) -> None:
        self.steps = list(steps)

    def __call__(self) -> None:
        if self.steps:
            self.steps = [step for step in self.steps if not step()]


class Deliverers:
    """What the worker sends each pass: the webhooks' deliveries, then the push messages."""

    def __init__(self, webhooks: Deliverer, push: PushDeliverer) -> None:
        self.webhooks = webhooks
        self.push = push

    def deliver_due(self, now: Any, patience: float | None = None) -> int:
        return self.webhooks.deliver_due(now, patience) + self.push.deliver_due(now, patience)


def _init_webhooks(app: Flask, settings: Settings, store: GameStore, games: GameService) -> list[Callable[[], bool]]:
    """The players' webhooks and push subscriptions (their requests) and their deliveries (the
    worker's): one address policy, one key for the secrets (``WEBHOOK_SECRETS_KEY``, else the one
    kept in the database), one VAPID key (``VAPID_PRIVATE_KEY``, else the one kept in the database).
    Returns the two keys' warm-ups, for :class:`KeysWarmUp`."""
    policy = AddressPolicy(settings.webhook_allow_networks)
    configured = settings.webhook_secrets_key

    def key() -> bytes:
        return configured.encode() if configured else fernet_key_from_hex(service_secret(store.db, WEBHOOK_KEY_SECRET))

    box = SecretBox(key)
    app.extensions[WEBHOOKS_EXTENSION] = WebhookService(games.unit_of_work, lambda: games.clock(), policy, box)
    render = lambda stored: render_player_event(decode_player_event(stored))  # noqa: E731
    context = tls_context(settings.webhook_ca_bundle)
    webhooks = Deliverer(store.webhook_deliveries, policy, box, render, context)
    configured_vapid = settings.vapid_private_key
    vapid = VapidKeys(
        lambda: (
            private_from_raw(configured_vapid)
            if configured_vapid
            else private_from_seed(service_secret(store.db, VAPID_KEY_SECRET))
        )
    )
    app.extensions[PUSH_EXTENSION] = PushService(games.unit_of_work, lambda: games.clock(), policy, box, vapid)
    push = PushDeliverer(store.push_deliveries, policy, box, vapid, settings.vapid_subject, render, context)
    app.extensions[DELIVERER_EXTENSION] = Deliverers(webhooks, push)
    return [box.warm, vapid.warm]


def _trust_proxies(app: Flask, hops: int) -> None:
    """With ``hops`` proxies in front, the client's address is the one the last of them put in
    ``X-Forwarded-For`` (``ProxyFix``): every per-address limit, idempotency key scope and access
    log line then sees the client, not the proxy. Only the address: the scheme and host stay the
    request's own (nothing here builds absolute URLs). With 0 the header is ignored, as a client
    that reaches the service directly can write anything in it."""
    if hops:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=0, x_host=0, x_port=0, x_prefix=0)  # type: ignore[method-assign]


def _limits_storage(settings: Settings, db: Database) -> dict[str, Any]:
    """Where rate-limit counters live, shared by every worker and instance: Redis with ``REDIS_URL``,
    else the database (``limits`` has no SQL storage: :class:`DatabaseStorage` is ours, and counts
    accepted plays from their actions)."""
    if settings.redis_url:
        return {"storage_uri": settings.redis_url, "storage_options": {}}
    return {
        "storage_uri": f"{DatabaseStorage.STORAGE_SCHEME[0]}://",
        "storage_options": {"database": db, "plays": LIMITS["plays"][0]},
        "plays_counted_by_their_actions": True,
    }


def _migrate_when_reachable(app: Flask, db: Database) -> None:
    """Upgrade the schema to the newest revision (safe when many workers start at once).

    A worker that starts while the database is down must still boot: gunicorn stops the whole
    server when a worker fails to. It then answers 503 like any worker during an outage, and
    tries the upgrade again before each request that needs the database, until it succeeds.
    """
    pending = [True]

    def attempt() -> None:
        try:
            upgrade(db)
        except DatabaseUnavailable as error:
            log.warning("database unavailable: schema upgrade postponed (%s)", error)
        else:
            pending.clear()

    attempt()

    @app.before_request
    def upgrade_once_reachable() -> None:
        if pending and (request.path.startswith("/v1/") or request.path == "/readyz"):
            attempt()


class SchemaCheck:
    """With ``AUTO_MIGRATE=false`` nothing migrates the database but ``coins-migrate``: a process
    that starts on a database behind this code's revision (or empty) would fail every query of what
    is missing, so it refuses to start (:meth:`at_start`), with one line saying which revision is
    needed. A database that does not answer at the start is checked once it does: until then and
    while it is behind, the web role answers 503 ``database_unavailable`` saying so
    (:meth:`before_request`), and the worker exits (:meth:`check`, which its passes call)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.pending = True
        self._said = False

    def check(self) -> None:
        """Nothing once the database was found migrated; else :class:`SchemaNotMigrated` (logged,
        once) or :class:`DatabaseUnavailable`."""
        if not self.pending:
            return
        try:
            require_migrated(self.db)
        except SchemaNotMigrated as error:
            if not self._said:
                log.error("%s", error)
                self._said = True
            raise
        self.pending = False

    def at_start(self) -> None:
        try:
            self.check()
        except DatabaseUnavailable as error:
            log.warning("database unavailable: its schema revision is checked once it answers (%s)", error)

    def before_request(self) -> None:
        if self.pending and (request.path.startswith("/v1/") or request.path == "/readyz"):
            try:
                self.check()
            except DatabaseUnavailable:
                pass  # the request meets the outage itself: 503
            except SchemaNotMigrated as error:
                raise Problem(
                    "database_unavailable", str(error), headers={"Retry-After": str(RETRY_AFTER_SECONDS)}
                ) from error
