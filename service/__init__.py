"""Coins game service: create_app() wires Flask, the API and the database in one place."""

from __future__ import annotations

from flask import Flask, request

from .api import init_api
from .api.context import EXTENSION
from .api.cors import init_cors
from .api.docs import configure_docs
from .api.problems import Problem
from .config import Settings
from .games import GameService
from .observability import init_observability
from .store import Database
from .store.migrate import upgrade

__all__ = ["create_app"]

BODY_METHODS = ("POST", "PUT", "PATCH")


def create_app(settings: Settings | None = None) -> Flask:
    """The WSGI application. Without ``settings`` they come from the environment."""
    settings = settings or Settings.from_env()
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = settings.max_request_bytes
    app.config["COINS_SETTINGS"] = settings
    app.json.sort_keys = False  # type: ignore[attr-defined]

    db = Database(settings.sqlalchemy_url, pool_size=settings.db_pool_size, busy_timeout_ms=settings.db_busy_timeout_ms)
    if settings.auto_migrate:
        upgrade(db)  # to the newest revision; safe when many workers start at once
    app.extensions["coins.db"] = db
    app.extensions[EXTENSION] = GameService(db)

    @app.before_request
    def require_json_body() -> None:
        has_body = request.content_length or request.mimetype
        if request.method in BODY_METHODS and has_body and not request.is_json:
            raise Problem("unsupported_media_type", "send the body as application/json")

    configure_docs(app)
    api = init_api(app)
    init_cors(app, settings.cors_origins)
    init_observability(app, settings, api)
    return app
