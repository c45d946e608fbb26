"""Settings from the environment, with defaults that run out of the box, checked at start-up."""

from __future__ import annotations

import base64
import binascii
import ipaddress
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields

__all__ = ["ConfigError", "Settings"]

DEFAULT_DATABASE_URL = "sqlite:///var/coins.sqlite3"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class ConfigError(ValueError):
    """A setting has a value the service cannot run with; the message names it."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Every setting, its environment variable (the upper-case name) and its default."""

    database_url: str = DEFAULT_DATABASE_URL
    # PostgreSQL: where each process LISTENs for changes (default: DATABASE_URL). LISTEN needs a
    # session of its own: with a transaction-mode PgBouncer, point this at PostgreSQL itself.
    database_listen_url: str = field(default="", repr=False)  # may hold a password
    log_level: str = "INFO"
    cors_origins: tuple[str, ...] = ()
    max_request_bytes: int = 16 * 1024
    db_pool_size: int = 5
    db_busy_timeout_ms: int = 30_000
    auto_migrate: bool = True
    # What one real-time process holds at once: streams and waiting long polls in all, of one client
    # address, of one credential (the last two 0: no cap).
    streams_per_process: int = 20_000
    streams_per_address: int = 200
    streams_per_token: int = 5
    stream_heartbeat_seconds: int = 15
    metrics_token: str = field(default="", repr=False)  # a secret: kept out of reprs and logs
    idempotency_key_hours: int = 24
    record_cache_bytes: int = 32 * 1024 * 1024  # finished games' records kept per process (0: none)
    rate_limits: str = "on"
    # Proxies in front of the service whose X-Forwarded-For it believes (0: none; the client is the socket's peer).
    trusted_proxy_hops: int = 0
    # Quick play: after this many seconds any three waiting tickets of a kind match (1 to 60).
    queue_match_seconds: int = 60
    redis_url: str = field(default="", repr=False)  # may hold a password
    # The key of the keyed hashes of client addresses (service.addresses): a secret, at least 32
    # characters. Empty: one the service makes and keeps in its database (set it in production).
    address_hash_key: str = field(default="", repr=False)
    # The worker role's pause between two passes over the due games (milliseconds, 10 to 10000).
    worker_poll_ms: int = 500
    # How often each worker runs the retention purge (minutes, 0 to 10080; 0: never, e.g. where
    # `coins-purge` runs from cron instead). What it deletes: PURGE_FINISHED_AFTER_DAYS and
    # PURGE_ABANDONED_AFTER_DAYS (service/store/purge.py).
    purge_every_minutes: int = 60
    # The key that encrypts webhooks' signing secrets at rest (a Fernet key: 32 bytes, url-safe
    # base64). Empty: one the service makes and keeps in its database (set it in production).
    webhook_secrets_key: str = field(default="", repr=False)
    # For tests only: networks webhooks may reach besides public addresses (comma-separated CIDRs,
    # e.g. 127.0.0.0/8), and a CA bundle (a file) deliveries trust instead of the system's.
    webhook_allow_networks: tuple[str, ...] = ()
    webhook_ca_bundle: str = ""
    # Web Push's VAPID key (RFC 8292): the private key's 32 bytes in base64url. Empty: one the service
    # makes once and keeps in its database. VAPID_SUBJECT: the contact push services may write to
    # about the service's messages (a mailto: or https: URL; set it in production).
    vapid_private_key: str = field(default="", repr=False)
    vapid_subject: str = "mailto:coins@localhost"
    # The bots' pace: a server move (a bot's, an auto-deal) falls due this long after the move before
    # it, so that people can follow (milliseconds, 0 to 10000; 0 in tests: at once).
    bot_pace_ms: int = 1000
    # The pause after a trick completes (and before the deal after a hand), instead of the pace: at
    # least the web client's pause after a trick (1200 ms, service/web/js/pacing.js), so that the
    # next card never lands while the last trick is still shown (milliseconds, 0 to 10000).
    trick_pause_ms: int = 1500

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Read ``DATABASE_URL``, ``LOG_LEVEL``, ``CORS_ORIGINS`` (comma-separated),
        ``MAX_REQUEST_BYTES``, ``DB_POOL_SIZE``, ``DB_BUSY_TIMEOUT_MS``, ``AUTO_MIGRATE``, ``STREAMS_PER_PROCESS``,
        ``STREAMS_PER_ADDRESS``, ``STREAMS_PER_TOKEN``, ``STREAM_HEARTBEAT_SECONDS``, ``IDEMPOTENCY_KEY_HOURS``, ``RECORD_CACHE_BYTES``, ``RATE_LIMITS``,
        ``TRUSTED_PROXY_HOPS``, ``QUEUE_MATCH_SECONDS``, ``REDIS_URL``, ``ADDRESS_HASH_KEY``, ``WORKER_POLL_MS``,
        ``PURGE_EVERY_MINUTES``, ``BOT_PACE_MS``, ``TRICK_PAUSE_MS``, ``WEBHOOK_SECRETS_KEY``, ``WEBHOOK_ALLOW_NETWORKS`` (comma-separated),
        ``WEBHOOK_CA_BUNDLE``, ``VAPID_PRIVATE_KEY`` and ``VAPID_SUBJECT``. An empty value (``FOO=``,
        as docker-compose and shells pass a variable set to nothing) means unset: the default."""
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        for f in fields(cls):
            raw = env.get(f.name.upper(), "").strip()
            if raw:
                values[f.name] = _parse(f.name, raw)
        settings = cls(**values)  # type: ignore[arg-type]
        settings.validate()
        return settings

    def validate(self) -> None:
        if not self.database_url.startswith(("sqlite:", "postgresql:", "postgresql+psycopg:", "postgres:")):
            raise ConfigError("DATABASE_URL must be a sqlite:/// or postgresql:// URL")
        if self.log_level not in LOG_LEVELS:
            raise ConfigError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}")
        if not 256 <= self.max_request_bytes <= 10 * 1024 * 1024:
            raise ConfigError("MAX_REQUEST_BYTES must be between 256 and 10485760")
        if not 1 <= self.db_pool_size <= 100:
            raise ConfigError("DB_POOL_SIZE must be between 1 and 100")
        if not 0 <= self.db_busy_timeout_ms <= 600_000:
            raise ConfigError("DB_BUSY_TIMEOUT_MS must be between 0 and 600000")
        if not 0 <= self.streams_per_process <= 100_000:
            raise ConfigError("STREAMS_PER_PROCESS must be between 0 and 100000")
        if not 0 <= self.streams_per_address <= 10_000:
            raise ConfigError("STREAMS_PER_ADDRESS must be between 0 and 10000")
        if not 0 <= self.streams_per_token <= 10_000:
            raise ConfigError("STREAMS_PER_TOKEN must be between 0 and 10000")
        if not 1 <= self.stream_heartbeat_seconds <= 19:
            raise ConfigError("STREAM_HEARTBEAT_SECONDS must be between 1 and 19")
        if not 24 <= self.idempotency_key_hours <= 24 * 30:
            raise ConfigError("IDEMPOTENCY_KEY_HOURS must be between 24 and 720")
        if not 0 <= self.record_cache_bytes <= 1024 * 1024 * 1024:
            raise ConfigError("RECORD_CACHE_BYTES must be between 0 and 1073741824")
        if not 1 <= self.queue_match_seconds <= 60:
            raise ConfigError("QUEUE_MATCH_SECONDS must be between 1 and 60")
        if self.rate_limits not in ("on", "off"):
            raise ConfigError("RATE_LIMITS must be on or off")
        if not 0 <= self.trusted_proxy_hops <= 5:
            raise ConfigError("TRUSTED_PROXY_HOPS must be between 0 and 5")
        if self.database_listen_url and not self.database_listen_url.startswith(("postgresql:", "postgres:")):
            raise ConfigError("DATABASE_LISTEN_URL must be a postgresql:// URL")
        if self.redis_url and not self.redis_url.startswith(("redis://", "rediss://", "unix://")):
            raise ConfigError("REDIS_URL must be a redis://, rediss:// or unix:// URL")
        if not 10 <= self.worker_poll_ms <= 10_000:
            raise ConfigError("WORKER_POLL_MS must be between 10 and 10000")
        if not 0 <= self.purge_every_minutes <= 10_080:
            raise ConfigError("PURGE_EVERY_MINUTES must be between 0 and 10080")
        if not 0 <= self.bot_pace_ms <= 10_000:
            raise ConfigError("BOT_PACE_MS must be between 0 and 10000")
        if not 0 <= self.trick_pause_ms <= 10_000:
            raise ConfigError("TRICK_PAUSE_MS must be between 0 and 10000")
        for origin in self.cors_origins:  # as a browser sends Origin: no path, not even "/"; else it never matches
            if origin != "*" and not re.fullmatch(r"https?://[^\s/?#@]+", origin):
                raise ConfigError(f"CORS_ORIGINS: {origin!r} is not an origin (scheme://host[:port], no path)")
        if self.address_hash_key and len(self.address_hash_key) < 32:
            raise ConfigError("ADDRESS_HASH_KEY must be at least 32 characters (a random secret)")
        self._validate_webhooks()

    def _validate_webhooks(self) -> None:
        if self.webhook_secrets_key:
            try:
                if len(base64.urlsafe_b64decode(self.webhook_secrets_key.encode("ascii"))) != 32:
                    raise ValueError
            except (ValueError, binascii.Error):
                raise ConfigError("WEBHOOK_SECRETS_KEY must be a Fernet key: 32 bytes in url-safe base64") from None
        for network in self.webhook_allow_networks:
            try:
                ipaddress.ip_network(network)
            except ValueError:
                raise ConfigError(f"WEBHOOK_ALLOW_NETWORKS: {network!r} is not a network (CIDR)") from None
        if self.webhook_ca_bundle and not os.path.isfile(self.webhook_ca_bundle):
            raise ConfigError("WEBHOOK_CA_BUNDLE must name a file of CA certificates")
        vapid = self.vapid_private_key.rstrip("=")
        if vapid:
            try:
                raw = base64.urlsafe_b64decode(vapid + "=" * (-len(vapid) % 4))
                if len(raw) != 32 or not 0 < int.from_bytes(raw, "big") < P256_ORDER:
                    raise ValueError
            except (ValueError, binascii.Error):
                raise ConfigError("VAPID_PRIVATE_KEY must be a P-256 private key: 32 bytes in base64url") from None
        if (
            not re.fullmatch(r"mailto:[^@\s]+@[^@\s]+|https://[^\s/]+(/\S*)?", self.vapid_subject)
            or len(self.vapid_subject) > 200
        ):
            raise ConfigError("VAPID_SUBJECT must be a mailto: or https:// URL (a contact for push services)")

    @property
    def sqlalchemy_url(self) -> str:
        """``postgres://`` (Heroku style) and ``postgresql://`` both mean psycopg 3."""
        url = self.database_url
        for prefix in ("postgres://", "postgresql://"):
            if url.startswith(prefix):
                return "postgresql+psycopg://" + url[len(prefix) :]
        return url


P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551  # a VAPID key is below it


def _parse(name: str, raw: str) -> object:
    upper = name.upper()
    if name in (
        "max_request_bytes",
        "db_pool_size",
        "db_busy_timeout_ms",
        "streams_per_process",
        "streams_per_address",
        "streams_per_token",
        "stream_heartbeat_seconds",
        "idempotency_key_hours",
        "record_cache_bytes",
        "trusted_proxy_hops",
        "queue_match_seconds",
        "worker_poll_ms",
        "purge_every_minutes",
        "bot_pace_ms",
        "trick_pause_ms",
    ):
        try:
            return int(raw)
        except ValueError:
            raise ConfigError(f"{upper} must be a whole number, not {raw!r}") from None
    if name == "auto_migrate":
        if raw.lower() not in ("1", "0", "true", "false", "yes", "no"):
            raise ConfigError(f"{upper} must be true or false, not {raw!r}")
        return raw.lower() in ("1", "true", "yes")
    if name in ("cors_origins", "webhook_allow_networks"):
        return tuple(origin.strip() for origin in raw.split(",") if origin.strip())
    if name == "log_level":
        return raw.upper()
    if name == "rate_limits":
        return raw.lower()
    return raw
