"""Webhooks and their deliveries in the database (tables in :mod:`.webhook_models`).

A player's requests add, list and delete their webhooks (:class:`Webhooks`, on a session's
connection, joining a keyed unit of work's transaction when there is one). Deliveries are queued by
:func:`queue_deliveries` in the very transaction that appends the player events they carry, so an
event and what it owes the webhooks commit together. The worker then works them off as due work
(:class:`WebhookDeliveries`): :meth:`~WebhookDeliveries.claim` takes the due rows in one short write
transaction (``FOR UPDATE SKIP LOCKED`` on PostgreSQL, the write lock on SQLite) and moves each one's
``next_attempt_at`` on by a lease, so that another worker skips it while it is sent and a worker
that dies while sending leaves it due again; no transaction is open while it sends; the outcome is
written in another short transaction, one for the batch (:meth:`~WebhookDeliveries.settle`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import Column, Connection, Integer, Select, Table, and_, bindparam, delete, func, insert, select, update

from .db import Database
from .player_models import PlayerEventRow, PlayerRow
from .stored import StoredPlayerEvent
from .webhook_models import WebhookDeliveryRow, WebhookRow

__all__ = [
    "ClaimedDelivery",
    "Outcome",
    "StoredWebhook",
    "WebhookDeliveries",
    "Webhooks",
    "lease_due",
    "owed_deliveries",
    "queue_deliveries",
]

WEBHOOKS = cast(Table, WebhookRow.__table__)
DELIVERIES = cast(Table, WebhookDeliveryRow.__table__)
EVENTS = cast(Table, PlayerEventRow.__table__)
PLAYERS = cast(Table, PlayerRow.__table__)


@dataclass(frozen=True, slots=True)
class StoredWebhook:
    """A webhook as stored: ``secret`` is the ciphertext of its signing secret."""

    id: str
    player_id: str
    url: str
    types: tuple[str, ...]
    secret: str
    enabled: bool
    created_at: datetime
    failing_since: datetime | None = None


@dataclass(frozen=True, slots=True)
class ClaimedDelivery:
    """A delivery claimed for sending: its webhook (url, encrypted secret), its attempts so far and
    the player event it carries (None: the event is gone from the feed, nothing to send)."""

    id: int
    webhook_id: str
    url: str
    secret: str
    attempts: int
    event: StoredPlayerEvent | None


DELIVERED, GONE, DROPPED, FAILED = "delivered", "gone", "dropped", "failed"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one try ended: ``delivered`` (2xx), ``gone`` (410: the webhook goes), ``dropped`` (its
    event is gone: nothing to send) or ``failed`` (due again at ``retry_at``; None: given up)."""

    kind: str
    delivery_id: int
    webhook_id: str
    retry_at: datetime | None = None


_WEBHOOK_COLUMNS = (
    WEBHOOKS.c.id,
    WEBHOOKS.c.player_id,
    WEBHOOKS.c.url,
    WEBHOOKS.c.types,
    WEBHOOKS.c.secret,
    WEBHOOKS.c.enabled,
    WEBHOOKS.c.created_at,
    WEBHOOKS.c.failing_since,
)


def _webhook(row: Sequence[Any]) -> StoredWebhook:
    values = list(row)
    values[3] = tuple(values[3])
    return StoredWebhook(*values)


