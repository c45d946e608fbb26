"""What the examples add to the coins-client package (clients/python, docs/sdk.md): retries, and problems raised.

- :func:`connect` / :func:`anonymous`: an ``AuthenticatedClient`` (a ``Client`` without a key) whose every POST carries
  an ``Idempotency-Key``, kept across its retries (connection errors, 5xx, 429 after
  ``Retry-After``, ``409 idempotency_key_in_use``), so the server applies it once;
- :func:`ok`: a generated operation's answer, or :class:`Problem` raised for a problem answer.
"""

from __future__ import annotations

import random
import time
import uuid
from typing import TypeVar

import httpx
from coins_client import AuthenticatedClient, Client
from coins_client.models import Problem as ProblemModel

RETRIES = 4  # a request is tried at most 5 times
TIMEOUT = httpx.Timeout(30.0)
T = TypeVar("T")


class Problem(Exception):
    """An error answer: RFC 9457 problem details with a stable ``code``."""

    def __init__(self, problem: ProblemModel | None) -> None:
        self.status = problem.status if problem else 0
        self.code = str(problem.code) if problem else None
        # ``already_queued``: the waiting ticket's id (the problem's ``ticket`` member), else None
        self.ticket = problem.ticket if problem and isinstance(problem.ticket, str) else None
        super().__init__(
            f"{self.status} {self.code}: {problem.detail if problem else 'an answer the spec does not list'}"
        )


def ok(answer: T | ProblemModel | None) -> T:
    """``answer`` if it is the operation's result; a problem (or an answer the spec does not list) is raised."""
    if answer is None or isinstance(answer, ProblemModel):
        raise Problem(answer)
    return answer


class RetryingTransport(httpx.HTTPTransport):
    """An ``Idempotency-Key`` on every POST, and bounded retries of what may succeed later."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and "Idempotency-Key" not in request.headers:
            request.headers["Idempotency-Key"] = str(uuid.uuid4())  # the same on every retry below
        streaming = request.headers.get("Accept") == "text/event-stream"  # the reader retries those itself
        for attempt in range(RETRIES + 1):
            try:
                response = super().handle_request(request)
            except httpx.TransportError:
                if streaming or attempt == RETRIES:
                    raise
                time.sleep(_pause(None, attempt))
                continue
            retry = response.status_code >= 500 or response.status_code == 429
            if response.status_code == 409 and request.method == "POST":
                response.read()
                retry = b"idempotency_key_in_use" in response.content
            if streaming or not retry or attempt == RETRIES:
                return response
            response.close()
            time.sleep(_pause(response.headers.get("Retry-After"), attempt))
        raise AssertionError("unreachable")


def _pause(retry_after: str | None, attempt: int) -> float:
    """The server's ``Retry-After`` (seconds), else an exponential backoff with jitter, at most 30 s."""
    if retry_after and retry_after.isdigit():
        return min(float(retry_after), 30.0)
    return min(0.25 * 2.0**attempt, 30.0) * (0.5 + random.random() / 2)


def connect(base_url: str, key: str) -> AuthenticatedClient:
    """A client of ``base_url`` acting with ``key`` (a player's key or a seat's token)."""
    return AuthenticatedClient(base_url, token=key, httpx_args={"transport": RetryingTransport()}, timeout=TIMEOUT)


def anonymous(base_url: str) -> Client:
    """A client of ``base_url`` without a key (createPlayer, createGame, the public reads)."""
    return Client(base_url, httpx_args={"transport": RetryingTransport()}, timeout=TIMEOUT)
