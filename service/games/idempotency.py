"""Idempotent retries: a request's ``Idempotency-Key``, the first response kept for its retries.

The HTTP layer names the caller (``scope``), the key and the request's fingerprint (a SHA-256 of
its method, path and body); this module decides what a retry gets, and keeps the table free of
secrets:

- scope and key are stored as SHA-256 hashes (a seat's scope is its token: never stored as is);
- the response, which may carry a new seat's token (createGame, joinGame), is sealed with a key
  derived from the idempotency key and the scope, which are not stored: a SHAKE-256 keystream
  XORed over it, unique per row. Only a caller who sends the key again can read it back.

A key is kept ``hours`` (at least 24). A key whose request is still ``running`` after
``STALE_SECONDS`` belonged to a request that died with its worker: a retry may take it over.
A completion or release the database refuses (it went down during the request) is owed: the
process writes it before its next claim, and tries every second meanwhile, so an outage does not
leave the key ``running``.
Expired keys are deleted by ``coins-purge`` (:mod:`service.store.purge`), and a few at a time, now
and then, by the processes that claim keys.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from .. import jsonio
from ..store import IdempotencyStore
from .errors import ServiceError

__all__ = ["IdempotencyKeys", "KeyClaim", "KeyInUse", "KeyReused", "SavedResponse"]

log = logging.getLogger(__name__)

STALE_SECONDS = 600  # longer than any request runs: gunicorn's gthread workers bound none by itself
PURGE_EVERY = 100  # claims of one process between deletions of expired keys
PURGE_LIMIT = 500  # keys deleted at most each time
MAX_OWED = 1000  # completions and releases a process keeps owing while its database is down; older ones go stale,
# as does one owed for STALE_SECONDS (a retry takes its key over by then)
PAY_EVERY_SECONDS = 1.0  # while a process owes some, it tries them this often (and before each claim)


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


@dataclass(frozen=True, slots=True)
class KeyClaim:
    """A key the current request holds: complete it with the response, or release it."""

    scope: str
    key: str
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
        # completions (status, sealed) and releases, with when they were first refused (time.monotonic)
        self._owed: list[tuple[KeyClaim, tuple[int, bytes] | None, float]] = []
        self._owed_lock = threading.Lock()
        self._paying = threading.Lock()  # held by the one thread writing what is owed
        self._payer: threading.Thread | None = None  # runs while something is owed

    def claim(self, scope: str, key: str, fingerprint: str) -> KeyClaim | SavedResponse:
        """The claim of a key seen for the first time (or expired); the first response for a retry.
        Raises :class:`KeyReused` for another request's key, :class:`KeyInUse` while its first
        request is running."""
        self._pay_owed()
        now = self.clock()
        claim = KeyClaim(_hash(b"scope", scope), _hash(b"key", key), _secret(scope, key))
        kept = self._store.claim(
            claim.scope,
            claim.key,
            fingerprint,
            now=now,
            expires_at=now + self.lifetime,
            stale_before=now - timedelta(seconds=STALE_SECONDS),
        )
        if next(self._claims) % PURGE_EVERY == 0:
            self.purge(now)
        if kept is None:
            return claim
        if kept.fingerprint != fingerprint:
            raise KeyReused("this Idempotency-Key was used for another request; use a new key for a new request")
        if kept.running or kept.status is None or kept.response is None:
            raise KeyInUse("the first request with this Idempotency-Key is still running; retry in a moment")
        return _open(kept.status, kept.response, claim.secret)

    @property
    def owes(self) -> int:
        """How many completions and releases the database refused that this process still owes."""
        return len(self._owed)

    def complete(self, claim: KeyClaim, response: SavedResponse) -> None:
        """Keep ``response`` for the retries of the claimed key (owed if the database refuses it now)."""
        self._finish(claim, (response.status, _seal(response, claim.secret)))

    def release(self, claim: KeyClaim) -> None:
        """Forget a claimed key whose request failed: its retry runs afresh (owed if the database refuses it now)."""
        self._finish(claim, None)

    def _finish(self, claim: KeyClaim, kept: tuple[int, bytes] | None) -> None:
        try:
            self._write(claim, kept)
        except Exception as error:
            log.warning("could not finish an idempotency key, owed: %s", type(error).__name__)
            with self._owed_lock:
                self._owed.append((claim, kept, time.monotonic()))
                del self._owed[:-MAX_OWED]
                if self._payer is None:
                    self._payer = threading.Thread(target=self._pay_until_paid, name="idempotency-owed", daemon=True)
                    self._payer.start()

    def _write(self, claim: KeyClaim, kept: tuple[int, bytes] | None) -> None:
        if kept is None:
            self._store.release(claim.scope, claim.key)
        else:
            self._store.complete(claim.scope, claim.key, *kept)

    def _pay_owed(self) -> None:
        """Write the completions and releases owed, oldest first, until one fails (the rest wait).
        One thread pays at a time; another finds it paying and goes on."""
        if not self._owed or not self._paying.acquire(blocking=False):  # the usual case, without a lock
            return
        try:
            while True:
                with self._owed_lock:
                    while self._owed and self._owed[0][2] < time.monotonic() - STALE_SECONDS:
                        del self._owed[0]
                    if not self._owed:
                        return
                    owed = self._owed[0]
                try:
                    self._write(owed[0], owed[1])
                except Exception as error:
                    log.warning("could not finish an owed idempotency key: %s", type(error).__name__)
                    return
                with self._owed_lock:
                    if self._owed and self._owed[0] is owed:  # unless MAX_OWED dropped it meanwhile
                        del self._owed[0]
        finally:
            self._paying.release()

    def _pay_until_paid(self) -> None:
        while True:
            time.sleep(PAY_EVERY_SECONDS)
            self._pay_owed()
            with self._owed_lock:
                if not self._owed:
                    self._payer = None
                    return

    def purge(self, now: datetime | None = None, *, limit: int = PURGE_LIMIT) -> int:
        """Delete up to ``limit`` expired keys (a failure is logged: the next purge tries again)."""
        try:
            return self._store.purge(now or self.clock(), limit=limit)
        except Exception as error:
            log.warning("could not delete expired idempotency keys: %s", type(error).__name__)
            return 0


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
