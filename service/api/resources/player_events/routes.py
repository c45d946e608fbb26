"""A player's own feed: the events of every game they sit in that concern them, as Server-Sent Events or a long poll."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ....events import EventFeed
from ...common import Blueprint, bearer_token
from ..events.routes import EVENT_STREAM, LAST_EVENT_ID, feed, serve, stream_schema
from ..events.schemas import EventsQuerySchema
from .schemas import PlayerEventPageSchema

__all__ = ["blp"]

blp = Blueprint(
    "player_events",
    __name__,
    url_prefix="/v1/players",
    description="Follow everything that concerns you, in every game.",
)

SSE_DESCRIPTION = f"""\
With `Accept: {EVENT_STREAM}`: Server-Sent Events. Each event has an `id:` (per player, strictly
increasing: send the last one back as `Last-Event-ID` to resume), an `event:` (its `type`) and a
`data:` line holding one `PlayerEvent` (`$defs.event`). The stream starts with the `player` event unless it
resumes, never ends by itself (only when its key is replaced: then it ends at once), and sends a
comment line when idle (every 15 seconds by default, always under 20). Event types are added
within v1: skip an event whose `type` you do not know (`UnlistedPlayerEvent`)."""


@blp.route("/me/events", parameters=[LAST_EVENT_ID])
class PlayerEventViews(MethodView):
    @blp.doc(
        operationId="getPlayerEvents",
        summary="Follow your own feed (stream or long poll)",
        security=[{"playerKey": []}],
        responses={
            200: {
                "description": "The events: a stream, or a page of them.",
                "content": {EVENT_STREAM: {"schema": stream_schema(SSE_DESCRIPTION, "PlayerEvent")}},
            }
        },
    )
    @blp.arguments(EventsQuerySchema(), location="query", as_kwargs=True)
    @blp.response(200, PlayerEventPageSchema)
    @blp.problems(
        "bad_request",
        "unknown_event_id",
        "missing_token",
        "invalid_key",
        "validation_error",
        "too_many_requests",
        "too_many_streams",
        "database_unavailable",
    )
    def get(self, wait: int, after: int | None = None) -> Any:
        """Everything that concerns you, in every game you sit in: first your state (the `player`
        event: your profile and your games in progress, each saying whose turn it is), then one
        event per thing that concerns you (`game_started`, `your_turn`, `game_result`,
        `rematch_offered`, `match_found`), in order, none missing. Authenticate with your player
        key (`Authorization: Bearer`, never in the URL). With `Accept: application/json` (the
        default) this is a long poll: the events after `after` at once, or as soon as one comes
        within `wait` seconds. A script that follows this one feed can play any number of games
        without polling: on `your_turn`, which carries the game's `state` and your `hand`, deal or
        play in that game with the same key, one request a move. Types of
        events not listed here may appear (they are added within v1): skip them."""
        key = bearer_token()
        return serve(lambda start: feed().open_player(key, after=start), EventFeed.credential(key), wait, after)
