"""A worker that starts while the database is down still boots, and migrates once it answers."""

from __future__ import annotations

from pathlib import Path

import pytest

import service
from service import create_app
from service.config import Settings
from service.store import DatabaseUnavailable

UNREACHABLE = "postgresql://nobody@127.0.0.1:9/none"  # port 9 (discard): nothing listens


def test_a_worker_boots_while_the_database_is_down() -> None:
    app = create_app(Settings(database_url=UNREACHABLE))  # must not raise: gunicorn would stop
    client = app.test_client()
    assert client.get("/healthz").status_code == 200
    for path in ("/readyz", "/v1/games"):
        response = client.get(path)
        assert response.status_code == 503 and response.json["code"] == "database_unavailable"
    app.extensions["coins.db"].dispose()


def test_the_postponed_upgrade_runs_when_the_database_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_upgrade = service.upgrade
    calls: list[str] = []

    def down_at_first(db: object) -> None:
        calls.append("upgrade")
        if len(calls) == 1:
            raise DatabaseUnavailable("down while the worker boots")
        real_upgrade(db)  # type: ignore[arg-type]

    monkeypatch.setattr(service, "upgrade", down_at_first)
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'coins.sqlite3'}"))
    client = app.test_client()
    assert client.get("/healthz").status_code == 200 and calls == ["upgrade"]  # no database needed
    assert client.post("/v1/games", json={}).status_code == 201  # migrated first, then served
    assert client.post("/v1/games", json={}).status_code == 201
    assert calls == ["upgrade", "upgrade"]  # and not again once done
    app.extensions["coins.db"].dispose()
