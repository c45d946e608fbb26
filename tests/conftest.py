"""Shared fixtures: an app on a fresh database for each test.

The suite runs on SQLite by default. Set ``TEST_DATABASE_URL`` (for example
``postgresql://postgres@127.0.0.1:5432/test``) to run it on PostgreSQL: each run and each
pytest-xdist worker gets its own schema. Each test's database is at the head revision, as a
migration of an empty one leaves it, without a migration each time (tests/support/head_databases.py);
tests/store's start empty.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from flask import Flask, request_finished
from flask.testing import FlaskClient
from sqlalchemy import create_engine, text

from service import create_app
from service.config import Settings
from tests.support.documented_problems import undocumented
from tests.support.head_databases import HeadDatabases, empty_schema
from tests.support.realtime import Realtime, realtime_role
from tests.support.working_client import NO_PACE, WorkingClient

POSTGRES_URL = os.environ.get("TEST_DATABASE_URL")
# The servers the tests start (every role, as the README serves them) inherit this environment: their
# server moves fall due at once too, unless a test or the caller gives a pace (bench/unread_game.py
# shows the production pace).
for _setting in ("BOT_PACE_MS", "TRICK_PAUSE_MS"):
    os.environ.setdefault(_setting, "0")
# Every app's test client has a worker keeping up with its requests, as in production (see
# tests/support/working_client.py; bare_client there for a request alone).
Flask.test_client_class = WorkingClient


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On PostgreSQL only the tests that reach a database (:func:`_reaching_postgres`); then the
    long-running tests (marked ``slow``) first. pytest-xdist steals work (``--dist worksteal``,
    pyproject.toml): a worker that is done takes half of what another has left, so no long test
    starts last on one worker while the other has nothing to do."""
    _reaching_postgres(config, items)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable: the order otherwise kept