class Webhooks:
    """A player's webhooks on one session's connection (:attr:`.StoreSession.webhooks`)."""

    def __init__(self, db: Database, connection: Connection, *, inside: bool) -> None:
        """``inside``: the connection is in a transaction its owner ends (a keyed unit of work's)."""
        self._db = db
        self._connection = connection
        self._inside = inside

    def add(self, webhook: StoredWebhook, *, most: int) -> bool:
        """Insert ``webhook`` unless its player has ``most`` already (False: nothing written). The
        count and the insert are one transaction, the player's row locked first on PostgreSQL (the
        write lock on SQLite), so two requests at once cannot pass ``most`` together."""
        with self._transaction():
            if not self._db.is_sqlite:
                self._connection.execute(
                    select(PLAYERS.c.id).where(PLAYERS.c.id == webhook.player_id).with_for_update()
                )
            count = self._connection.execute(
                select(func.count()).select_from(WEBHOOKS).where(WEBHOOKS.c.player_id == webhook.player_id)
            ).scalar_one()
            if count >= most:
                return False
            values = {column.name: getattr(webhook, column.name) for column in _WEBHOOK_COLUMNS}
            values["types"] = list(webhook.types)
            self._connection.execute(insert(WEBHOOKS).values(values))
        return True

    def of(self, player_id: str) -> list[StoredWebhook]:
        """The player's webhooks, oldest first."""
        statement = (
            select(*_WEBHOOK_COLUMNS)
            .where(WEBHOOKS.c.player_id == player_id)
            .order_by(WEBHOOKS.c.created_at, WEBHOOKS.c.id)
        )
        with self._statement(write=False):
            return [_webhook(row) for row in self._connection.execute(statement)]

    def remove(self, player_id: str, webhook_id: str) -> bool:
        """Delete the player's webhook and what it is owed; False if the player has none of that id."""
        with self._transaction():
            return remove_endpoint(self._connection, WEBHOOKS, DELIVERIES.c.webhook_id, webhook_id, player_id)

    def remove_all(self, player_id: str) -> None:
        """Delete all the player's webhooks (their account is deleted)."""
        with self._transaction():
            remove_endpoints_of(self._connection, WEBHOOKS, DELIVERIES.c.webhook_id, player_id)

    def _transaction(self) -> AbstractContextManager[object]:
        if self._inside:
            return self._db.within(self._connection, savepoint=True)
        return self._db.begin(self._connection, write=True)

    def _statement(self, *, write: bool) -> AbstractContextManager[object]:
        if self._inside:
            return self._db.within(self._connection, savepoint=False)
        return self._db.begin(self._connection, write=write, one_statement=True)


def remove_endpoint(
    connection: Connection, endpoints: Table, owed: Column[Any], endpoint_id: str, player_id: str
) -> bool:
    """In the transaction ``connection`` is in, delete the player's endpoint (a row of ``endpoints``:
    a webhook, a push subscription) and the deliveries it is owed (those whose ``owed`` names it);
    False if the player has none of that id."""
    owned = and_(endpoints.c.id == endpoint_id, endpoints.c.player_id == player_id)
    if connection.execute(select(endpoints.c.id).where(owned)).first() is None:
        return False
    connection.execute(delete(owed.table).where(owed == endpoint_id))
    connection.execute(delete(endpoints).where(owned))
    return True


def remove_endpoints_of(connection: Connection, endpoints: Table, owed: Column[Any], player_id: str) -> None:
    """In the transaction ``connection`` is in, delete every endpoint of the player (their account is
    deleted) and the deliveries they are owed (see :func:`remove_endpoint`)."""
    mine = select(endpoints.c.id).where(endpoints.c.player_id == player_id)
    connection.execute(delete(owed.table).where(owed.in_(mine)))
    connection.execute(delete(endpoints).where(endpoints.c.player_id == player_id))


# The enabled webhooks of some players: read with every batch of the outbox the worker delivers, so built once.
_ENABLED_HOOKS = select(WEBHOOKS.c.id, WEBHOOKS.c.player_id, WEBHOOKS.c.types).where(
    WEBHOOKS.c.player_id.in_(bindparam("players", expanding=True)), WEBHOOKS.c.enabled.is_(True)
)


def queue_deliveries(connection: Connection, events: Sequence[StoredPlayerEvent]) -> int:
    """In the transaction ``connection`` is in (the one appending ``events``, numbered), queue a
    delivery of each event to each enabled webhook of its player that takes its type, due at
    once; how many. One SELECT for all the events' players, one INSERT."""
    players = {event.player_id for event in events}
    if not players:
        return 0
    hooks = connection.execute(_ENABLED_HOOKS, {"players": sorted(players)}).all()
    rows = owed_deliveries(events, hooks, "webhook_id")
    if rows:
        connection.execute(insert(DELIVERIES), rows)
    return len(rows)


