"""Retention: delete finished games past an age, and abandoned ones, with everything they hold.

Command line (reads ``DATABASE_URL``, like the service; safe from cron on any instance, at any
time, any number at once)::

    coins-purge                            # delete, print one line: what went
    coins-purge --dry-run                  # count only
    coins-purge --finished-after-days 90 --abandoned-after-days 30

A game is *finished-and-old* when its status is ``finished`` and it has not changed for
``PURGE_FINISHED_AFTER_DAYS`` days (default 90), and *abandoned* when it is not finished and has
not changed for ``PURGE_ABANDONED_AFTER_DAYS`` days (default 30); the options override the two.
Deleting a game deletes its seats, actions, tricks, events and rated result with it (``ON DELETE
CASCADE``; on SQLite this is checked: the connection must have ``foreign_keys`` on). What players
need stays: their ratings, and their rating history, whose rows name the game without a key and
hold everything the history shows; a rated game whose result is not applied yet is kept until it is.

Games go in batches of :data:`BATCH`, each batch its own short transaction, so the purge never
holds a long lock. On PostgreSQL a batch locks its games with ``FOR UPDATE SKIP LOCKED``: two
purges at once take different games and never wait for each other, and a game some request has
locked is left for the next run. On SQLite writers take turns (:class:`.db.Database`). A second
run finds nothing more to delete: the purge is idempotent.

It also deletes the quick-play tickets done with (:func:`purge_tickets`: ended ones, and matched ones
whose game is gone), the players' feed events as old as the finished games it deletes and those of
deleted accounts (:func:`purge_feeds`), and expired idempotency keys and rate-limit counters
(:func:`purge_expired`), which belong to no game.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Connection, delete, func, select, tuple_

from ..config import ConfigError, Settings
from .db import Database, DatabaseUnavailable
from .idempotency import purge_keys
from .migrate import SchemaNotMigrated, require_migrated
from .models import GameResultRow, GameRow, TicketRow
from .player_models import PlayerEventRow, PlayerRow
from .rate_limits import DatabaseStorage

__all__ = ["BATCH", "Purged", "main", "purge", "purge_expired", "purge_feeds", "purge_tickets"]

BATCH = 500  # games per transaction
FINISHED = "finished"  # the engine's Status.FINISHED, as stored
ENDED_TICKETS = ("expired", "cancelled")  # a ticket's statuses once it ended unmatched
DEFAULT_FINISHED_AFTER_DAYS = 90
DEFAULT_ABANDONED_AFTER_DAYS = 30


@dataclass(frozen=True, slots=True)
class Purged:
    """How many games a purge deleted (or, in a dry run, would delete), and in how many batches; and
    how many quick-play tickets (:func:`purge_tickets`) and players' feed events (:func:`purge_feeds`),
    each in batches of their own."""

    finished: int
    abandoned: int
    batches: int
    tickets: int = 0
    feed_events: int = 0


def purge(
    db: Database,
    *,
    finished_before: datetime,
    abandoned_before: datetime,
    batch: int = BATCH,
    dry_run: bool = False,
) -> Purged:
    """Delete the finished games last changed before ``finished_before`` and the unfinished ones
    last changed before ``abandoned_before``, ``batch`` games per transaction."""
    # A rated game whose result the ratings have not applied yet stays until they have: its
    # players' history rows, which hold all their history shows, outlive it.
    unapplied = select(GameResultRow.game_id).where(
        GameResultRow.game_id == GameRow.id, GameResultRow.applied_at.is_(None)
    )
    finished = (GameRow.status == FINISHED) & (GameRow.updated_at < finished_before) & ~unapplied.exists()
    abandoned = (GameRow.status != FINISHED) & (GameRow.updated_at < abandoned_before)
    if dry_run:
        with db.connect() as connection, db.begin(connection, write=False):
            return Purged(
                _count(connection, GameRow, finished),
                _count(connection, GameRow, abandoned),
                0,
                _count(connection, TicketRow, _done_with(abandoned_before)),
                _count(connection, PlayerEventRow, _past(finished_before)),
            )
    counts, batches = [], 0
    for which in (finished, abandoned):
        deleted = 0
        while True:
            with db.connect() as connection, db.begin(connection, write=True):
                _check_cascade(connection)
                gone = _delete_batch(connection, which, batch)
            batches += 1
            deleted += gone
            if gone < batch:
                break
        counts.append(deleted)
    tickets = purge_tickets(db, before=abandoned_before, batch=batch)
    return Purged(counts[0], counts[1], batches, tickets, purge_feeds(db, before=finished_before, batch=batch))


def purge_tickets(db: Database, *, before: datetime, batch: int = BATCH) -> int:
    """Delete the quick-play tickets done with before ``before``, ``batch`` per statement; how many went.

    A ticket is done with once it ended unmatched (expired, cancelled) before ``before``, or once it was
    matched before ``before`` into a game that was stored and is gone since (purged: its game's rows,
    and with them its ticket's address hash, go). A waiting ticket stays, and so does a matched one
    whose game is not stored yet (quick play starts it) or is still stored (its ticket still reads)."""
    return _delete_in_batches(db, (TicketRow.id,), _done_with(before), batch)


def purge_feeds(db: Database, *, before: datetime, batch: int = BATCH) -> int:
    """Delete the players' feed events written before ``before`` and every event of a deleted account,
    ``batch`` per statement; how many went.

    A feed is for following what happens, not a history (a player's games and ratings are read
    elsewhere): an event as old as the finished games a purge deletes tells of a game gone or soon
    gone, and nobody reads a deleted account's feed (its key is gone; the games it left may still add
    to it). Each feed keeps its numbering (its head row stays), so a reader resuming from an event
    deleted since reads on from the next one there is."""
    return _delete_in_batches(db, (PlayerEventRow.player_id, PlayerEventRow.id), _past(before), batch)


def _delete_in_batches(db: Database, key: tuple[Any, ...], which: ColumnElement[bool], batch: int) -> int:
    """Delete the rows matching ``which`` (the table's primary ``key`` columns name them), ``batch`` per
    transaction, until fewer are left; how many went."""
    table = key[0].table
    chosen_key = key[0] if len(key) == 1 else tuple_(*key)
    deleted = 0
    while True:
        with db.connect() as connection, db.begin(connection, write=True):
            chosen = select(*key).where(which).limit(batch)
            gone = int(connection.execute(delete(table).where(chosen_key.in_(chosen))).rowcount)
        deleted += gone
        if gone < batch:
            return deleted


def _past(before: datetime) -> ColumnElement[bool]:
    """The feed events :func:`purge_feeds` deletes."""
    deleted_accounts = select(PlayerRow.id).where(PlayerRow.deleted_at.is_not(None))
    return (PlayerEventRow.created_at < before) | PlayerEventRow.player_id.in_(deleted_accounts)


def _done_with(before: datetime) -> ColumnElement[bool]:
    """The tickets :func:`purge_tickets` deletes."""
    ended = TicketRow.status.in_(ENDED_TICKETS) & (TicketRow.ended_at < before)
    game_gone = ~select(GameRow.id).where(GameRow.id == TicketRow.game_id).exists()
    matched = (TicketRow.status == "matched") & TicketRow.game_started & (TicketRow.matched_at < before) & game_gone
    return ended | matched


def purge_expired(db: Database, now: datetime, *, batch: int = BATCH) -> int:
    """Delete the expired idempotency keys and rate-limit counters, ``batch`` rows per statement;
    the number of keys deleted. (The processes that take keys also delete a few now and then.)"""
    counters = DatabaseStorage(database=db)
    deleted = 0
    while (gone := purge_keys(db, now, limit=batch)) > 0:
        deleted += gone
    while counters.purge(now.timestamp(), limit=batch) > 0:
        pass
    return deleted


def _count(connection: Connection, table: Any, which: ColumnElement[bool]) -> int:
    return int(connection.execute(select(func.count()).select_from(table).where(which)).scalar_one())


def _delete_batch(connection: Connection, which: ColumnElement[bool], batch: int) -> int:
    """Delete up to ``batch`` games matching ``which`` (their children go with them); how many went.
    PostgreSQL skips games another transaction holds (another purge's batch, a request's lock)."""
    chosen = select(GameRow.id).where(which).limit(batch).with_for_update(skip_locked=True)
    result = connection.execute(delete(GameRow).where(GameRow.id.in_(chosen)))
    return int(result.rowcount)


def _check_cascade(connection: Connection) -> None:
    """On SQLite, refuse to delete unless foreign keys are enforced: else the children would stay."""
    if connection.dialect.name == "sqlite" and connection.exec_driver_sql("PRAGMA foreign_keys").scalar() != 1:
        raise RuntimeError("SQLite foreign keys are off: deleting games would leave their seats and actions")


def days_from_env(env: Mapping[str, str], name: str, default: int) -> int:
    """A whole number of days, at least 1, from ``env[name]`` (``default`` when unset)."""
    raw = env.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise ConfigError(f"{name} must be a whole number of days, at least 1, not {raw!r}")
    return int(raw)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="coins-purge", description="Delete old finished games and abandoned ones from DATABASE_URL."
    )
    parser.add_argument("--dry-run", action="store_true", help="count what would go; delete nothing")
    parser.add_argument("--finished-after-days", type=int, metavar="DAYS", help="default PURGE_FINISHED_AFTER_DAYS")
    parser.add_argument("--abandoned-after-days", type=int, metavar="DAYS", help="default PURGE_ABANDONED_AFTER_DAYS")
    parser.add_argument("--batch", type=int, default=BATCH, help=f"games per transaction (default {BATCH})")
    args = parser.parse_args(argv)
    try:
        settings = Settings.from_env()
        finished_days = args.finished_after_days
        if finished_days is None:
            finished_days = days_from_env(os.environ, "PURGE_FINISHED_AFTER_DAYS", DEFAULT_FINISHED_AFTER_DAYS)
        abandoned_days = args.abandoned_after_days
        if abandoned_days is None:
            abandoned_days = days_from_env(os.environ, "PURGE_ABANDONED_AFTER_DAYS", DEFAULT_ABANDONED_AFTER_DAYS)
        if min(finished_days, abandoned_days, args.batch) < 1:
            raise ConfigError("days and --batch must be at least 1")
    except ConfigError as error:
        print(f"coins-purge: {error}", file=sys.stderr)
        return 2
    now = datetime.now(UTC)
    database = Database(settings.sqlalchemy_url, pool_size=1, busy_timeout_ms=settings.db_busy_timeout_ms)
    try:
        require_migrated(database)  # an empty database, or one left at an older release's revision
        purged = purge(
            database,
            finished_before=now - timedelta(days=finished_days),
            abandoned_before=now - timedelta(days=abandoned_days),
            batch=args.batch,
            dry_run=args.dry_run,
        )
        keys = 0 if args.dry_run else purge_expired(database, now, batch=args.batch)
    except DatabaseUnavailable as error:
        print(f"coins-purge: the database is unavailable: {error}", file=sys.stderr)
        return 3
    except SchemaNotMigrated as error:
        print(f"coins-purge: {error}", file=sys.stderr)
        return 2
    finally:
        database.dispose()
    verb = "would delete" if args.dry_run else "deleted"
    batches = "" if args.dry_run else f" in {purged.batches} batch(es)"
    counted = [
        f"{purged.tickets} quick-play ticket(s) done with",
        f"{purged.feed_events} feed event(s) older than {finished_days} days or of deleted accounts",
        *([] if args.dry_run else [f"{keys} expired idempotency key(s)"]),
    ]
    print(
        f"coins-purge: {verb} {purged.finished} finished game(s) older than {finished_days} days and "
        f"{purged.abandoned} abandoned game(s) idle for {abandoned_days} days{batches}, "
        + ", ".join(counted[:-1])
        + f", and {counted[-1]}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
