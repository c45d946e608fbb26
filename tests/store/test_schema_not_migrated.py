"""With AUTO_MIGRATE=false nothing but coins-migrate migrates the database: a process that starts on
one behind the code's revision, or empty, refuses to start with one line saying what to run; one
that finds it so after an outage at the start answers 503 saying the same, and its worker exits."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from alembic import command
from alembic.script import ScriptDirectory

import service
from service import SchemaNotMigrated, create_app
from service.config import Settings
from service.store import Database, DatabaseUnavailable
from service.store.migrate import alembic_config, head_revision, upgrade
from service.store.migrate import main as migrate_main
from service.worker import worker_for

ROOT = Path(__file__).resolve().parents[2]


def _previous_revision() -> str:
    previous = ScriptDirectory.from_config(alembic_config()).get_revision(head_revision()).down_revision
    assert isinstance(previous, str)
    return previous


def _migrate(database_url: str, revision: str) -> None:
    db = Database(Settings(database_url=database_url).sqlalchemy_url)
    try:
        with db.schema_lock() as connection:
            command.upgrade(alembic_config(connection), revision)
    finally:
        db.dispose()


def _settings(database_url: str) -> Settings:
    return Settings(database_url=database_url, auto_migrate=False, rate_limits="off")


def test_an_empty_database_is_refused_with_one_line(database_url: str, caplog: pytest.LogCaptureFixture) -> None:
    with pytest.raises(SchemaNotMigrated) as refused:
        create_app(_settings(database_url))
    expected = f"the database is empty (no revision); this code needs revision {head_revision()}: run coins-migrate"
    assert str(refused.value) == expected
    assert [(r.levelno, r.getMessage()) for r in caplog.records if "coins-migrate" in r.getMessage()] == [
        (logging.ERROR, expected)
    ]


def test_a_database_behind_is_refused(database_url: str) -> None:
    previous = _previous_revision()
    _migrate(database_url, previous)
    with pytest.raises(SchemaNotMigrated, match=f"at revision {previous}; this code needs revision {head_revision()}"):
        create_app(_settings(database_url))


def test_a_database_at_head_or_at_a_newer_release_starts(database_url: str) -> None:
    _migrate(database_url, "head")
    app = create_app(_settings(database_url))
    assert app.test_client().get("/readyz").status_code == 200
    db: Database = app.extensions["coins.db"]
    with db.transaction(write=True) as connection:  # a newer release migrated it: its older processes still start
        connection.exec_driver_sql("UPDATE alembic_version SET version_num = '9999'")
    app.extensions["coins.feed"].close()
    db.dispose()
    app = create_app(_settings(database_url))
    app.extensions["coins.feed"].close()
    app.extensions["coins.db"].dispose()


def test_a_database_at_a_newer_release_starts_with_auto_migrate_on_too(
    database_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """AUTO_MIGRATE's default: a process of the release before, restarted once the new one migrated
    (a rolling upgrade, a container restarted), stopped with Alembic's "Can't locate revision"."""
    _migrate(database_url, "head")
    db = Database(Settings(database_url=database_url).sqlalchemy_url)
    try:
        with db.transaction(write=True) as connection:
            connection.exec_driver_sql("UPDATE alembic_version SET version_num = '9999'")
        upgrade(db)  # nothing to do
        monkeypatch.setenv("DATABASE_URL", database_url)
        assert migrate_main([]) == 0
        assert capsys.readouterr().out.strip() == (
            f"database at 9999, a newer release's than this code's {head_revision()}: left as it is"
        )
    finally:
        db.dispose()
    app = create_app(Settings(database_url=database_url, rate_limits="off"))  # AUTO_MIGRATE on
    assert app.test_client().get("/readyz").status_code == 200
    app.extensions["coins.feed"].close()
    app.extensions["coins.db"].dispose()


def test_found_behind_after_an_outage_at_the_start(database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    real = service.require_migrated
    calls: list[str] = []
    down = [True]

    def down_at_first(db: Database) -> None:
        calls.append("check")
        if down:
            raise DatabaseUnavailable("down while the process starts")
        real(db)

    monkeypatch.setattr(service, "require_migrated", down_at_first)
    app = create_app(_settings(database_url))  # starts: whether it is migrated is not known yet
    down.clear()
    client = app.test_client()
    assert client.get("/healthz").status_code == 200 and calls == ["check"]
    for path in ("/readyz", "/v1/games"):
        response = client.get(path)
        assert response.status_code == 503 and response.json["code"] == "database_unavailable"
        assert response.json["detail"].endswith(f"this code needs revision {head_revision()}: run coins-migrate")
    down.append(True)
    worker = worker_for(_settings(database_url))
    down.clear()
    with pytest.raises(SchemaNotMigrated):
        worker.run(threading.Event())  # its first pass finds it so: the process exits (service/worker/main.py)
    upgrade(app.extensions["coins.db"])  # coins-migrate
    assert client.get("/v1/games").status_code == 200
    checks = len(calls)
    assert client.get("/v1/games").status_code == 200 and len(calls) == checks  # not checked again
    app.extensions["coins.feed"].close()
    app.extensions["coins.db"].dispose()


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [["coins-worker"], ["coins-realtime"], ["gunicorn", "-c", "gunicorn.conf.py", "wsgi:app"]],
    ids=["worker", "realtime", "web"],
)
def test_each_role_exits_saying_what_to_run(command: list[str], database_url: str) -> None:
    environment = {
        **os.environ,
        "DATABASE_URL": database_url,
        "AUTO_MIGRATE": "false",
        "BIND": "127.0.0.1:0",
        "WEB_CONCURRENCY": "1",
        "LOG_LEVEL": "INFO",
    }
    executable = [str(Path(sys.executable).with_name(command[0])), *command[1:]]
    done = subprocess.run(executable, env=environment, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0, done.stderr[-2000:]
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    said = [line for line in lines if "run coins-migrate" in line["message"]]
    assert len(said) == 1 and said[0]["level"] == "ERROR", done.stderr[-2000:]
    assert "this code needs revision" in said[0]["message"]
    assert "Traceback" not in done.stderr + done.stdout
