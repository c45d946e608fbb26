"""Migrations: the migrated schema is the models' schema, on SQLite and PostgreSQL, and upgrading is safe to race."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

from service import SchemaNotMigrated, create_app
from service.config import Settings
from service.store import Base, Database
from service.store.migrate import alembic_config, current_revision, head_revision, upgrade

TABLES = {
    "games", "seats", "actions", "tricks", "events", "players", "game_results", "rating_history", "idempotency_keys",
    "rate_limits", "queue_tickets", "player_feeds", "player_events", "rating_opponents", "admin_actions",
    "service_secrets", "role_heartbeats", "outbox", "reviews", "webhooks", "webhook_deliveries", "push_subscriptions",
    "push_deliveries",
}  # fmt: skip
TIMEOUT = 120  # seconds for any child process


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    """The test's empty database (no tables), not migrated."""
    db = Database(Settings(database_url=database_url).sqlalchemy_url)
    yield db
    db.dispose()


def schema_differences(db: Database) -> list[object]:
    with db.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return list(compare_metadata(context, Base.metadata))


def tables(db: Database) -> set[str]:
    with db.engine.connect() as connection:
        return set(inspect(connection).get_table_names())


def test_the_database_starts_empty(database: Database) -> None:
    assert tables(database) == set()
    assert current_revision(database) is None


def test_migrated_schema_is_the_models_schema(database: Database) -> None:
    upgrade(database)
    differences = schema_differences(database)
    assert differences == [], (
        "the models and the migrations disagree: add a revision with\n"
        "  alembic -c service/store/migrations/alembic.ini revision --autogenerate -m '...'\n"
        f"differences: {differences}"
    )
    assert tables(database) == TABLES | {"alembic_version"}
    indexes = {index["name"] for index in inspect(database.engine).get_indexes("games")}
    assert "ix_games_status_id" in indexes


def test_upgrade_twice_is_a_no_op(database: Database) -> None:
    upgrade(database)
    upgrade(database)
    assert current_revision(database) == head_revision()


def test_downgrade_to_base_and_back(database: Database) -> None:
    upgrade(database)
    with database.schema_lock() as connection:
        command.downgrade(alembic_config(connection), "base")
    assert tables(database) <= {"alembic_version"}
    upgrade(database)
    assert schema_differences(database) == []


def test_revisions_form_one_line() -> None:
    script = ScriptDirectory.from_config(alembic_config())
    assert len(script.get_heads()) == 1
    revisions = list(script.walk_revisions())
    assert revisions[-1].down_revision is None
    assert all(revision.module.__doc__ for revision in revisions), "every revision says what it does"


def test_app_start_migrates_unless_told_not_to(database_url: str) -> None:
    with pytest.raises(SchemaNotMigrated):  # and refuses to start (tests/store/test_schema_not_migrated.py)
        create_app(Settings(database_url=database_url, auto_migrate=False))
    db = Database(Settings(database_url=database_url).sqlalchemy_url)
    try:
        assert tables(db) == set()
    finally:
        db.dispose()
    app = create_app(Settings(database_url=database_url))
    db = app.extensions["coins.db"]
    try:
        assert current_revision(db) == head_revision()
    finally:
        db.dispose()


def _start_app(database_url: str, barrier: multiprocessing.synchronize.Barrier) -> None:
    barrier.wait(timeout=60)  # every process starts migrating at the same moment
    app = create_app(Settings(database_url=database_url))
    app.extensions["coins.db"].dispose()


