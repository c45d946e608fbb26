"""``Idempotency-Key`` on every POST: the HTTP half of idempotent retries (the IETF httpapi draft, as Stripe).

Every POST view is wrapped in :func:`idempotent`, which runs it in a unit of work
(:mod:`service.work.unit_of_work`) handed to its use case: with the header, a keyed one, which
claims the key for the caller before the request's first write (:mod:`service.work.idempotency`
keeps the keys, in the database every process shares):

- a key seen for the first time runs the request; its response (status, body, ``ETag``,
  ``Location``, ``Content-Type``) is kept for 24 hours or more, the use case's refusals included (as
  Stripe: a retry gets the same refusal), committed by the unit of work in one transaction with
  everything the request changed. A 5xx answer, a 429 or an exception rolls the request back instead:
  the retry runs again. If that commit fails, the answer is the failure (``503``), not the response;
- a request not known to be allowed stores nothing: one refused before its use case ran (a body
  that does not parse or validate, too large, not JSON) or refused for its caller or its game
  (:data:`NOT_ALLOWED`: no token, a wrong one, no such game). Its key's row is never written (a row
  is written only with a kept response), so a stranger with bogus tokens or game ids cannot fill the
  table; a retry runs again and gets the same refusal;
- a retry with the same key and the same request (a SHA-256 of the method, the path with its query
  and the body's bytes) gets that response again, with ``Idempotent-Replayed: true``, and nothing
  of it is written (it reads, as any request, until its claim finds that response); the same key
  for another request is ``422 idempotency_key_reused``; while the first request holds the key
  (from before its first write to its commit), ``409 idempotency_key_in_use``.

Keys are the caller's own (scopes): a seat's token when the request carries one (only a hash of it
is stored), else the client's address (createGame and joinGame, which carry none). The address is
``REMOTE_ADDR``: behind a proxy every client shares the proxy's, and clients behind one NAT share
theirs. A key is then as private as it is unguessable, which is why clients make it a random UUID:
whoever sends another's key with the same body from the same address gets that first response.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable
from typing import Any, TypeVar

from apispec import BasePlugin
from flask import Response, current_app, request

from ..engine import CoinsError
from ..work import KeyedRequest, KeyInUse, KeyReused, Replayed, SavedResponse, ServiceError, UnitOfWork
from .common import bearer_token
from .context import games
from .flask_smorest_overrides import refuse_a_body_with_fields, takes_body
from .problems import PROBLEM_MEDIA_TYPE, PROBLEMS, Problem

__all__ = ["HEADER", "PROBLEM_CODES", "REPLAYED", "IdempotencyDocs", "idempotent"]

HEADER = "Idempotency-Key"
REPLAYED = "Idempotent-Replayed"
PROBLEM_CODES = ("bad_request", "idempotency_key_in_use", "idempotency_key_reused")
KEPT_HEADERS = ("ETag", "Location", "Content-Type", "Cache-Control")
_VALID_KEY = re.compile(r"[\x20-\x7e]{1,255}")  # printable ASCII
# The use cases' refusals of a request whose caller or game is not known: nothing of it is kept.
NOT_ALLOWED = frozenset({"missing_token", "invalid_token", "invalid_key", "game_not_found", "player_not_found"})

View = TypeVar("View", bound=Callable[..., Any])


def idempotent(view: View) -> View:
    """Run a POST view (decorated with everything else first: this wraps its finished response)
    in a unit of work, passed to it as ``uow`` for its use case: keyed by the request's
    ``Idempotency-Key`` when it has one. The view's response is what the unit of work keeps for
    the key's retries, and commits with the use case's writes."""

    if not takes_body(view):  # its body, if any, is refused where another's would be parsed: after the key's checks
        view = _refusing_a_body(view)

    @functools.wraps(view)
    def run(*args: Any, **kwargs: Any) -> Any:
        keyed = _keyed_request()
        with games().unit_of_work(keyed) as uow:
            if not uow.keyed:
                response = view(*args, uow=uow, **kwargs)
                uow.commit()
                return response
            return _kept(uow, view, args, kwargs)

    run.idempotent = True  # type: ignore[attr-defined]  # tests/api check every POST view has it
    return run  # type: ignore[return-value]


def _refusing_a_body(view: View) -> View:
    """``view``, of an operation that takes no body, refusing one with fields (:func:`.refuse_a_body_with_fields`)."""

    @functools.wraps(view)
    def refusing(*args: Any, **kwargs: Any) -> Any:
        refuse_a_body_with_fields(request)
        return view(*args, **kwargs)

    return refusing  # type: ignore[return-value]


def _kept(uow: UnitOfWork, view: Callable[..., Any], args: Any, kwargs: Any) -> Response:
    """The keyed view's response, committed with its key (or rolled back: a 5xx, a 429, a request
    not known to be allowed); or the response kept for the key, when its first request was first."""
    allowed = True
    try:
        response = current_app.make_response(view(*args, uow=uow, **kwargs))
    except Replayed as replayed:  # the key's claim, before the first write, found its first response
        return _replayed(replayed.response)
    except (KeyInUse, KeyReused) as error:  # the claim's own refusals: nothing of the request is kept
        return current_app.make_response(current_app.handle_user_exception(error))
    except Exception as error:  # a refusal is kept too: rendered here as Flask would, after the view
        allowed = _known_allowed(error)
        response = current_app.make_response(current_app.handle_user_exception(error))
    if not allowed or response.status_code >= 500 or response.status_code == 429 or response.is_streamed:
        uow.rollback()
        return _first_or(uow, response)
    headers = tuple((name, response.headers[name]) for name in KEPT_HEADERS if name in response.headers)
    try:
        first = uow.commit(SavedResponse(response.status_code, headers, response.get_data()))
    except Exception as error:  # nothing the request did was committed: say so, not what it would have been
        return current_app.make_response(current_app.handle_user_exception(error))
    return response if first is None else _replayed(first)


def _first_or(uow: UnitOfWork, response: Response) -> Response:
    """A response not kept, unless the request, refused before it claimed its key, is a retry whose
    first request has finished (the retry of a key's replacement no longer holds a valid key):
    then that request's response (or ``422 idempotency_key_reused``, if the key was another's)."""
    if uow.claimed:
        return response
    try:
        first = uow.first_response()
    except Exception as error:
        return current_app.make_response(current_app.handle_user_exception(error))
    return response if first is None else _replayed(first)


def _known_allowed(error: Exception) -> bool:
    """Whether a refusal came from the use case, for a caller it knows, about a game that exists
    (anything else, such as a body refused while it was parsed, is not worth a row)."""
    return isinstance(error, (ServiceError, CoinsError)) and error.code not in NOT_ALLOWED


def _keyed_request() -> KeyedRequest | None:
    """The request's key, its caller and its fingerprint; None without the header."""
    key = request.headers.get(HEADER)
    if key is None:
        return None
    if not _VALID_KEY.fullmatch(key):
        raise Problem(
            "bad_request",
            f"{HEADER} must be 1 to 255 printable ASCII characters",
            errors={HEADER: ["1 to 255 printable ASCII characters"]},
        )
    return KeyedRequest(_scope(), key, _fingerprint())


def _replayed(saved: SavedResponse) -> Response:
    response = Response(saved.body, status=saved.status)
    for name, value in saved.headers:
        response.headers[name] = value
    response.headers[REPLAYED] = "true"
    return response


def _scope() -> str:
    """Whose key it is: the seat's token or the player's key (hashed before it is stored), else the client's address."""
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
    as :func:`idempotent` wraps every POST view."""

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
