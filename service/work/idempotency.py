"""Idempotent retries: a request's ``Idempotency-Key``, the first response kept for its retries.

The HTTP layer names the caller (``scope``), the key and the request's fingerprint (a SHA-256 of
its method, path and body); this module decides what a retry gets, and keeps the table free of
secrets:

- scope and key are stored as SHA-256 hashes (a seat's scope is its token: never stored as is);
- the response, which may carry a new seat's token (createGame, joinGame), is sealed with a key
  derived from the idempotency key and the scope, which are not stored: a SHAKE-256 keystream
  XORed over it, unique per row. Only a caller who sends the key again can read it back.

The request's unit of work (:mod:`.unit_of_work`) claims its key before its first write: the claim
holds a write transaction on the unit's session, in which the unit does every write, and its response
is stored in that same transaction (:mod:`service.store.idempotency`): the change and the response a
retry gets are committed together or not at all, also when the worker dies in between. What the
request read before the claim, it read as any request does (a save compares the game's version).
A key is kept ``hours`` (at least 24). Expired keys are deleted by ``coins-purge``
(:mod:`service.store.purge`), and a few at a time, now and then, by the processes that claim keys.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from .. import jsonio
from ..store import HeldKey, IdempotencyStore, KeptResponse, StoreSession
from .errors import ServiceError

__all__ = ["IdempotencyKeys", "KeyClaim", "KeyInUse", "KeyReused", "Replayed", "SavedResponse"]

log = logging.getLogger(__name__)

PURGE_EVERY = 100  # claims of one process between deletions of expired keys
PURGE_LIMIT = 500  # keys deleted at most each time


class KeyInUse(ServiceError):
    """The first request with this key is still running."""

    code = "idempotency_key_in_use"


class KeyReused(ServiceError):
    """The key was first used for another request (another method, path or body)."""

    code = "idempotency_key_reused"


@dataclass(frozen=True, slots=True)
class SavedResponse:
    """A response as kept for the retries: its status, the headers that matter, its body."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes


class Replayed(Exception):  # not an error: the answer is the first request's
    """Another request with the key finished first: its response is this request's answer, and
    nothing this request did is written."""

    def __init__(self, response: SavedResponse) -> None:
        super().__init__("another request with this Idempotency-Key finished first")
        self.response = response


@dataclass(frozen=True, slots=True)
class KeyClaim:
    """A key the current request holds: complete it with the response, or release it."""

    held: HeldKey
    fingerprint: str
    secret: bytes


def _now() -> datetime:
    return datetime.now(UTC)


class IdempotencyKeys:
    """Claims, completes and releases keys in one store, shared by every process."""

    def __init__(self, store: IdempotencyStore, *, hours: int, clock: Callable[[], datetime] = _now) -> None:
        self._store = store
        self.lifetime = timedelta(hours=hours)
        self.clock = clock
        self._claims = itertools.count(1)

    def claim(self, scope: str, key: str, fingerprint: str, session: StoreSession) -> KeyClaim | SavedResponse:
        """The claim of a key seen for the first time (or expired), holding a write transaction begun
        on ``session`` for every write of its request from now on, which commits only with
        :meth:`complete`; end it with :meth:`close`. The first response, for a retry. Raises
        :class:`KeyReused` for another request's key, :class:`KeyInUse` while its first request
        is running."""
        now = self.clock()
        if next(self._claims) % PURGE_EVERY == 0:
            self.purge(now)
        held = self._store.hold(_hash(b"scope", scope), _hash(b"key", key), now=now, session=session)
        if held is None:
            raise KeyInUse("the first request with this Idempotency-Key is still running; retry in a moment")
        if held.kept is None:
            return KeyClaim(held, fingerprint, _secret(scope, key))
        held.close()
        return _answer(held.kept, scope, key, fingerprint)

    def first_response(self, scope: str, key: str, fingerprint: str) -> SavedResponse | None:
        """The response kept for the key, without claiming it: None if its first request has not
        finished (or rolled back). Raises :class:`KeyReused` for another request's key."""
        kept = self._store.find(_hash(b"scope", scope), _hash(b"key", key), now=self.clock())
        return None if kept is None else _answer(kept, scope, key, fingerprint)

    def complete(self, claim: KeyClaim, response: SavedResponse) -> None:
        """Keep ``response`` for the retries of the claimed key, committed with everything the
        request wrote. Raises :class:`.DatabaseUnavailable` if that fails: then nothing is written."""
        now = self.clock()
        sealed = _seal(response, claim.secret)
        claim.held.keep(claim.fingerprint, response.status, sealed, now=now, expires_at=now + self.lifetime)

    def release(self, claim: KeyClaim) -> None:
        """Undo what the request wrote (its request failed): its retry runs afresh."""
        claim.held.let_go()

    def close(self, claim: KeyClaim) -> None:
        """Give back the claim's connection and let go of the key (undoing what the request wrote,
        unless :meth:`complete` committed it)."""
        claim.held.close()

    def purge(self, now: datetime | None = None, *, limit: int = PURGE_LIMIT) -> int:
        """Delete up to ``limit`` expired keys (a failure is logged: the next purge tries again)."""
        try:
            return self._store.purge(now or self.clock(), limit=limit)
        except Exception as error:
            log.warning("could not delete expired idempotency keys: %s", type(error).__name__)
            return 0


def _answer(kept: KeptResponse, scope: str, key: str, fingerprint: str) -> SavedResponse:
    """The response kept for the key, opened, for a retry of its first request (``fingerprint``);
    :class:`KeyReused` for another request."""
    if kept.fingerprint != fingerprint:
        raise KeyReused("this Idempotency-Key was used for another request; use a new key for a new request")
    return _open(kept.status, kept.response, _secret(scope, key))


def _hash(purpose: bytes, value: str) -> str:
    return hashlib.sha256(b"coins.idempotency." + purpose + b"\0" + value.encode()).hexdigest()


def _secret(scope: str, key: str) -> bytes:
    return hashlib.sha256(b"coins.idempotency.seal\0" + scope.encode() + b"\0" + key.encode()).digest()


def _xor(data: bytes, secret: bytes) -> bytes:
    stream = hashlib.shake_256(secret).digest(len(data))
    return (int.from_bytes(data, "big") ^ int.from_bytes(stream, "big")).to_bytes(len(data), "big")


def _seal(response: SavedResponse, secret: bytes) -> bytes:
    head = jsonio.dumps([list(pair) for pair in response.headers]).encode()
    return _xor(head + b"\n" + response.body, secret)


def _open(status: int, sealed: bytes, secret: bytes) -> SavedResponse:
    head, _, body = _xor(sealed, secret).partition(b"\n")
    headers = tuple((str(name), str(value)) for name, value in jsonio.loads(head))
    return SavedResponse(status, headers, body)
