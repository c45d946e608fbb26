"""Events: a game's feed of changes, as Server-Sent Events or as a JSON long poll."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from flask import Flask, Response, current_app, request
from flask.views import MethodView

from ....events import EventFeed, Hold, Holder, Item, Opening, ShareTaken, StreamsFull
from ...common import Blueprint, bearer_token
from ...context import GAME_ID, PRIVATE
from ...openapi import SEAT_SECURITY
from ...problems import RETRY_AFTER_SECONDS, Problem
from .schemas import MAX_EVENT_ID, EventPageSchema, EventsQuerySchema

__all__ = [
    "EVENT_STREAM",
    "FEED_EXTENSION",
    "HOLDER_EXTENSION",
    "RETRY_MILLISECONDS",
    "blp",
    "feed",
    "hold_streams",
    "init_feed",
    "last_event_id",
    "page",
    "page_body",
    "serve",
    "stream_schema",
    "stream_problem",
]

blp = Blueprint("events", __name__, url_prefix="/v1/games", description="Follow a game as it changes.")

FEED_EXTENSION = "coins.feed"
HOLDER_EXTENSION = "coins.holder"
NO_HOLDER = "this process holds no streams (the real-time role does: see docs/scaling.md)"
STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
HEARTBEAT_SECONDS = 15  # the default of STREAM_HEARTBEAT_SECONDS: the contract wants one at least every 20 s
RETRY_MILLISECONDS = 2000  # what EventSource waits before it reconnects
EVENT_STREAM = "text/event-stream"

SSE_DESCRIPTION = f"""\
With `Accept: {EVENT_STREAM}`: Server-Sent Events. Each event has an `id:` (per game, strictly
increasing: send the last one back as `Last-Event-ID` to resume), an `event:` (its `type`) and a
`data:` line holding one `FeedEvent` (`$defs.event`). The stream starts with the `game` event (the whole state)
unless it resumes, ends after `game_finished`, and sends a comment line when idle (every
{HEARTBEAT_SECONDS} seconds by default, always under 20). Event types are added within v1: skip an
event whose `type` you do not know (`UnlistedFeedEvent`; its `game` is still the state after it)."""


def stream_schema(description: str, union: str) -> dict[str, Any]:
    """The spec's schema of a feed's ``text/event-stream`` answer: text, the events' union (the
    component ``union``, what each ``data:`` line holds) in its ``$defs``: OpenAPI 3.1 has no schema
    for the items of a stream, and this keeps the union a used component (linters, generators)."""
    return {"type": "string", "description": description, "$defs": {"event": {"$ref": f"#/components/schemas/{union}"}}}


def init_feed(app: Flask, event_feed: EventFeed) -> None:
    """Serve ``event_feed``'s readers."""
    app.extensions[FEED_EXTENSION] = event_feed


def hold_streams(app: Flask, holder: Holder) -> None:
    """Have ``holder`` keep the streams and waiting long polls of the requests it passes to ``app``."""
    app.extensions[HOLDER_EXTENSION] = holder


def feed() -> EventFeed:
    event_feed: EventFeed = current_app.extensions[FEED_EXTENSION]
    return event_feed


