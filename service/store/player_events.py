"""Players' own feeds: append a player's events (numbered per player), read them, read each feed's head.

What a game's change owes players' feeds is written with the change, in its outbox (table ``outbox``),
and moved to the feeds by the worker (:func:`deliver_outbox`); the events no game's change makes
(quick play's, the ratings') are appended as they happen, in a short write transaction per player
that touches that player's rows only (never a game's): one UPSERT of
the feed's row (``player_feeds``) adds the number of new events to its ``last_id`` and returns it,
which numbers them; then one INSERT writes them. On PostgreSQL the UPSERT's row lock orders two
appenders of one player; on SQLite the write lock taken up front does. The primary key (player id,
id) guards the numbering: a clash (a bug, or a feed row deleted under a writer) rolls back and
the append runs again, a bounded number of times. The deliveries the player's webhooks are owed
are queued in the same transaction as the events (:func:`.webhooks.queue_deliveries`), as are their
push subscriptions' (:func:`.push.queue_pushes`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import cast

from sqlalchemy import Connection, Integer, Table, bindparam, delete, exc, insert, select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql import Executable

from .db import Database
from .models import OutboxRow
from .player_models import PlayerEventRow, PlayerFeedRow
from .push import queue_pushes
from .stored import StoredPlayerEvent
from .webhooks import queue_deliveries

__all__ = [
    "PLAYER_FEED",
    "append_player_events",
    "deliver_outbox",
    "player_feed_id",
    "player_heads",
    "read_player_events",
]

PLAYER_FEED = "player:"  # a player's feed's id: "player:<id>", beside games' ids (a game's feed id is its id)

EVENTS = cast(Table, PlayerEventRow.__table__)
FEEDS = cast(Table, PlayerFeedRow.__table__)
OUTBOX = cast(Table, OutboxRow.__table__)
APPEND_ATTEMPTS = 3
# The advisory lock of the outbox's one deliverer, per schema (as the migrations' lock, service.store.db).
_TRY_DELIVERER_LOCK = text("SELECT pg_try_advisory_xact_lock(hashtext('coins.outbox.' || current_schema()))")
# The oldest rows of the outbox, the worker's read of every pass, and their deletion once delivered: built once.
_OWED = (
    select(OUTBOX.c.id, OUTBOX.c.player_id, OUTBOX.c.type, OUTBOX.c.data, OUTBOX.c.created_at)
    .order_by(OUTBOX.c.id)
    .limit(bindparam("limit", type_=Integer))
)
_ANY_OWED = select(OUTBOX.c.id).limit(1)
_HEADS = select(FEEDS.c.player_id, FEEDS.c.last_id).where(FEEDS.c.player_id.in_(bindparam("ids", expanding=True)))
_DELIVERED = delete(OUTBOX).where(OUTBOX.c.id.in_(bindparam("ids", expanding=True)))


def _claim_ids(statement: postgresql.Insert | sqlite.Insert) -> Executable:
    """The UPSERT that takes ``last_id`` ids of the player's feed and returns the last of them; run
    with the rows of many players at once, in the players' order (PostgreSQL locks them in that order),
    SQLAlchemy sends them as one statement (its "insertmanyvalues"), and compiles it once."""
    return statement.on_conflict_do_update(
        index_elements=[FEEDS.c.player_id], set_={"last_id": FEEDS.c.last_id + statement.excluded.last_id}
    ).returning(FEEDS.c.player_id, FEEDS.c.last_id)


_CLAIM_IDS = {"postgresql": _claim_ids(postgresql.insert(FEEDS)), "sqlite": _claim_ids(sqlite.insert(FEEDS))}
# A player's events after a number, the real-time role's read of every followed feed that changed: built once.
_AFTER = (
    select(EVENTS.c.player_id, EVENTS.c.id, EVENTS.c.type, EVENTS.c.data, EVENTS.c.created_at)
    .where(EVENTS.c.player_id == bindparam("player_id"), EVENTS.c.id > bindparam("last", type_=Integer))
    .order_by(EVENTS.c.id)
    .limit(bindparam("limit", type_=Integer))
)


def player_feed_id(player_id: str) -> str:
    """The id of the player's feed, as the signal names it (a game's feed id is the game's id)."""
    return PLAYER_FEED + player_id