def _reaching_postgres(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On PostgreSQL (``TEST_DATABASE_URL``) the tests that reach the database the fixtures give
    (every database fixture asks for ``postgres_url``) or that are marked ``postgres``: the others run
    alike on any database, and the suite on SQLite runs them (the README's test command, and
    .ci/run before its PostgreSQL pass). ``COINS_PG_ALL=1`` keeps them all."""
    if not POSTGRES_URL or os.environ.get("COINS_PG_ALL") == "1":
        return
    kept = [
        item
        for item in items
        if "postgres_url" in getattr(item, "fixturenames", ()) or item.get_closest_marker("postgres")
    ]
    if len(kept) < len(items):
        left_out = set(items) - set(kept)
        config.hook.pytest_deselected(items=[item for item in items if item in left_out])
        items[:] = kept


def _postgres_schema(schema: str, *, drop: bool = False) -> str:
    """Create (or drop) ``schema``; return the URL whose search_path is that schema."""
    settings = Settings(database_url=POSTGRES_URL or "")
    engine = create_engine(settings.sqlalchemy_url)
    with engine.begin() as connection:
        if drop:
            connection.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        else:
            connection.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{schema}"'))
    engine.dispose()
    separator = "&" if "?" in settings.sqlalchemy_url else "?"
    return f"{settings.sqlalchemy_url}{separator}options={quote(f'-csearch_path={schema}')}"


@pytest.fixture(scope="session")
def postgres_url(worker_id: str, testrun_uid: str) -> Iterator[str | None]:
    """The PostgreSQL URL of this worker's schema, or None when the suite runs on SQLite.

    The schema is this run's and this worker's alone (two runs at once on one server do not
    empty each other's tables), and it is dropped when the run ends."""
    if not POSTGRES_URL:
        yield None
        return
    schema = f"coins_test_{testrun_uid[:8]}_{worker_id}"
    yield _postgres_schema(schema)
    _postgres_schema(schema, drop=True)


@pytest.fixture(scope="session")
def head_databases(postgres_url: str | None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HeadDatabases]:
    """This worker's maker of databases at the head revision (migrated once, then copied or reset)."""
    made = HeadDatabases(postgres_url, tmp_path_factory.mktemp("head"))
    yield made
    made.close()


@pytest.fixture
def database_url(postgres_url: str | None, head_databases: HeadDatabases, tmp_path: Path) -> str:
    """A fresh database for one test, at the head revision: as a migration of an empty one leaves it
    (tests/support/head_databases.py). tests/store's tests, of the migrations, start from empty ones."""
    if postgres_url is None:
        return head_databases.sqlite(tmp_path / "coins.sqlite3")
    return head_databases.postgres()  # this worker's schema


@pytest.fixture
def empty_database_url(postgres_url: str | None, tmp_path: Path) -> str:
    """A fresh, empty database for one test (no tables: an app's start migrates it)."""
    if postgres_url is None:
        return f"sqlite:///{tmp_path / 'coins.sqlite3'}"
    return empty_schema(postgres_url)  # this worker's schema


@pytest.fixture
def settings(database_url: str) -> Settings:
    """Rate limits off: tests create and play many games at once (tests/api/test_limits.py turns them on).
    The bots' pace and the trick pause 0: the worker's pass after a request makes the server's moves
    (tests/worker/test_pace.py sets them)."""
    return Settings(database_url=database_url, rate_limits="off", **NO_PACE)


@pytest.fixture
def app(settings: Settings) -> Iterator[Flask]:
    app = create_app(settings)
    app.config["TESTING"] = True
    yield app
    app.extensions["coins.feed"].close()  # its listener's thread and connection
    app.extensions["coins.db"].dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def realtime(app: Flask, settings: Settings) -> Iterator[Realtime]:
    """The real-time role around ``app``: where streams and long polls that wait are held."""
    with realtime_role(app, settings) as role:
        yield role


@dataclass
class Table:
    """A game created through the API, with every seat's token."""

    client: FlaskClient
    id: str
    tokens: dict[int, str] = field(default_factory=dict)

    def auth(self, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}

    def state(self) -> dict[str, Any]:
        response = self.client.get(f"/v1/games/{self.id}")
        assert response.status_code == 200, response.json
        return response.json  # type: ignore[no-any-return]

    def hand(self, seat: int) -> list[str]:
        response = self.client.get(f"/v1/games/{self.id}/hand", headers=self.auth(seat))
        assert response.status_code == 200, response.json
        return response.json["cards"]  # type: ignore[no-any-return]

    def deal(self, seat: int | None = None) -> Any:
        seat = self.state()["dealer"] if seat is None else seat
        return self.client.post(f"/v1/games/{self.id}/hands", headers=self.auth(seat))

    def play(self, seat: int, card: str, **headers: str) -> Any:
        return self.client.post(
            f"/v1/games/{self.id}/plays", json={"card": card}, headers={**self.auth(seat), **headers}
        )


@pytest.fixture
def new_table(client: FlaskClient) -> Any:
    """Create a full game: ``new_table(target_score=10, seed="x", first_dealer=0, ...)``."""

    def create(**body: Any) -> Table:
        body.setdefault("seats", [{"name": "Ana", "age": 41}, {"name": "Bo", "age": 35}, {"name": "Cy", "age": 29}])
        response = client.post("/v1/games", json=body)
        assert response.status_code == 201, response.json
        table = Table(client, response.json["id"])
        table.tokens = {c["seat"]: c["token"] for c in response.json["credentials"]}
        return table

    return create


@pytest.fixture(autouse=True)
def problems_are_documented() -> Iterator[None]:
    """Every problem a test's requests get is one its operation documents in ``openapi.yaml``
    (contract: every status and code the service answers is in the spec)."""
    found: list[str] = []

    def check(sender: Flask, response: Any, **_: Any) -> None:
        why = undocumented(response)
        if why:
            found.append(why)

    request_finished.connect(check)
    yield
    request_finished.disconnect(check)
    if found:
        pytest.fail("undocumented problems: " + "; ".join(sorted(set(found))), pytrace=False)
