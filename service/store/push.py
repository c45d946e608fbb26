"""Web Push subscriptions and their deliveries in the database (tables in :mod:`.push_models`).

The same shape as webhooks (:mod:`.webhooks`), on the same machinery: a player's requests add and
remove their subscriptions (:class:`PushSubscriptions`, on a session's connection); deliveries are
queued by :func:`queue_pushes` in the transaction that appends the player events they carry; the
worker claims them as due work (:func:`.webhooks.lease_due`: a lease, no transaction held while it
sends) and settles each batch in one short transaction (:meth:`PushDeliveries.settle`). A push
service's ``404`` or ``410`` removes the subscription; other failures are tried again later.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import Connection, Table, and_, bindparam, delete, func, insert, select, update

from .db import Database
from .player_models import PlayerEventRow, PlayerRow
from .push_models import PushDeliveryRow, PushSubscriptionRow
from .stored import StoredPlayerEvent
from .webhooks import DELIVERED, DROPPED, GONE, lease_due, owed_deliveries, remove_endpoint, remove_endpoints_of

__all__ = [
    "ClaimedPush",
    "PushDeliveries",
    "PushOutcome",
    "PushSubscriptions",
    "StoredPushSubscription",
    "queue_pushes",
]

SUBSCRIPTIONS = cast(Table, PushSubscriptionRow.__table__)
DELIVERIES = cast(Table, PushDeliveryRow.__table__)
EVENTS = cast(Table, PlayerEventRow.__table__)
PLAYERS = cast(Table, PlayerRow.__table__)


@dataclass(frozen=True, slots=True)
class StoredPushSubscription:
    """A push subscription as stored: ``auth`` is the ciphertext of the browser's auth secret."""

    id: str
    player_id: str
    endpoint: str
    p256dh: str
    auth: str
    types: tuple[str, ...]
    created_at: datetime


@dataclass(frozen=True, slots=True)
class ClaimedPush:
    """A delivery claimed for sending: its subscription and the player event it carries (None: the
    event is gone from the feed, nothing to send)."""

    id: int
    subscription: StoredPushSubscription
    attempts: int
    event: StoredPlayerEvent | None


@dataclass(frozen=True, slots=True)
class PushOutcome:
    """How one try ended: ``delivered``, ``gone`` (404 or 410: the subscription goes), ``dropped``
    (nothing to send) or ``failed`` (due again at ``retry_at``; None: given up)."""

    kind: str
    delivery_id: int
    subscription_id: str
    retry_at: datetime | None = None


_COLUMNS = tuple(SUBSCRIPTIONS.c[name] for name in StoredPushSubscription.__slots__)


def _subscription(row: Sequence[Any]) -> StoredPushSubscription:
    values = list(row)
    values[5] = tuple(values[5])
    return StoredPushSubscription(*values)


class PushSubscriptions:
    """A player's push subscriptions on one session's connection (:attr:`.StoreSession.push_subscriptions`)."""

    def __init__(self, db: Database, connection: Connection, *, inside: bool) -> None:
        self._db = db
        self._connection = connection
        self._inside = inside

    def add(self, subscription: StoredPushSubscription, *, most: int) -> StoredPushSubscription | None:
        """Insert ``subscription``, in place of the player's subscription of the same endpoint if
        there is one (a browser subscribing again: its keys may have changed), unless the player
        has ``most`` others already (None: nothing written). Count and insert are one transaction,
        the player's row locked first on PostgreSQL (the write lock on SQLite)."""
        with self._transaction():
            if not self._db.is_sqlite:
                self._connection.execute(
                    select(PLAYERS.c.id).where(PLAYERS.c.id == subscription.player_id).with_for_update()
                )
            mine = SUBSCRIPTIONS.c.player_id == subscription.player_id
            same = select(SUBSCRIPTIONS.c.id).where(mine, SUBSCRIPTIONS.c.endpoint == subscription.endpoint)
            replaced = list(self._connection.execute(same).scalars())
            count = self._connection.execute(select(func.count()).select_from(SUBSCRIPTIONS).where(mine)).scalar_one()
            if count - len(replaced) >= most:
                return None
            if replaced:
                self._connection.execute(delete(DELIVERIES).where(DELIVERIES.c.subscription_id.in_(replaced)))
                self._connection.execute(delete(SUBSCRIPTIONS).where(SUBSCRIPTIONS.c.id.in_(replaced)))
            values = {column.name: getattr(subscription, column.name) for column in _COLUMNS}
            values["types"] = list(subscription.types)
            self._connection.execute(insert(SUBSCRIPTIONS).values(values))
        return subscription

    def remove(self, player_id: str, subscription_id: str) -> bool:
        """Delete the player's subscription and what it is owed; False if the player has none of that id."""
        with self._transaction():
            return remove_endpoint(
                self._connection, SUBSCRIPTIONS, DELIVERIES.c.subscription_id, subscription_id, player_id
            )

    def remove_all(self, player_id: str) -> None:
        """Delete all the player's subscriptions (their account is deleted)."""
        with self._transaction():
            remove_endpoints_of(self._connection, SUBSCRIPTIONS, DELIVERIES.c.subscription_id, player_id)

    def _transaction(self) -> AbstractContextManager[object]:
        if self._inside:
            return self._db.within(self._connection, savepoint=True)
        return self._db.begin(self._connection, write=True)


