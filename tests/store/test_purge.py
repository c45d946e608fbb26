"""coins-purge: old finished games and abandoned ones go, with every row they hold; the rest stay."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text

from service.config import Settings
from service.store import Database
from service.store.purge import Purged, main, purge

NOW = datetime.now(UTC)
CHILD_TABLES = ("seats", "actions", "tricks", "events")


def _game(client, db: Database, *, status: str, days_ago: float) -> str:
    """A game of three bots (its first moves made by the worker: seats, actions, tricks, events), then aged."""
    created = client.post("/v1/games", json={"seats": [{"bot": "random"}] * 3, "target_score": 100})
    assert created.status_code == 201, created.json
    game_id = created.json["id"]
    assert client.application.extensions["coins.games"].make_due_moves(game_id)  # unfollowed, it would wait
    with db.engine.begin() as connection:
        connection.execute(
            text("UPDATE games SET status = :status, updated_at = :at WHERE id = :id"),
            {"status": status, "at": NOW - timedelta(days=days_ago), "id": game_id},
        )
    return game_id


def _rows(db: Database, game_id: str) -> dict[str, int]:
    with db.engine.connect() as connection:
        counts = {"games": connection.execute(text("SELECT count(*) FROM games WHERE id = :id"), {"id": game_id})}
        for table in CHILD_TABLES:
            counts[table] = connection.execute(
                text(f"SELECT count(*) FROM {table} WHERE game_id = :id"), {"id": game_id}
            )
        return {table: int(result.scalar_one()) for table, result in counts.items()}


def _purge(db: Database, **options) -> Purged:
    return purge(db, finished_before=NOW - timedelta(days=90), abandoned_before=NOW - timedelta(days=30), **options)


@pytest.fixture
def db(app) -> Database:
    return app.extensions["coins.db"]


@pytest.fixture
def games(client, db):
    return {
        "old_finished": _game(client, db, status="finished", days_ago=91),
        "old_abandoned": _game(client, db, status="playing", days_ago=31),
        "old_waiting": _game(client, db, status="waiting_for_players", days_ago=45),
        "recent_finished": _game(client, db, status="finished", days_ago=60),
        "recent_playing": _game(client, db, status="playing", days_ago=29),
        "new": _game(client, db, status="playing", days_ago=0),
    }


def test_old_finished_and_abandoned_games_go_with_their_rows_and_the_rest_stay(db, games):
    before = _rows(db, games["old_finished"])
    assert all(before[table] for table in ("games", *CHILD_TABLES))  # something to delete in every table
    assert _purge(db) == Purged(finished=1, abandoned=2, batches=2)
    for name in ("old_finished", "old_abandoned", "old_waiting"):
        assert set(_rows(db, games[name]).values()) == {0}, name
    for name in ("recent_finished", "recent_playing", "new"):
        assert _rows(db, games[name])["games"] == 1 and _rows(db, games[name])["actions"] > 0, name


def test_a_second_run_finds_nothing(db, games):
    _purge(db)
    assert _purge(db) == Purged(0, 0, 2)


def test_a_dry_run_counts_and_deletes_nothing(db, games):
    assert _purge(db, dry_run=True) == Purged(finished=1, abandoned=2, batches=0)
    assert all(_rows(db, game_id)["games"] == 1 for game_id in games.values())


def test_batches_are_bounded(client, db):
    for _ in range(5):
        _game(client, db, status="finished", days_ago=100)
    assert _purge(db, batch=2) == Purged(finished=5, abandoned=0, batches=4)  # 2, 2, 1; then 0 abandoned


def test_two_purges_at_once_delete_each_game_once(client, db, games):
    for _ in range(6):
        _game(client, db, status="finished", days_ago=100)
    results: list[Purged] = []
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def run() -> None:
        try:
            start.wait()
            results.append(_purge(db, batch=2))
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors and len(results) == 2
    assert sum(r.finished for r in results) == 7 and sum(r.abandoned for r in results) == 2
    assert _purge(db) == Purged(0, 0, 2)
    assert all(_rows(db, games[name])["games"] == 1 for name in ("recent_finished", "recent_playing", "new"))


def test_the_command_prints_one_line_and_exits_0(db, games, settings, monkeypatch, capsys):
    monkeypatch.setenv("DATABASE_URL", settings.database_url)
    monkeypatch.setenv("PURGE_ABANDONED_AFTER_DAYS", "40")  # old_abandoned (31 days) stays now
    assert main(["--dry-run"]) == 0
    assert capsys.readouterr().out.strip() == (
        "coins-purge: would delete 1 finished game(s) older than 90 days and 1 abandoned game(s) idle for 40 days,"
        " 0 quick-play ticket(s) done with, and 0 feed event(s) older than 90 days or of deleted accounts"
    )
    assert main(["--abandoned-after-days", "30"]) == 0
    assert "deleted 1 finished game(s) older than 90 days and 2 abandoned" in capsys.readouterr().out
    monkeypatch.setenv("PURGE_FINISHED_AFTER_DAYS", "soon")
    assert main([]) == 2


def test_the_command_names_a_database_not_migrated(tmp_path, monkeypatch, capsys):
    """As the roles and coins-admin name it: one line, not a traceback of 'no such table'."""
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'empty.sqlite3'}")
    assert main(["--dry-run"]) == 2
    err = capsys.readouterr().err
    assert "coins-purge: the database is empty (no revision); this code needs revision" in err
    assert "run coins-migrate" in err and "Traceback" not in err


def test_expired_idempotency_keys_and_counters_go(database_url: str) -> None:
    from service.store import GameStore, IdempotencyStore
    from service.store.migrate import upgrade
    from service.store.purge import purge_expired
    from service.store.rate_limits import DatabaseStorage

    db = Database(Settings(database_url=database_url).sqlalchemy_url)
    try:
        upgrade(db)
        now = datetime.now(UTC)
        store = GameStore(db)
        keys = IdempotencyStore(store)
        counters = DatabaseStorage(database=db)
        for index in range(5):
            with store.session() as session:
                held = keys.hold("s", f"k{index}", now=now, session=session)
                assert held is not None
                expires = now + timedelta(hours=-1 if index < 3 else 1)
                held.keep("f", 201, b"kept", now=now, expires_at=expires)
                held.close()
        counters.incr("gone", 1)
        counters.incr("kept", 3600)
        assert purge_expired(db, now + timedelta(seconds=2), batch=2) == 3
        assert keys.find("s", "k4", now=now) is not None  # not expired: kept
        assert keys.find("s", "k0", now=now) is None
        assert counters.get("kept") == 1
        with db.engine.connect() as connection:
            assert connection.exec_driver_sql("SELECT count(*) FROM rate_limits").scalar() == 1
    finally:
        db.dispose()


def _ticket(db: Database, name: str, *, status: str, days_ago: float, game_id: str | None = None, started=True) -> str:
    """A quick-play ticket made (and ended or matched) ``days_ago``, written as the queue writes it."""
    from sqlalchemy import insert

    from service.store.models import TicketRow

    at = NOW - timedelta(days=days_ago)
    ticket_id = f"{name:0<26}"[:26]
    matched = status == "matched"
    with db.engine.begin() as connection:
        connection.execute(
            insert(TicketRow).values(
                id=ticket_id,
                player_id=f"player-{name}",
                name=name,
                target_score=15,
                rated=False,
                bots_after=60,
                status=status,
                mu=25.0,
                sigma=8.3,
                created_at=at,
                seen_at=at,
                address_hash="h" * 32,
                game_id=game_id if matched else None,
                seat=0 if matched else None,
                matched_at=at if matched else None,
                ended_at=at if status in ("expired", "cancelled") else None,
                game_started=matched and started,
            )
        )
    return ticket_id


def _tickets(db: Database) -> set[str]:
    with db.engine.connect() as connection:
        return {row[0] for row in connection.execute(text("SELECT id FROM queue_tickets"))}


def test_tickets_done_with_go_the_rest_stay(db, games):
    """Ended tickets past the abandoned cutoff, and matched ones whose game the purge deleted, go (with their
    address hashes, docs/security.md); waiting ones, unstarted ones and those whose game is kept stay."""
    gone = {
        _ticket(db, "expired", status="expired", days_ago=31),
        _ticket(db, "cancelled", status="cancelled", days_ago=40),
        _ticket(db, "purgedgame", status="matched", days_ago=91, game_id=games["old_finished"]),
        _ticket(db, "nogame", status="matched", days_ago=35, game_id="0" * 26),
    }
    kept = {
        _ticket(db, "recentend", status="cancelled", days_ago=5),
        _ticket(db, "waiting", status="waiting", days_ago=40),
        _ticket(db, "keptgame", status="matched", days_ago=60, game_id=games["recent_finished"]),
        _ticket(db, "unstarted", status="matched", days_ago=40, game_id="1" * 26, started=False),
        _ticket(db, "recentmatch", status="matched", days_ago=1, game_id="2" * 26),
    }
    assert _purge(db, dry_run=True).tickets == 3  # the purged game's ticket goes only once its game has
    assert _purge(db, batch=2) == Purged(finished=1, abandoned=2, batches=3, tickets=4)
    assert _tickets(db) == kept and not gone & _tickets(db)
    assert _purge(db).tickets == 0


def _feed_event(db: Database, player_id: str, event_id: int, *, days_ago: float) -> None:
    """An event of ``player_id``'s feed written ``days_ago`` (its numbering as the feed's writer keeps it)."""
    with db.engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO player_events (player_id, id, type, data, created_at) VALUES (:p, :i, 'your_turn', '{}', :at)"
            ),
            {"p": player_id, "i": event_id, "at": NOW - timedelta(days=days_ago)},
        )


def _feed(db: Database, player_id: str) -> list[int]:
    with db.engine.connect() as connection:
        rows = connection.execute(
            text("SELECT id FROM player_events WHERE player_id = :p ORDER BY id"), {"p": player_id}
        )
        return [row[0] for row in rows]


def test_old_feed_events_and_a_deleted_accounts_go(client, db):
    """A feed's events as old as the finished games purged go (a feed grew for good: about 17 events and
    27 KiB a game), and every event of a deleted account; a live account's recent events stay, numbered
    as they were."""
    ana, bo = (client.post("/v1/players", json={"name": name}).json for name in ("Ana", "Bo"))
    for event_id, days_ago in enumerate((120, 95, 89, 1), start=1):
        _feed_event(db, ana["id"], event_id, days_ago=days_ago)
        _feed_event(db, bo["id"], event_id, days_ago=days_ago)
    assert client.delete("/v1/players/me", headers={"Authorization": f"Bearer {bo['key']}"}).status_code == 204
    assert _purge(db, dry_run=True).feed_events == 2 + 4
    assert _purge(db, batch=4).feed_events == 6
    assert _feed(db, ana["id"]) == [3, 4] and _feed(db, bo["id"]) == []
    assert _purge(db).feed_events == 0
