"""The unit of work every use case runs in, whatever its subject (games, players, quick play, ratings,
webhooks, push): its transaction (:mod:`.unit_of_work`), its ``Idempotency-Key`` (:mod:`.idempotency`)
and the after-commit signal it sends (:mod:`.signals`); and the base of the use cases' errors
(:mod:`.errors`). Imports the store, never Flask nor any subject's use cases.
"""

from .errors import ServiceError
from .idempotency import IdempotencyKeys, KeyClaim, KeyInUse, KeyReused, Replayed, SavedResponse
from .signals import NoSignals, Signals
from .unit_of_work import KeyedRequest, UnitOfWork, given_or_own

__all__ = [
    "IdempotencyKeys",
    "KeyClaim",
    "KeyInUse",
    "KeyReused",
    "KeyedRequest",
    "NoSignals",
    "Replayed",
    "SavedResponse",
    "ServiceError",
    "Signals",
    "UnitOfWork",
    "given_or_own",
]
