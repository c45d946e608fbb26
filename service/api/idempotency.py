"""``Idempotency-Key`` on every POST: the HTTP half of idempotent retries (the IETF httpapi draft, as Stripe).

Before the view, a POST with the header claims its key for the caller (:mod:`service.games.idempotency`
keeps the keys, in the database every process shares):

- a key seen for the first time runs the request; its response (status, body, ``ETag``,
  ``Location``, ``Content-Type``) is kept for 24 hours or more, 4xx answers included (as Stripe: a
  retry gets the same refusal), committed in one transaction with everything the request changed.
  A 5xx answer, a 429 or an exception rolls the request back and releases the key instead: the
  retry runs again. If that commit fails, the answer is the failure (``503``), not the response;
- a retry with the same key and the same request (a SHA-256 of the method, the path with its query
  and the body's bytes) gets that response again, with ``Idempotent-Replayed: true``, and nothing
  runs; the same key for another request is ``422 idempotency_key_reused``; while the first
  request runs, ``409 idempotency_key_in_use``.

Keys are the caller's own (scopes): a seat's token when the request carries one (only a hash of it
is stored), else the client's address (createGame and joinGame, which carry none). The address is
``REMOTE_ADDR``: behind a proxy every client shares the proxy's, and clients behind one NAT share
theirs. A key is then as private as it is unguessable, which is why clients make it a random UUID:
whoever sends another's key with the same body from the same address gets that first response.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from apispec import BasePlugin
from flask import Flask, Response, current_app, g, request

from ..games import IdempotencyKeys, KeyClaim, SavedResponse
from .common import bearer_token
from .problems import PROBLEM_MEDIA_TYPE, PROBLEMS, Problem

__all__ = ["HEADER", "PROBLEM_CODES", "REPLAYED", "IdempotencyDocs", "init_idempotency"]

HEADER = "Idempotency-Key"
REPLAYED = "Idempotent-Replayed"
PROBLEM_CODES = ("bad_request", "idempotency_key_in_use", "idempotency_key_reused")
EXTENSION = "coins.idempotency"
KEPT_HEADERS = ("ETag", "Location", "Content-Type")
_VALID_KEY = re.compile(r"[\x20-\x7e]{1,255}")  # printable ASCII


def init_idempotency(app: Flask, keys: IdempotencyKeys) -> None:
    """Claim keys before the views, keep or release them after: every POST of ``app``."""
    app.extensions[EXTENSION] = keys
    app.before_request(_claim)
    app.after_request(_keep)
    app.teardown_request(_release_unfinished)


def _claim() -> Response | None:
    if request.method != "POST" or request.url_rule is None:
        return None
    key = request.headers.get(HEADER)
    if key is None:
        return None
    if not _VALID_KEY.fullmatch(key):
        raise Problem(
            "bad_request",
            f"{HEADER} must be 1 to 255 printable ASCII characters",
            errors={HEADER: ["1 to 255 printable ASCII characters"]},
        )
    keys: IdempotencyKeys = current_app.extensions[EXTENSION]
    claimed = keys.claim(_scope(), key, _fingerprint())
    if isinstance(claimed, KeyClaim):
        g.idempotency_claim = claimed
        return None
    response = Response(claimed.body, status=claimed.status)
    for name, value in claimed.headers:
        response.headers[name] = value
    response.headers[REPLAYED] = "true"
    return response


def _keep(response: Response) -> Response:
    claim: KeyClaim | None = g.pop("idempotency_claim", None)
    if claim is None:
        return response
    keys: IdempotencyKeys = current_app.extensions[EXTENSION]
    if response.status_code >= 500 or response.status_code == 429 or response.is_streamed:
        keys.release(claim)
        return response
    headers = tuple((name, response.headers[name]) for name in KEPT_HEADERS if name in response.headers)
    try:
        keys.complete(claim, SavedResponse(response.status_code, headers, response.get_data()))
    except Exception as error:  # nothing the request did was committed: say so, not what it would have been
        return current_app.make_response(current_app.handle_user_exception(error))
    return response


def _release_unfinished(_error: BaseException | None) -> None:
    """A request that ended without a response (an exception past every handler) frees its key."""
    claim: KeyClaim | None = g.pop("idempotency_claim", None)
    if claim is None:
        return
    current_app.extensions[EXTENSION].release(claim)


def _scope() -> str:
    """Whose key it is: the seat's token (hashed before it is stored), else the client's address."""
    token = bearer_token()
    return f"token:{token}" if token else f"address:{request.remote_addr or ''}"


def _fingerprint() -> str:
    digest = hashlib.sha256(request.method.encode())
    digest.update(b" " + request.path.encode() + b"?" + request.query_string + b"\n")
    digest.update(request.get_data(cache=True))
    return digest.hexdigest()


class IdempotencyDocs(BasePlugin):
    """An apispec plugin: every POST operation documents ``Idempotency-Key`` (its parameter), the
    ``Idempotent-Replayed`` header of its success responses and the problems of :data:`PROBLEM_CODES`,
    as :func:`init_idempotency` serves every POST."""

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None, **_: Any) -> None:
        operation = (operations or {}).get("post")
        if operation is None:
            return
        operation.setdefault("parameters", []).append("IdempotencyKey")
        responses: dict[Any, Any] = operation.setdefault("responses", {})
        for status, response in responses.items():
            if str(status).startswith("2") and isinstance(response, dict):
                response.setdefault("headers", {})[REPLAYED] = REPLAYED
        for code in PROBLEM_CODES:
            status, title = PROBLEMS[code]
            line = f"`{code}`: {title}"
            response = responses.get(status, responses.get(str(status)))
            if response is None:
                responses[status] = {
                    "description": line,
                    "content": {PROBLEM_MEDIA_TYPE: {"schema": "Problem"}},
                }
            elif isinstance(response, dict) and line not in response.get("description", ""):
                response["description"] = f"{response['description']}; {line}"