def append_player_events(
    db: Database, connection: Connection, events: Sequence[StoredPlayerEvent]
) -> list[StoredPlayerEvent]:
    """Append ``events`` (their ``id`` ignored) to their players' feeds, each player's in order, in
    one short transaction per player on ``connection`` (in none yet); the events as numbered."""
    by_player: dict[str, list[StoredPlayerEvent]] = {}
    for event in events:
        by_player.setdefault(event.player_id, []).append(event)
    appended: list[StoredPlayerEvent] = []
    for player_id, new in by_player.items():
        appended += _append(db, connection, player_id, new)
    return appended


def _append(
    db: Database, connection: Connection, player_id: str, new: list[StoredPlayerEvent]
) -> list[StoredPlayerEvent]:
    for attempt in range(APPEND_ATTEMPTS):
        try:
            with db.begin(connection, write=True):
                return _numbered_in(connection, {player_id: new})
        except exc.IntegrityError:
            if attempt == APPEND_ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")


def _numbered_in(connection: Connection, by_player: Mapping[str, list[StoredPlayerEvent]]) -> list[StoredPlayerEvent]:
    """Number each player's new events on from their feed and insert them, in the transaction
    ``connection`` is in: one UPSERT numbers every player's, one INSERT writes them all, and the
    deliveries their webhooks and push subscriptions are owed are queued with them (a statement or
    two each), however many players (the outbox's batch: hundreds)."""
    if not by_player:
        return []
    claims = [{"player_id": player, "last_id": len(by_player[player])} for player in sorted(by_player)]
    lasts: dict[str, int] = dict(connection.execute(_CLAIM_IDS[connection.dialect.name], claims).all())
    numbered = [
        StoredPlayerEvent(player_id, lasts[player_id] - len(new) + number, event.type, event.data, event.created_at)
        for player_id, new in by_player.items()
        for number, event in enumerate(new, start=1)
    ]
    rows = [
        {"player_id": e.player_id, "id": e.id, "type": e.type, "data": e.data, "created_at": e.created_at}
        for e in numbered
    ]
    connection.execute(insert(EVENTS), rows)
    queue_deliveries(connection, numbered)  # what the players' webhooks are owed commits with the events
    queue_pushes(connection, numbered)  # and what their push subscriptions are owed
    return numbered


def deliver_outbox(db: Database, connection: Connection, *, limit: int) -> list[StoredPlayerEvent]:
    """Move up to ``limit`` of the oldest rows of the outbox (what games' changes owe players' feeds)
    to their players' feeds, in one write transaction that appends them and deletes them: each is
    delivered once, or, if the transaction fails, stays for the next call. One deliverer at a time
    (on PostgreSQL a transaction-scoped advisory lock, which another deliverer skips rather than
    waits for; on SQLite the write lock), so that each player's events keep their order. A call
    that finds nothing owed (most of them) reads only, and takes no write lock. The events as
    numbered (none: nothing owed, or another deliverer at work)."""
    with db.begin(connection, write=False, one_statement=True):
        if connection.execute(_ANY_OWED).first() is None:
            return []
    with db.begin(connection, write=True):
        if connection.dialect.name == "postgresql" and not connection.execute(_TRY_DELIVERER_LOCK).scalar_one():
            return []
        owed = connection.execute(_OWED, {"limit": limit}).all()
        if not owed:
            return []
        by_player: dict[str, list[StoredPlayerEvent]] = {}
        for _, player_id, kind, data, created_at in owed:
            by_player.setdefault(player_id, []).append(StoredPlayerEvent(player_id, 0, kind, data, created_at))
        delivered = _numbered_in(connection, by_player)
        connection.execute(_DELIVERED, {"ids": [row[0] for row in owed]})
    return delivered


def read_player_events(
    connection: Connection, after: Mapping[str, int], *, limit: int
) -> dict[str, list[StoredPlayerEvent]]:
    """Each player's events numbered after ``after[player_id]``, oldest first, at most ``limit`` of
    each: one statement per player (a player has few readers, each with one feed)."""
    found: dict[str, list[StoredPlayerEvent]] = {}
    for player_id, last in after.items():
        parameters = {"player_id": player_id, "last": last, "limit": limit}
        rows = [StoredPlayerEvent(*row) for row in connection.execute(_AFTER, parameters)]
        if rows:
            found[player_id] = rows
    return found


def player_heads(connection: Connection, player_ids: Collection[str]) -> dict[str, int]:
    """The id of each player's last event (a player missing from the answer has none): one statement."""
    if not player_ids:
        return {}
    return {player_id: last for player_id, last in connection.execute(_HEADS, {"ids": list(player_ids)})}