# The push subscriptions of some players: read with every batch of the outbox the worker delivers, so built once.
_SUBSCRIBED = select(SUBSCRIPTIONS.c.id, SUBSCRIPTIONS.c.player_id, SUBSCRIPTIONS.c.types).where(
    SUBSCRIPTIONS.c.player_id.in_(bindparam("players", expanding=True))
)


def queue_pushes(connection: Connection, events: Sequence[StoredPlayerEvent]) -> int:
    """In the transaction appending ``events`` (numbered), queue a delivery of each to each push
    subscription of its player that takes its type, due at once; how many."""
    players = {event.player_id for event in events}
    if not players:
        return 0
    subscribed = connection.execute(_SUBSCRIBED, {"players": sorted(players)}).all()
    rows = owed_deliveries(events, subscribed, "subscription_id")
    if rows:
        connection.execute(insert(DELIVERIES), rows)
    return len(rows)


class PushDeliveries:
    """The deliveries owed to push subscriptions, as the worker's due work."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def claim(self, now: datetime, *, limit: int, lease: timedelta) -> list[ClaimedPush]:
        """Up to ``limit`` deliveries due at ``now``, each leased until ``now + lease``."""
        return list(_claimed(lease_due(self._db, DELIVERIES, now, limit=limit, lease=lease, read=_read_claimed)))

    def settle(self, outcomes: Sequence[PushOutcome]) -> None:
        """Write the outcomes of one batch's tries, in one short transaction."""
        with self._db.connect() as connection, self._db.begin(connection, write=True):
            for outcome in outcomes:
                if outcome.kind == GONE:
                    connection.execute(
                        delete(DELIVERIES).where(DELIVERIES.c.subscription_id == outcome.subscription_id)
                    )
                    connection.execute(delete(SUBSCRIPTIONS).where(SUBSCRIPTIONS.c.id == outcome.subscription_id))
                elif outcome.kind in (DELIVERED, DROPPED) or outcome.retry_at is None:
                    connection.execute(delete(DELIVERIES).where(DELIVERIES.c.id == outcome.delivery_id))
                else:
                    connection.execute(
                        update(DELIVERIES)
                        .where(DELIVERIES.c.id == outcome.delivery_id)
                        .values(attempts=DELIVERIES.c.attempts + 1, next_attempt_at=outcome.retry_at)
                    )

    def pending(self) -> int:
        """How many deliveries are owed (tests)."""
        with self._db.connect() as connection, self._db.begin(connection, write=False, one_statement=True):
            return int(connection.execute(select(func.count()).select_from(DELIVERIES)).scalar_one())


def _read_claimed(connection: Connection, ids: list[int]) -> list[Any]:
    return list(
        connection.execute(
            select(
                DELIVERIES.c.id,
                DELIVERIES.c.attempts,
                *_COLUMNS,
                EVENTS.c.id,
                EVENTS.c.type,
                EVENTS.c.data,
                EVENTS.c.created_at,
            )
            .join(SUBSCRIPTIONS, SUBSCRIPTIONS.c.id == DELIVERIES.c.subscription_id)
            .outerjoin(
                EVENTS,
                and_(EVENTS.c.player_id == DELIVERIES.c.player_id, EVENTS.c.id == DELIVERIES.c.event_id),
            )
            .where(DELIVERIES.c.id.in_(ids))
            .order_by(DELIVERIES.c.id)
        )
    )


def _claimed(rows: Sequence[Sequence[Any]]) -> Iterator[ClaimedPush]:
    width = len(_COLUMNS)
    for row in rows:
        delivery_id, attempts = row[0], row[1]
        subscription = _subscription(row[2 : 2 + width])
        event_id, kind, data, created_at = row[2 + width :]
        event = (
            None if event_id is None else StoredPlayerEvent(subscription.player_id, event_id, kind, data, created_at)
        )
        yield ClaimedPush(delivery_id, subscription, attempts, event)
