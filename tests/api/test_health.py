"""Health probes: /healthz never touches the database; /readyz answers 503 when the database is away."""

from __future__ import annotations

import pytest

from service import create_app
from service.api.problems import PROBLEMS
from service.config import Settings
from service.store import Database, DatabaseUnavailable
from tests.support.working_client import bare_client

UNREACHABLE_POSTGRES = "postgresql://postgres@127.0.0.1:1/nowhere"  # port 1: refused at once


@pytest.fixture
def client(app):
    """A client with no worker behind it: liveness is the request's alone."""
    return bare_client(app)


def test_healthz_answers_ok(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json == {"status": "ok"}


def test_healthz_does_not_touch_the_database(app, client, monkeypatch):
    def no_database(*_args, **_kwargs):
        raise AssertionError("liveness must not touch the database")

    db: Database = app.extensions["coins.db"]
    monkeypatch.setattr(db, "transaction", no_database)
    monkeypatch.setattr(db.engine, "connect", no_database)
    assert client.get("/healthz").status_code == 200


def test_readyz_answers_ok_when_the_database_answers(client):
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json == {  # none seen: still 200
        "status": "ok",
        "roles": {"worker": "down", "realtime": "down"},
        "listeners": {"worker": "unknown", "realtime": "unknown"},
    }


def test_readyz_answers_503_when_the_database_is_down(app, client, monkeypatch):
    def down() -> None:
        raise DatabaseUnavailable("connection refused")

    monkeypatch.setattr(app.extensions["coins.db"], "ping", down)
    _assert_unavailable(client.get("/readyz"))


def test_readyz_against_an_unreachable_database():
    app = create_app(Settings(database_url=UNREACHABLE_POSTGRES, auto_migrate=False))
    try:
        client = app.test_client()
        assert client.get("/healthz").status_code == 200
        _assert_unavailable(client.get("/readyz"))
    finally:
        app.extensions["coins.db"].dispose()


def _assert_unavailable(response) -> None:
    assert response.status_code == 503
    assert response.mimetype == "application/problem+json"
    assert response.json["code"] == "database_unavailable"
    assert response.json["status"] == 503
    assert int(response.headers["Retry-After"]) > 0


def test_probes_are_documented_under_their_own_tag(client):
    spec = client.get("/openapi.json").json
    assert spec["paths"]["/healthz"]["get"]["operationId"] == "getLiveness"
    readiness = spec["paths"]["/readyz"]["get"]
    assert readiness["operationId"] == "getReadiness"
    assert readiness["tags"] == ["health"]
    assert "database_unavailable" in readiness["responses"]["503"]["description"]
    assert "Retry-After" in readiness["responses"]["503"]["headers"]
    assert "health" in {tag["name"] for tag in spec["tags"]}
    assert "/metrics" not in spec["paths"]


def test_every_documented_problem_code_is_known(client):
    spec = client.get("/openapi.json").json
    for path in ("/healthz", "/readyz"):
        for response in spec["paths"][path]["get"]["responses"].values():
            example = response.get("content", {}).get("application/problem+json", {}).get("example")
            if example:
                assert example["code"] in PROBLEMS
