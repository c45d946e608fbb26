"""RFC 9457 problem details: every error the service returns, from one handler, with a stable code.

Every failure a client can act on has one ``code`` here, with its HTTP status and title.
Exceptions from the engine (:mod:`service.engine.errors`) and the use cases
(:mod:`service.games.errors`) carry their code; HTTP-level failures (404, 405, 413, 415, …) are
mapped by status. Nothing else reaches the client: no HTML page, no stack trace.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, json, request
from werkzeug.exceptions import HTTPException

from ..engine import CoinsError
from ..games.errors import DatabaseUnavailable, ServiceError

__all__ = ["PROBLEMS", "PROBLEM_MEDIA_TYPE", "Problem", "problem_response", "register_problem_handlers"]

PROBLEM_MEDIA_TYPE = "application/problem+json"
log = logging.getLogger(__name__)

# code -> (HTTP status, title). Every code the service can return; the spec lists them all.
PROBLEMS: dict[str, tuple[int, str]] = {
    "bad_request": (400, "Bad request"),
    "malformed_json": (400, "The body is not valid JSON"),
    "invalid_cursor": (400, "Unknown pagination cursor"),
    "unknown_event_id": (400, "The feed has no event with that id"),
    "unauthorized": (401, "Authentication is required"),
    "missing_token": (401, "A player token is required"),
    "invalid_token": (401, "The player token is not valid for this game"),
    "invalid_key": (401, "The player key is not valid"),
    "not_dealer": (403, "Only the dealer may deal"),
    "not_your_seat": (403, "The token acts for another seat"),
    "rated_play_barred": (403, "You are barred from rated play"),
    "challenges_refused": (403, "The player refuses challenges"),
    "not_found": (404, "No such resource"),
    "game_not_found": (404, "No such game"),
    "player_not_found": (404, "No such player"),
    "ticket_not_found": (404, "No such ticket of yours"),
    "webhook_not_found": (404, "No such webhook of yours"),
    "push_subscription_not_found": (404, "No such push subscription of yours"),
    "method_not_allowed": (405, "Method not allowed"),
    "not_acceptable": (406, "Not acceptable"),
    "seats_full": (409, "All seats are taken"),
    "seat_taken": (409, "That seat is taken"),
    "already_seated": (409, "The player holds a seat of this game already"),
    "player_required": (409, "A rated game's seats are for players and bots"),
    "idempotency_key_in_use": (409, "A request with this Idempotency-Key is still running"),
    "seats_open": (409, "Seats are still open"),
    "already_queued": (409, "You have a waiting ticket already"),
    "too_many_webhooks": (409, "You have as many webhooks as a player may"),
    "too_many_push_subscriptions": (409, "You have as many push subscriptions as a player may"),
    "ticket_matched": (409, "The ticket is matched: its game exists"),
    "hand_in_progress": (409, "A hand is in progress"),
    "no_hand_in_progress": (409, "No hand is in progress"),
    "not_your_turn": (409, "It is not your turn"),
    "game_finished": (409, "The game is over"),
    "hints_off_in_rated": (409, "Hints are off in rated games"),
    "seat_reserved": (409, "That seat is reserved for another player"),
    "game_cancelled": (409, "The game was cancelled"),
    "rematch_started": (409, "The rematch has started"),
    "review_needs_a_person": (409, "Only a game with a person or a player at the table is reviewed"),
    "precondition_failed": (412, "The game has changed"),
    "payload_too_large": (413, "The body is too large"),
    "uri_too_long": (414, "The request line is too long"),
    "game_not_finished": (409, "The game is not over yet"),
    "unsupported_media_type": (415, "The body must be application/json"),
    "validation_error": (422, "The request is not valid"),
    "invalid_card": (422, "Not a card"),
    "card_not_in_hand": (422, "You do not hold that card"),
    "idempotency_key_reused": (422, "This Idempotency-Key was used for another request"),
    "seeded_game_unrated": (422, "A seeded game cannot be rated"),
    "bot_seated_twice": (422, "A rated game seats each bot strength once at most"),
    "rated_needs_clock": (422, "A rated game has a turn clock"),
    "webhook_url_refused": (422, "Webhooks go only to https URLs on public addresses"),
    "push_endpoint_refused": (422, "Push messages go only to https endpoints on public addresses"),
    "push_subscription_invalid": (422, "The push subscription's keys are not valid"),
    "challenged_player_not_found": (422, "No such player to challenge"),
    "challenged_self": (422, "You cannot challenge yourself"),
    "challenged_bot": (422, "A bot is not challenged: seat it"),
    "too_many_requests": (429, "Too many requests"),
    "too_many_challenges": (429, "Too many challenges to this player today"),
    "header_fields_too_large": (431, "The header fields are too large"),
    "internal_error": (500, "Internal error"),
    "database_unavailable": (503, "The database is unavailable"),
    "too_many_streams": (503, "This server holds as many event streams as it can"),
}

_BY_STATUS = {
    400: "bad_request",
    401: "unauthorized",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    412: "precondition_failed",
    413: "payload_too_large",
    414: "uri_too_long",
    415: "unsupported_media_type",
    422: "validation_error",
    429: "too_many_requests",
    431: "header_fields_too_large",
    503: "database_unavailable",
}
RETRY_AFTER_SECONDS = 2


class Problem(Exception):
    """Raised anywhere in the API layer to answer with a problem of a known code."""

    def __init__(
        self,
        code: str,
        detail: str,
        *,
        errors: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        members: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        if code not in PROBLEMS:
            raise ValueError(f"unknown problem code {code!r}")
        self.code = code
        self.detail = detail
        self.errors = errors
        self.headers = headers or {}
        self.members = members or {}  # extension members (e.g. ``ticket``), each in the spec's Problem schema


def problem_response(problem: Problem) -> Response:
    status, title = PROBLEMS[problem.code]
    body: dict[str, Any] = {
        "type": f"urn:coins:problem:{problem.code}",
        "title": title,
        "status": status,
        "detail": problem.detail,
        "code": problem.code,
    }
    if problem.errors is not None:
        body["errors"] = problem.errors
    body.update(problem.members)
    if request:
        body["instance"] = request.path
    response = Response(json.dumps(body), status=status, mimetype=PROBLEM_MEDIA_TYPE)
    for name, value in problem.headers.items():
        response.headers[name] = value
    return response


def _from_http(error: HTTPException) -> Problem:
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    if status == 422 and "messages" in data:
        return Problem("validation_error", "some fields are not valid: see errors", errors=_flatten(data["messages"]))
    headers = {}
    if status == 405 and error.valid_methods:  # type: ignore[attr-defined]
        headers["Allow"] = ", ".join(sorted(error.valid_methods))  # type: ignore[attr-defined]
    code = _BY_STATUS.get(status, "internal_error" if status >= 500 else "bad_request")
    if status == 401:  # werkzeug's Unauthorized: keep its challenge
        headers.update((name, value) for name, value in error.get_headers() if name == "WWW-Authenticate")
    detail = error.description or PROBLEMS[code][1]
    if status == 413:
        detail = "the request body is larger than this service accepts"
    return Problem(code, detail, headers=headers)


def _flatten(messages: dict[str, Any]) -> dict[str, Any]:
    """webargs groups errors by location ({"json": {...}, "query": {...}}); clients want fields."""
    flat: dict[str, Any] = {}
    for location, fields in messages.items():
        if isinstance(fields, dict):
            flat.update(fields)
        else:
            flat[location] = fields
    return flat


def register_problem_handlers(app: Flask) -> None:
    """Map every exception to a problem response, in this one place."""

    @app.errorhandler(Problem)
    def on_problem(problem: Problem) -> Response:
        return problem_response(problem)

    @app.errorhandler(CoinsError)
    def on_rule(error: CoinsError) -> Response:
        if error.code not in PROBLEMS:  # e.g. unreadable stored state: our fault, not the client's
            return on_unexpected(error)
        return problem_response(Problem(error.code, str(error)))

    @app.errorhandler(ServiceError)
    def on_service(error: ServiceError) -> Response:
        if error.code not in PROBLEMS or PROBLEMS[error.code][0] >= 500:  # a use case's bug
            return on_unexpected(error)
        headers = {"WWW-Authenticate": 'Bearer realm="coins"'} if PROBLEMS[error.code][0] == 401 else {}
        retry_after = getattr(error, "retry_after", None)  # a use case's own limit (errors.LimitReached)
        if retry_after is not None:
            headers["Retry-After"] = str(retry_after)
        etag = getattr(error, "etag", None)  # If-Match named another version: the current one's tag
        if etag is not None:
            headers["ETag"] = f'"{etag}"'

        return problem_response(Problem(error.code, str(error), headers=headers, members=error.members()))

    @app.errorhandler(DatabaseUnavailable)
    def on_database(error: DatabaseUnavailable) -> Response:
        log.warning("database unavailable: %s", error)
        return problem_response(
            Problem(
                "database_unavailable",
                "the database cannot be reached right now; retry shortly",
                headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
            )
        )

    @app.errorhandler(HTTPException)
    def on_http(error: HTTPException) -> Response:
        return problem_response(_from_http(error))

    @app.errorhandler(Exception)
    def on_unexpected(error: Exception) -> Response:
        log.exception("unexpected error")
        return problem_response(Problem("internal_error", "something went wrong on our side; it has been logged"))