def owed_deliveries(
    events: Sequence[StoredPlayerEvent], endpoints: Sequence[Sequence[Any]], endpoint_key: str
) -> list[dict[str, Any]]:
    """The delivery rows ``events`` owe ``endpoints`` (rows of an endpoint's id, its player's id and
    the event types it takes): one for each event and each endpoint of its player that takes its
    type, due at once, keyed ``endpoint_key``. The endpoints are grouped by player first, so that a
    batch of hundreds of events costs a pass over each list, not over their product."""
    by_player: dict[str, list[tuple[Any, Sequence[str]]]] = {}
    for endpoint_id, player_id, types in endpoints:
        by_player.setdefault(player_id, []).append((endpoint_id, types))
    return [
        {
            endpoint_key: endpoint_id,
            "player_id": event.player_id,
            "event_id": event.id,
            "attempts": 0,
            "next_attempt_at": event.created_at,
        }
        for event in events
        for endpoint_id, types in by_player.get(event.player_id, ())
        if event.type in types
    ]


class WebhookDeliveries:
    """The deliveries owed to webhooks, as the worker's due work (see the module's docstring)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def claim(self, now: datetime, *, limit: int, lease: timedelta) -> list[ClaimedDelivery]:
        """Up to ``limit`` deliveries due at ``now``, soonest first, each moved on to ``now + lease``
        (another worker leaves them alone until then), with what sending them needs."""
        return list(_claimed(lease_due(self._db, DELIVERIES, now, limit=limit, lease=lease, read=_read_claimed)))

    def settle(self, outcomes: Sequence[Outcome], now: datetime, *, disable_after: timedelta) -> list[str]:
        """Write the outcomes of one batch's tries at ``now``, in one short transaction (see
        :class:`Outcome`); the ids of the webhooks disabled now, having failed for ``disable_after``."""
        disabled: list[str] = []
        with self._db.connect() as connection, self._db.begin(connection, write=True):
            _succeeded(connection, [outcome for outcome in outcomes if outcome.kind == DELIVERED], now)
            for outcome in outcomes:
                if outcome.kind == DELIVERED:
                    continue
                if outcome.kind == GONE:
                    _remove_webhook(connection, outcome.webhook_id)
                elif outcome.kind == DROPPED:
                    connection.execute(delete(DELIVERIES).where(DELIVERIES.c.id == outcome.delivery_id))
                elif _failed(connection, outcome, now, disable_after):
                    disabled.append(outcome.webhook_id)
        return disabled

    def pending(self) -> int:
        """How many deliveries are owed (tests, benches)."""
        with self._db.connect() as connection, self._db.begin(connection, write=False, one_statement=True):
            return int(connection.execute(select(func.count()).select_from(DELIVERIES)).scalar_one())


def lease_due(
    db: Database,
    deliveries: Table,
    now: datetime,
    *,
    limit: int,
    lease: timedelta,
    read: Callable[[Connection, list[int]], list[Any]],
) -> list[Any]:
    """Claim up to ``limit`` rows of ``deliveries`` (a table with ``id`` and ``next_attempt_at``) due
    at ``now``, soonest first: each moved on to ``now + lease`` in one short write transaction
    (``FOR UPDATE SKIP LOCKED`` on PostgreSQL), which answers what ``read`` reads of them. Most
    calls find none, and then take no write lock (SQLite's one). Webhooks' and push subscriptions'
    deliveries alike (:mod:`.push`)."""
    due, locking = _due_deliveries(deliveries)
    values = {"now": now, "limit": limit}
    with db.connect() as connection:
        with db.begin(connection, write=False, one_statement=True):
            if connection.execute(due, values).first() is None:
                return []
        with db.begin(connection, write=True):
            ids = list(connection.execute(due if db.is_sqlite else locking, values).scalars())
            if not ids:
                return []
            connection.execute(update(deliveries).where(deliveries.c.id.in_(ids)).values(next_attempt_at=now + lease))
            return read(connection, ids)


@functools.cache
def _due_deliveries(deliveries: Table) -> tuple[Select[Any], Select[Any]]:
    """The read of the due rows of ``deliveries``, plain and with ``FOR UPDATE SKIP LOCKED``: built
    once per table (built on each of the worker's calls, it costs more CPU than it takes to run)."""
    due = (
        select(deliveries.c.id)
        .where(deliveries.c.next_attempt_at <= bindparam("now", type_=deliveries.c.next_attempt_at.type))
        .order_by(deliveries.c.next_attempt_at)
        .limit(bindparam("limit", type_=Integer))
    )
    return due, due.with_for_update(skip_locked=True)


def _read_claimed(connection: Connection, ids: list[int]) -> list[Any]:
    return list(
        connection.execute(
            select(
                DELIVERIES.c.id,
                DELIVERIES.c.webhook_id,
                WEBHOOKS.c.url,
                WEBHOOKS.c.secret,
                DELIVERIES.c.attempts,
                DELIVERIES.c.player_id,
                EVENTS.c.id,
                EVENTS.c.type,
                EVENTS.c.data,
                EVENTS.c.created_at,
            )
            .join(WEBHOOKS, WEBHOOKS.c.id == DELIVERIES.c.webhook_id)
            .outerjoin(
                EVENTS,
                and_(EVENTS.c.player_id == DELIVERIES.c.player_id, EVENTS.c.id == DELIVERIES.c.event_id),
            )
            .where(DELIVERIES.c.id.in_(ids))
            .order_by(DELIVERIES.c.id)
        )
    )


def _succeeded(connection: Connection, delivered: Sequence[Outcome], now: datetime) -> None:
    """Delivered: the rows go, and their webhooks are not failing any more (one statement each). A
    success shows the receiver answers again, so what its webhook still owes after failed tries is due
    now rather than at their retries' times (up to hours apart): a receiver back from an outage gets it
    all at once. (A row another worker has leased meanwhile may then be sent twice: webhooks are at
    least once, each try of one event to one webhook with the same ``webhook-id``.) The batch's own
    failures are written after this (:meth:`WebhookDeliveries.settle`)."""
    if not delivered:
        return
    hooks = sorted({outcome.webhook_id for outcome in delivered})
    connection.execute(delete(DELIVERIES).where(DELIVERIES.c.id.in_([outcome.delivery_id for outcome in delivered])))
    connection.execute(
        update(WEBHOOKS)
        .where(WEBHOOKS.c.id.in_(hooks), WEBHOOKS.c.failing_since.is_not(None))
        .values(failing_since=None)
    )
    connection.execute(
        update(DELIVERIES)
        .where(DELIVERIES.c.webhook_id.in_(hooks), DELIVERIES.c.attempts > 0, DELIVERIES.c.next_attempt_at > now)
        .values(next_attempt_at=now)
    )


def _remove_webhook(connection: Connection, webhook_id: str) -> None:
    """The receiver answered ``410 Gone``: the webhook and all it is owed go."""
    connection.execute(delete(DELIVERIES).where(DELIVERIES.c.webhook_id == webhook_id))
    connection.execute(delete(WEBHOOKS).where(WEBHOOKS.c.id == webhook_id))


def _failed(connection: Connection, outcome: Outcome, now: datetime, disable_after: timedelta) -> bool:
    """A try failed: due again at ``retry_at`` (None: given up, the row goes); the webhook is failing
    since its first failure after its last success, and once that is ``disable_after`` ago it is
    disabled and owed nothing more. True if it was disabled now."""
    if outcome.retry_at is None:
        connection.execute(delete(DELIVERIES).where(DELIVERIES.c.id == outcome.delivery_id))
    else:
        connection.execute(
            update(DELIVERIES)
            .where(DELIVERIES.c.id == outcome.delivery_id)
            .values(attempts=DELIVERIES.c.attempts + 1, next_attempt_at=outcome.retry_at)
        )
    hook = WEBHOOKS.c.id == outcome.webhook_id
    connection.execute(update(WEBHOOKS).where(hook, WEBHOOKS.c.failing_since.is_(None)).values(failing_since=now))
    disabled = connection.execute(
        update(WEBHOOKS)
        .where(hook, WEBHOOKS.c.enabled.is_(True), WEBHOOKS.c.failing_since <= now - disable_after)
        .values(enabled=False)
    ).rowcount
    if disabled:
        connection.execute(delete(DELIVERIES).where(DELIVERIES.c.webhook_id == outcome.webhook_id))
    return bool(disabled)


def _claimed(rows: Sequence[Sequence[Any]]) -> Iterator[ClaimedDelivery]:
    for delivery_id, webhook_id, url, secret, attempts, player_id, event_id, kind, data, created_at in rows:
        event = None if event_id is None else StoredPlayerEvent(player_id, event_id, kind, data, created_at)
        yield ClaimedDelivery(delivery_id, webhook_id, url, secret, attempts, event)