@pytest.mark.slow
def test_workers_starting_together_migrate_once(database_url: str, database: Database) -> None:
    """Like gunicorn workers booting at once on a new database: all start, the schema is right."""
    context = multiprocessing.get_context("spawn")
    workers = 4
    barrier = context.Barrier(workers)
    processes = [context.Process(target=_start_app, args=(database_url, barrier)) for _ in range(workers)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(TIMEOUT)
    for process in processes:
        if process.is_alive():
            process.kill()
    assert [process.exitcode for process in processes] == [0] * workers
    assert current_revision(database) == head_revision()
    assert schema_differences(database) == []


def run_cli(database_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": database_url}
    return subprocess.run(
        [str(Path(sys.executable).parent / "coins-migrate"), *args],  # the console script pip installs
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def test_command_line_upgrades_and_checks(database_url: str, database: Database) -> None:
    assert run_cli(database_url, "--check").returncode == 1
    result = run_cli(database_url)
    assert result.returncode == 0, result.stderr
    assert f"database at {head_revision()}" in result.stdout
    result = run_cli(database_url, "--check")
    assert result.returncode == 0, result.stderr
    assert schema_differences(database) == []


def test_command_line_prints_sql(database_url: str) -> None:
    result = run_cli(database_url, "--sql")
    assert result.returncode == 0, result.stderr
    assert "CREATE TABLE games" in result.stdout


def test_command_line_prints_the_sql_from_the_databases_revision(database: Database, database_url: str) -> None:
    """A database one revision behind: the SQL of that one revision, not the schema from empty."""
    _migrate(database, "0020")
    result = run_cli(database_url, "--sql")
    assert result.returncode == 0, result.stderr
    assert "CREATE TABLE games" not in result.stdout and "0021" in result.stdout
    _migrate(database, "head")
    assert "CREATE TABLE" not in run_cli(database_url, "--sql").stdout  # up to date: nothing to do


def test_command_line_reports_an_unreachable_database(tmp_path: Path) -> None:
    result = run_cli("postgresql://nobody@127.0.0.1:9/none")  # port 9 (discard): nothing listens
    assert result.returncode == 3
    assert "unavailable" in result.stderr


# WITHOUT ROWID on SQLite (0002, 0004, 0006, 0007, 0011, 0012, 0013, 0014)
CLUSTERED = (
    "seats", "actions", "tricks", "events", "rating_history", "idempotency_keys", "rate_limits", "player_feeds",
    "player_events", "rating_opponents", "role_heartbeats",
)  # fmt: skip


def _create_sql(db: Database) -> dict[str, str]:
    with db.engine.connect() as connection:
        rows = connection.execute(text("SELECT name, sql FROM sqlite_master WHERE type = 'table'"))
        return {name: sql for name, sql in rows}


def _migrate(db: Database, revision: str, *, down: bool = False) -> None:
    with db.schema_lock() as connection:
        (command.downgrade if down else command.upgrade)(alembic_config(connection), revision)


def test_sqlite_keeps_the_small_tables_without_rowid_and_0002_copies_their_rows(database: Database) -> None:
    if not database.is_sqlite:
        pytest.skip("an SQLite storage option (PostgreSQL: revision 0002 does nothing)")
    _migrate(database, "0001")
    assert not any("WITHOUT ROWID" in sql for sql in _create_sql(database).values())
    rows = {
        "games": "INSERT INTO games VALUES ('g1', 1, 'playing', 15, 0, NULL, NULL, NULL, NULL, 0, 1, 1, NULL,"
        " '2026-11-30 12:00:00.000000', '2026-11-30 12:00:00.000000')",
        "seats": "INSERT INTO seats VALUES ('g1', 0, 'Ana', 41, NULL, NULL, '2026-11-30 12:00:00.000000')",
        "actions": "INSERT INTO actions VALUES ('g1', 1, 'deal', 0, 1, 'player', NULL, 'ab', '2026-11-30 12:00:00')",
        "tricks": "INSERT INTO tricks VALUES ('g1', 1, 1, 1, 0, '[[0, \"ace-coins\"]]', 1, 11, '2026-11-30 12:00:00')",
    }
    with database.transaction(write=True) as connection:
        for statement in rows.values():
            connection.execute(text(statement))
    before = {table: _rows(database, table) for table in rows}

    _migrate(database, "0003")
    assert {table: _rows(database, table) for table in rows} == before
    _migrate(database, "head")
    created = _create_sql(database)
    assert all(created[table].rstrip().endswith("WITHOUT ROWID") for table in CLUSTERED)
    assert "WITHOUT ROWID" not in created["games"]
    # a game stored before them: 0004's event_count is 0, 0005's rematch links are null, 0009's
    # rated is false and its winner null (the game is not finished), 0013's void is false, 0014's
    # followed_until null (nobody followed it)
    assert _rows(database, "games")[0][-7:] == (0, None, None, 0, None, 0, None)
    assert schema_differences(database) == []
    with database.transaction(write=True) as connection:  # the foreign keys came along: deletes cascade
        connection.execute(text("DELETE FROM games WHERE id = 'g1'"))
    assert all(_rows(database, table) == [] for table in CLUSTERED)

    _migrate(database, "0001", down=True)
    assert not any("WITHOUT ROWID" in sql for sql in _create_sql(database).values())


def _rows(db: Database, table: str) -> list[tuple[object, ...]]:
    with db.engine.connect() as connection:
        return [tuple(row) for row in connection.execute(text(f"SELECT * FROM {table}"))]


def test_command_line_prints_the_sqlite_copy(tmp_path: Path) -> None:
    result = run_cli(f"sqlite:///{tmp_path / 'printed.db'}", "--sql")
    assert result.returncode == 0, result.stderr
    created: dict[str, list[bool]] = {}  # every CREATE TABLE of a table, its copies (0002, 0007) last
    sql = "\n".join(line for line in result.stdout.splitlines() if not line.startswith("--"))
    for statement in sql.split(";"):
        words = statement.split()
        if words[:2] == ["CREATE", "TABLE"]:
            name = words[2].removeprefix("_alembic_tmp_")
            created.setdefault(name, []).append("WITHOUT ROWID" in statement)
    assert {name for name, clustered in created.items() if clustered[-1]} == set(CLUSTERED)


def _state_column(db: Database) -> tuple[str, object]:
    with db.engine.connect() as connection:
        data_type = connection.scalar(
            text(
                "SELECT data_type FROM information_schema.columns"
                " WHERE table_schema = current_schema() AND table_name = 'games' AND column_name = 'state'"
            )
        )
        return str(data_type), connection.scalar(text("SELECT state FROM games WHERE id = 'g1'"))


def test_postgres_keeps_the_snapshot_as_json_and_0003_converts_it(database: Database) -> None:
    if database.is_sqlite:
        pytest.skip("a PostgreSQL column type (SQLite: revision 0003 does nothing)")
    _migrate(database, "0002")
    state = {"format": 1, "hands": [["ace-coins"], [], []], "name": "Zoë"}
    with database.transaction(write=True) as connection:
        connection.execute(
            text(
                "INSERT INTO games VALUES ('g1', 1, 'playing', 15, false, NULL, NULL, NULL, NULL, 0, 0, 0,"
                " CAST(:state AS jsonb), now(), now())"
            ),
            {"state": json.dumps(state)},
        )
    assert _state_column(database) == ("jsonb", state)
    _migrate(database, "head")
    assert _state_column(database) == ("json", state)
    assert schema_differences(database) == []
    _migrate(database, "0002", down=True)
    assert _state_column(database) == ("jsonb", state)


def test_0013_gives_rated_games_a_clock_marks_names_and_counts_opponents(database: Database) -> None:
    """What 0013 fills in from the data before it: a clock for a rated game stored without one (and a
    deadline, as a person is to act), which seats have played, each person's distinct opponents and
    whether the leaderboard may list them, and the names the rule for names refuses (marked, kept)."""
    _migrate(database, "0012")
    at = "2026-12-01 12:00:00"
    people = {"p1": "Ana", "p2": "Expert bot", "p3": "\u2800\u2800", "p4": "Cy"}
    with database.transaction(write=True) as connection:
        for player_id, name in people.items():
            connection.execute(
                text(
                    "INSERT INTO players (id, name, mu, sigma, rated_games, created_at) VALUES (:id, :name, 25, 8, 1, :at)"
                ),
                {"id": player_id, "name": name, "at": at},
            )
        connection.execute(
            text(
                "INSERT INTO games (id, version, status, target_score, auto_deal, open_seats, trick_count, action_count,"
                " event_count, created_at, updated_at, rated) VALUES ('g1', 5, 'playing', 5, :no, 0, 0, 2, 0, :at, :at, :yes)"
            ),
            {"at": at, "no": False, "yes": True},
        )
        for seat, player_id in enumerate(("p1", "p2", "00000000000000000000000001")):
            connection.execute(
                text(
                    "INSERT INTO seats (game_id, seat, name, player_id, bot) VALUES ('g1', :seat, 'x', :player, :bot)"
                ),
                {"seat": seat, "player": player_id, "bot": "random" if seat == 2 else None},
            )
        connection.execute(
            text(
                "INSERT INTO actions (game_id, seq, kind, seat, hand_number, cause, card, created_at)"
                " VALUES ('g1', 2, 'play', 0, 1, 'player', 'ace-coins', :at)"
            ),
            {"at": at},
        )
        for game_id, players in (("old1", ("p1", "p2", "p3")), ("old2", ("p1", "p4", "00000000000000000000000002"))):
            for player_id in players:
                connection.execute(
                    text(
                        'INSERT INTO rating_history (player_id, game_id, finished_at, seat, place, score, "left",'
                        " mu_before, sigma_before, games_before, mu_after, sigma_after, applied_at)"
                        " VALUES (:player, :game, :at, 0, 1, 0, :no, 25, 8, 0, 25, 8, :at)"
                    ),
                    {"player": player_id, "game": game_id, "at": at, "no": False},
                )
    _migrate(database, "0013")
    with database.engine.connect() as connection:
        clock, deadline = connection.execute(text("SELECT turn_timeout_seconds, turn_deadline FROM games")).one()
        played = connection.execute(text("SELECT seat, played FROM seats ORDER BY seat")).all()
        players = {
            row.id: row
            for row in connection.execute(
                text("SELECT id, name, opponents, listable, legacy_name, listed_until FROM players")
            )
        }
        pairs = connection.execute(text("SELECT count(*) FROM rating_opponents")).scalar_one()
    assert clock == 60 and deadline is not None
    assert [(seat, bool(flag)) for seat, flag in played] == [(0, True), (1, False), (2, False)]
    assert {player_id: players[player_id].opponents for player_id in people} == {"p1": 4, "p2": 2, "p3": 2, "p4": 2}
    assert {player_id for player_id, row in players.items() if row.listable} == {"p1", *BOTS}
    assert {player_id for player_id, row in players.items() if row.legacy_name} == {"p2", "p3"}
    assert players["p2"].name == "Expert bot" and players["p3"].name == "\u2800\u2800"  # kept as they were
    assert pairs == 10


BOTS = {"00000000000000000000000001", "00000000000000000000000002", "00000000000000000000000003"}


def test_0016_adds_the_master_bot_player_with_the_services_id(database: Database) -> None:
    from service.games.ids import BOT_PLAYER_IDS

    _migrate(database, "0015")
    _migrate(database, "0016")
    with database.engine.connect() as connection:
        rows = connection.execute(text("SELECT id, name, bot, listable FROM players WHERE bot IS NOT NULL")).all()
    assert {row.bot: row.id for row in rows} == BOT_PLAYER_IDS
    master = next(row for row in rows if row.bot == "master")
    assert master.name == "Master bot" and bool(master.listable)
    _migrate(database, "0015", down=True)
    with database.engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM players WHERE bot = 'master'")).scalar_one() == 0
