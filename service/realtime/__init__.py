"""The real-time role: the event streams and long polls that wait, held on an event loop.

``coins-realtime`` (:mod:`.server`) runs :class:`RealtimeApp` on uvicorn: every request is
answered by the service's Flask app, and the readers its events view hands over are held by the
process's :class:`Hub`, which reads the stored events whenever the channel says a feed changed.
Behind the recommended proxy it gets only the feeds' requests; on one machine it serves them all.
"""

from __future__ import annotations

from flask import Flask

from ..api.context import EXTENSION as GAMES_EXTENSION
from ..api.resources.events.routes import FEED_EXTENSION
from ..config import Settings
from ..events import EventFeed, StreamShares
from .app import RealtimeApp
from .hub import Hub
from .liveness import Liveness, StoreLiveness

__all__ = ["Hub", "Liveness", "RealtimeApp", "StoreLiveness", "create_realtime_app", "realtime_app"]


def create_realtime_app(settings: Settings | None = None, *, threads: int = 10) -> RealtimeApp:
    """The ASGI application of a real-time process (settings from the environment without ``settings``)."""
    from .. import create_app  # the service's one wiring of Flask, the use cases and the store

    settings = settings or Settings.from_env()
    return realtime_app(create_app(settings), settings, threads=threads)


def realtime_app(web: Flask, settings: Settings, *, threads: int = 10) -> RealtimeApp:
    """The real-time role around ``web`` (an app ``create_app`` made with ``settings``)."""
    feed: EventFeed = web.extensions[FEED_EXTENSION]
    hub = Hub(
        feed,
        max_streams=settings.streams_per_process,
        shares=stream_shares(settings),
        heartbeat=settings.stream_heartbeat_seconds,
        liveness=StoreLiveness(web.extensions[GAMES_EXTENSION].store),
    )
    return RealtimeApp(web, hub, threads=threads)


def stream_shares(settings: Settings) -> StreamShares:
    """Each address's and each credential's share of a process's streams; like every limit, none with RATE_LIMITS=off."""
    if settings.rate_limits != "on":
        return StreamShares(per_address=0, per_credential=0)
    return StreamShares(per_address=settings.streams_per_address, per_credential=settings.streams_per_token)
