"""Events: a game's feed of changes, as Server-Sent Events or as a JSON long poll."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from flask import Flask, Response, current_app, request
from flask.views import MethodView

from ....events import EventFeed, Item, Reader, ShareTaken, StreamsFull
from ...common import Blueprint, bearer_token
from ...context import GAME_ID
from ...openapi import SEAT_SECURITY
from ...problems import RETRY_AFTER_SECONDS, Problem
from .schemas import EventPageSchema, EventsQuerySchema

__all__ = ["FEED_EXTENSION", "blp", "frame", "init_feed"]

blp = Blueprint("events", __name__, url_prefix="/v1/games", description="Follow a game as it changes.")

FEED_EXTENSION = "coins.feed"
HEARTBEAT_SECONDS = 15  # the default of STREAM_HEARTBEAT_SECONDS: the contract wants one at least every 20 s
RETRY_MILLISECONDS = 2000  # what EventSource waits before it reconnects
EVENT_STREAM = "text/event-stream"

SSE_DESCRIPTION = f"""\
With `Accept: {EVENT_STREAM}`: Server-Sent Events. Each event has an `id:` (per game, strictly
increasing: send the last one back as `Last-Event-ID` to resume), an `event:` (its `type`) and a
`data:` line holding one `FeedEvent`. The stream starts with the `game` event (the whole state)
unless it resumes, ends after `game_finished`, and sends a comment line when idle (every
{HEARTBEAT_SECONDS} seconds by default, always under 20)."""


def init_feed(app: Flask, event_feed: EventFeed) -> None:
    """Serve ``event_feed``'s readers."""
    app.extensions[FEED_EXTENSION] = event_feed


def feed() -> EventFeed:
    event_feed: EventFeed = current_app.extensions[FEED_EXTENSION]
    return event_feed


# In the path's parameters, not doc(parameters=...), which would replace the query's (after, wait).
LAST_EVENT_ID = {
    "in": "header",
    "name": "Last-Event-ID",
    "required": False,
    "description": "Resume a stream after this event id (as `after` does); empty: from the start.",
    "schema": {"type": "string", "pattern": "^([0-9]{1,10})?$"},
}


@blp.route("/<game_id>/events", parameters=[GAME_ID, LAST_EVENT_ID])
class EventViews(MethodView):
    @blp.doc(
        operationId="getEvents",
        summary="Follow a game's changes (stream or long poll)",
        security=[{}, *SEAT_SECURITY],
        responses={
            200: {
                "description": "The events: a stream, or a page of them.",
                "content": {EVENT_STREAM: {"schema": {"type": "string", "description": SSE_DESCRIPTION}}},
            }
        },
    )
    @blp.arguments(EventsQuerySchema(), location="query", as_kwargs=True)
    @blp.response(200, EventPageSchema)
    @blp.problems(
        "bad_request",
        "invalid_token",
        "invalid_key",
        "game_not_found",
        "validation_error",
        "too_many_requests",
        "too_many_streams",
        "database_unavailable",
    )
    def get(self, game_id: str, wait: int, after: int | None = None) -> Any:
        """Every change of the game as it happens: the full state first (the `game` event), then one
        event per change, in order, none missing. Public: a spectator needs no token; a seat that
        sends its token (`Authorization: Bearer`) also receives its own private events (its cards
        after each deal). With `Accept: application/json` (the default) this is a long poll:
        the events after `after` at once, or as soon as one comes within `wait` seconds."""
        streaming = request.accept_mimetypes.best_match(["application/json", EVENT_STREAM]) == EVENT_STREAM
        last_event_id = _last_event_id()  # checked either way: a malformed one is refused, not ignored
        if after is None and streaming:
            after = last_event_id
        opened = contextlib.ExitStack()
        try:
            reader = opened.enter_context(
                feed().open(game_id, bearer_token(), after=after, address=request.remote_addr or "")
            )
        except ShareTaken as taken:  # this caller's own share: others still get theirs
            raise Problem(
                "too_many_requests", f"{taken}; close one first", headers={"Retry-After": str(RETRY_AFTER_SECONDS)}
            ) from None
        except StreamsFull as full:
            raise Problem(
                "too_many_streams", f"{full}; retry shortly", headers={"Retry-After": str(RETRY_AFTER_SECONDS)}
            ) from None
        if streaming:
            return _stream(reader, opened, feed().idle_seconds)
        with opened:
            return _page(reader, wait)


def _last_event_id() -> int | None:
    value = request.headers.get("Last-Event-ID", "").strip()
    if not value:
        return None
    if not (value.isascii() and value.isdigit()) or len(value) > 10:  # "²".isdigit(), yet int() refuses it
        raise Problem("bad_request", "Last-Event-ID must be an event id (a whole number)")
    return int(value)


def _page(reader: Reader, wait: int) -> Response:
    """The long poll's answer: what there is now, else what comes within ``wait`` seconds. The
    events are already JSON text: the body is put together around them."""
    items = reader.first()
    if not items and wait and not reader.finished:
        items = reader.next(wait)
    last_id = items[-1].id if items else reader.position
    body = '{"items":[' + ",".join(item.data for item in items) + '],"last_id":' + str(last_id) + "}"
    return Response(body, mimetype="application/json")


def _stream(reader: Reader, opened: contextlib.ExitStack, heartbeat: float) -> Response:
    """The stream: its events as they come, a comment line when idle, until the game ends, the
    client goes or the process stops (then the client resumes elsewhere with Last-Event-ID)."""

    def frames() -> Iterator[str]:
        with opened:  # the stream's slot is given back when the client goes (or the game ends)
            items = reader.first()
            yield f"retry: {RETRY_MILLISECONDS}\n\n" + "".join(frame(item) for item in items)
            while not (reader.finished or reader.closing):
                items = reader.next(heartbeat)
                if items:  # one write for the events of one change (a play can make four)
                    yield "".join(frame(item) for item in items)
                elif not reader.finished and not reader.closing:
                    yield ": keep-alive\n\n"

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return Response(frames(), mimetype=EVENT_STREAM, headers=headers)


def frame(item: Item) -> str:
    """An event as the stream sends it."""
    return f"id: {item.id}\nevent: {item.type}\ndata: {item.data}\n\n"