# In the path's parameters, not doc(parameters=...), which would replace the query's (after, wait).
LAST_EVENT_ID = {
    "in": "header",
    "name": "Last-Event-ID",
    "required": False,
    "description": "Resume a stream after this event id (as `after` does); empty: from the start. An "
    "id past the feed's last event is refused (`400`, `unknown_event_id`).",
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
                "content": {EVENT_STREAM: {"schema": stream_schema(SSE_DESCRIPTION, "FeedEvent")}},
            }
        },
    )
    @blp.arguments(EventsQuerySchema(), location="query", as_kwargs=True)
    @blp.response(200, EventPageSchema)
    @blp.problems(
        "bad_request",
        "unknown_event_id",
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
        the events after `after` at once, or as soon as one comes within `wait` seconds. Types of
        events not listed here may appear (they are added within v1): skip them."""
        token = bearer_token()
        return serve(
            lambda start: feed().open_game(game_id, token, after=start),
            EventFeed.credential(token, game_id),
            wait,
            after,
        )


def serve(
    open_reader: Callable[[int | None], Opening], credential: str | None, wait: int, after: int | None
) -> Response:
    """A feed's answer, a stream or a long poll as ``Accept`` asks, for the reader ``open_reader(after)``
    opens (``after`` None: from the start; a stream also resumes after its ``Last-Event-ID``),
    counted in the shares of the caller's address and ``credential``.

    What can be answered now is answered here: the first events of a stream, a page of a long poll.
    What must wait (a stream's next events, a long poll with nothing yet) is handed to the process's
    holder (the real-time role); a process without one (the web role) answers only what need not
    wait (a page, a stream of a game already over) and refuses the rest, ``503 too_many_streams``
    with ``Retry-After``, as a process whose every slot is taken (behind the shipped proxy the web
    role never gets one: the proxy sends the feeds to the real-time role)."""
    # The answer depends on the credential: a reader with one gets its own events too (a seat's cards,
    # a player's feed), said private; a spectator's is public, but not a seat's (Vary).
    headers = PRIVATE if credential is not None else {"Vary": PRIVATE["Vary"]}
    streaming = request.accept_mimetypes.best_match(["application/json", EVENT_STREAM]) == EVENT_STREAM
    resume_after = last_event_id()  # checked either way: a malformed one is refused, not ignored
    if after is None and streaming:
        after = resume_after
    # No chunks in HTTP/1.0, so no stream can be held over it: it gets what there is now, then resumes.
    at_once = streaming and request.environ.get("SERVER_PROTOCOL") == "HTTP/1.0"
    holder = None if at_once else _holder()
    if holder is None:  # the web role (or HTTP/1.0): what need not wait is answered, the rest refused
        opening = open_reader(after)
        if streaming and (opening.finished or at_once):
            return _stream(None, opening, lambda: None, headers)
        if not streaming and (opening.items or not wait or opening.finished):
            return page(opening, headers)
        raise stream_problem(StreamsFull(NO_HOLDER))
    try:
        release = holder.admit(_address(), credential)
    except (ShareTaken, StreamsFull) as refused:
        raise stream_problem(refused) from None
    try:
        opening = open_reader(after)
        if streaming:
            return _stream(holder, opening, release, headers)
        if opening.items or not wait or opening.finished:
            release()
            return page(opening, headers)
        holder.hand_over(request.environ, Hold(opening, stream=False, wait=wait, release=release))
        # the holder sends the page when it comes, after these headers
        return Response(mimetype="application/json", headers=headers)
    except BaseException:
        release()
        raise


def _holder() -> Holder | None:
    """The process's holder, if this request's connection can be held."""
    holder: Holder | None = current_app.extensions.get(HOLDER_EXTENSION)
    return holder if holder is not None and holder.can_hold(request.environ) else None


def _address() -> str:
    return request.remote_addr or ""


def stream_problem(refused: ShareTaken | StreamsFull) -> Problem:
    """The answer to a reader this process cannot take: the caller's own share is used up (others
    still get theirs), or every slot of the process is."""
    retry = {"Retry-After": str(RETRY_AFTER_SECONDS)}
    if isinstance(refused, ShareTaken):
        return Problem("too_many_requests", f"{refused}; close one first", headers=retry)
    return Problem("too_many_streams", f"{refused}; retry shortly", headers=retry)


def last_event_id() -> int | None:
    value = request.headers.get("Last-Event-ID", "").strip()
    if not value:
        return None
    # "²".isdigit(), yet int() refuses it; the length first: int() of a long text is slow
    if not (value.isascii() and value.isdigit()) or len(value) > 10:
        raise Problem("bad_request", "Last-Event-ID must be an event id (a whole number)")
    # The spec's ten digits: more than the id column holds is past every event, as the largest id is
    return min(int(value), MAX_EVENT_ID)


def page(opening: Opening, headers: Mapping[str, str] | None = None) -> Response:
    """A long poll's answer: the events there are now. The events are already JSON text: the body is
    put together around them."""
    return Response(page_body(opening.items, opening.position), mimetype="application/json", headers=headers)


def page_body(items: list[Item], position: int) -> str:
    """A long poll's body: ``items`` and the id to send back as ``after``."""
    last_id = items[-1].id if items else position
    return '{"items":[' + ",".join(item.data for item in items) + '],"last_id":' + str(last_id) + "}"


def _stream(
    holder: Holder | None, opening: Opening, release: Callable[[], None], headers: Mapping[str, str]
) -> Response:
    """A stream's answer: its first events now; the holder sends what follows as it comes, a comment
    line when idle, until the feed ends (a game's end, a replaced key), the client goes or the
    process stops (then the client resumes elsewhere with Last-Event-ID)."""
    body = f"retry: {RETRY_MILLISECONDS}\n\n" + "".join(item.frame() for item in opening.items)
    if opening.finished or holder is None:
        release()
    else:
        sent = dataclasses.replace(opening, items=[])  # the holder keeps where it is, not what was sent
        holder.hand_over(request.environ, Hold(sent, stream=True, wait=0.0, release=release))
    return Response(body, mimetype=EVENT_STREAM, headers={**STREAM_HEADERS, **headers})
