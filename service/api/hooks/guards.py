"""What a request's path and conditional headers must look like, checked before any view runs.

A game id that cannot be one (see :func:`service.games.ids.is_game_id`) names no game: ``404
game_not_found`` before the database is asked, so no database sees text it cannot hold (PostgreSQL
refuses U+0000 where SQLite takes it). ``If-Match`` and ``If-None-Match`` must be lists of entity
tags (RFC 9110) of a bounded length, else ``422 validation_error``; an empty one is as if absent.
The spec states both patterns. A body must be JSON (``415 unsupported_media_type``); one an
operation that takes none is sent with fields is refused where a body would be parsed
(:func:`service.api.flask_smorest_overrides.refuse_a_body_with_fields`). A body sent
without ``Content-Length`` (chunked) is read here, up to ``MAX_REQUEST_BYTES``: one byte more is
``413 payload_too_large``, as a declared length over it is (werkzeug would otherwise hand the
parser the first ``MAX_REQUEST_BYTES`` bytes, which then fail as JSON). A chunked body the server
cannot read (a chunk size that is no number, a missing terminator: gunicorn raises while the body is
read, past its own refusals of a malformed head) is ``400 bad_request``, as gunicorn answers a
malformed head.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from flask import Flask, Request, request
from werkzeug.exceptions import RequestEntityTooLarge

from ...games.ids import is_game_id, is_player_id
from ..context import GAME_ID_PATTERN, ME
from ..problems import Problem

__all__ = ["ENTITY_TAGS_MAX_LENGTH", "ENTITY_TAGS_PATTERN", "GAME_ID_PATTERN", "init_guards", "require_json_body"]

# `*`, or entity tags (`"…"` or `W/"…"`, RFC 9110 etagc: ! and # to ~) separated by commas.
_TAG = '(W/)?"[!#-~]*"'
ENTITY_TAGS_PATTERN = f"^(\\*|{_TAG}([ \\t]*,[ \\t]*{_TAG})*)?$"  # empty: no tags, as if absent
ENTITY_TAGS_MAX_LENGTH = 1024
CONDITIONAL_HEADERS = ("If-Match", "If-None-Match")
API_PREFIX = "/v1/"
BODY_METHODS = ("POST", "PUT", "PATCH")

_ENTITY_TAGS = re.compile(ENTITY_TAGS_PATTERN)


def reject_malformed_game_id(_endpoint: str | None, values: dict[str, Any] | None) -> None:
    """Flask calls this with the path's values once the route matched, before any other hook
    (but for a CORS preflight, which reads no game). A player's id likewise (``player_not_found``),
    but for ``me``, the caller (resolved by the view, with the key)."""
    if request.method == "OPTIONS":
        return
    game_id = (values or {}).get("game_id")
    if isinstance(game_id, str) and not is_game_id(game_id):
        raise Problem("game_not_found", "there is no game with this id: ids are 26 characters of Crockford base32")
    player_id = (values or {}).get("player_id")
    if isinstance(player_id, str) and player_id != ME and not is_player_id(player_id):
        raise Problem("player_not_found", "there is no player with this id: ids are 26 characters of Crockford base32")


def reject_malformed_entity_tags() -> None:
    if request.routing_exception is not None or request.method == "OPTIONS" or not request.path.startswith(API_PREFIX):
        return  # no such route, not this method (405: that answer comes first), or a CORS preflight
    for name in CONDITIONAL_HEADERS:
        value = request.headers.get(name)
        if value is not None and (len(value) > ENTITY_TAGS_MAX_LENGTH or not _ENTITY_TAGS.fullmatch(value)):
            message = f'Must be `*` or entity tags such as "7" (at most {ENTITY_TAGS_MAX_LENGTH} characters).'
            raise Problem("validation_error", f"the {name} header is not valid: see errors", errors={name: [message]})


def require_json_body() -> None:
    current: Request = request._get_current_object()  # type: ignore[attr-defined]  # one lookup, not four
    if current.method in BODY_METHODS and (current.content_length or current.mimetype) and not current.is_json:
        raise Problem("unsupported_media_type", "send the body as application/json")


def _body_read_errors() -> tuple[type[BaseException], ...]:
    """What reading a malformed body raises: the server's parse errors (gunicorn's, when it serves this
    process: looked up, not imported, as the real-time role serves with uvicorn), or an OSError (a
    client gone mid-body: gunicorn's NoMoreData)."""
    gunicorn_errors = sys.modules.get("gunicorn.http.errors")
    parse_error = getattr(gunicorn_errors, "ParseException", None)
    return (OSError, parse_error) if isinstance(parse_error, type) else (OSError,)


def reject_oversized_chunked_body() -> None:
    limit = request.max_content_length
    if request.content_length is not None or limit is None or not request.environ.get("wsgi.input_terminated"):
        return  # a declared length is checked by werkzeug; without one, only a terminated stream has a body
    try:
        over = len(request.get_data(cache=True)) >= limit and request.environ["wsgi.input"].read(1)
    except _body_read_errors():
        raise Problem("bad_request", "the chunked body is not well-formed") from None
    if over:
        raise RequestEntityTooLarge()


def init_guards(app: Flask) -> None:
    app.url_value_preprocessor(reject_malformed_game_id)
    app.before_request(reject_oversized_chunked_body)
    app.before_request(reject_malformed_entity_tags)
    app.before_request(require_json_body)
