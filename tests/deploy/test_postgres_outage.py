"""A PostgreSQL outage: while the server is down requests get 503 database_unavailable, then the service recovers.

This test stops the real PostgreSQL server named by TEST_DATABASE_URL, which breaks every other
test using it at that moment, so it runs only when asked (COINS_OUTAGE_TEST=1) and alone:
.ci/run gives it a serial step of its own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from flask.testing import FlaskClient

from service.api.problems import PROBLEM_MEDIA_TYPE

from .conftest import running_server

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.outage,
    pytest.mark.skipif(
        not (os.environ.get("TEST_DATABASE_URL") and os.environ.get("COINS_OUTAGE_TEST") == "1"),
        reason="stops PostgreSQL: set TEST_DATABASE_URL and COINS_OUTAGE_TEST=1, and run it alone",
    ),
]

RECOVERY_SECONDS = 60
REQUEST_SECONDS = 10  # a request during the outage must fail fast, not hang
SEATS = [{"name": "Ana", "age": 41}, {"name": "Bo", "age": 35}, {"name": "Cy", "age": 29}]


def cluster() -> list[str]:
    """``[version, name]`` of the local cluster serving TEST_DATABASE_URL's port (pg_lsclusters)."""
    port = urlsplit(os.environ["TEST_DATABASE_URL"]).port or 5432
    if shutil.which("pg_lsclusters") is None:
        pytest.fail("pg_lsclusters not found: the outage test needs a local Debian-style PostgreSQL")
    listing = subprocess.run(["pg_lsclusters", "--no-header"], capture_output=True, text=True, check=True, timeout=30)
    for line in listing.stdout.splitlines():
        version, name, cluster_port, *_ = line.split()
        if int(cluster_port) == port:
            return [version, name]
    pytest.fail(f"no local cluster listens on port {port}")


def pg_ctlcluster(action: str, *options: str) -> None:
    command = ["pg_ctlcluster", "--skip-systemctl-redirect", *cluster(), action, *options]
    subprocess.run(command, check=True, timeout=120, capture_output=True)


def assert_unavailable(response: object) -> None:
    assert response.status_code == 503, response.get_data(as_text=True)  # type: ignore[attr-defined]
    assert response.mimetype == PROBLEM_MEDIA_TYPE  # type: ignore[attr-defined]
    assert response.json["code"] == "database_unavailable"  # type: ignore[attr-defined]
    assert int(response.headers["Retry-After"]) > 0  # type: ignore[attr-defined]


def timed(call: object) -> object:
    started = time.monotonic()
    response = call()  # type: ignore[operator]
    assert time.monotonic() - started < REQUEST_SECONDS, "a request hung while the database was down"
    return response


def test_requests_get_503_while_postgres_is_down_and_succeed_after(client: FlaskClient) -> None:
    created = client.post("/v1/games", json={"seats": SEATS, "seed": "outage"})
    assert created.status_code == 201, created.json
    game = f"/v1/games/{created.json['id']}"
    token = created.json["credentials"][0]["token"]  # the oldest player, seat 0, deals first
    assert client.get(game).status_code == 200  # the pool now holds open connections

    pg_ctlcluster("stop", "-m", "fast")  # terminates every connection, like a crash or a failover
    try:
        assert_unavailable(timed(lambda: client.get(game)))
        assert_unavailable(timed(lambda: client.get("/v1/games")))
        assert_unavailable(timed(lambda: client.post("/v1/games", json={"seats": SEATS})))
        assert_unavailable(timed(lambda: client.post(f"{game}/hands", headers={"Authorization": f"Bearer {token}"})))
        assert_unavailable(timed(lambda: client.get("/readyz")))
        assert client.get("/healthz").status_code == 200  # alive: no restart for a database outage
    finally:
        pg_ctlcluster("start")

    deadline = time.monotonic() + RECOVERY_SECONDS
    while True:  # bounded: the server is up again, the pool reconnects by itself
        response = client.get(game)
        if response.status_code == 200 or time.monotonic() > deadline:
            break
        assert_unavailable(response)
        time.sleep(0.5)
    assert response.status_code == 200, response.json
    dealt = client.post(f"{game}/hands", headers={"Authorization": f"Bearer {token}"})
    assert dealt.status_code == 201, dealt.json
    assert client.get("/readyz").status_code == 200


def test_gunicorn_workers_answer_503_over_http_and_recover(database_url: str, tmp_path: Path) -> None:
    """The same through the container's command: every worker process has its own pool."""
    with running_server(tmp_path, database_url=database_url, workers=2) as server:
        status, _, game = server.request("POST", "/v1/games", {"seats": SEATS})
        assert status == 201, game
        path = f"/v1/games/{game['id']}"
        for _ in range(4):  # fill the pools of both workers
            assert server.request("GET", path)[0] == 200

        pg_ctlcluster("stop", "-m", "fast")
        try:
            for _ in range(4):  # whichever worker answers
                started = time.monotonic()
                status, headers, problem = server.request("GET", path)
                assert time.monotonic() - started < REQUEST_SECONDS
                assert (status, problem["code"]) == (503, "database_unavailable"), problem
                assert headers["Content-Type"] == PROBLEM_MEDIA_TYPE and int(headers["Retry-After"]) > 0
            assert server.request("GET", "/healthz")[0] == 200
        finally:
            pg_ctlcluster("start")

        deadline = time.monotonic() + RECOVERY_SECONDS
        answers = []
        while time.monotonic() < deadline and answers[-4:] != [200] * 4:  # bounded: a few answers in a row
            answers.append(server.request("GET", path)[0])
            assert answers[-1] in (200, 503)
            time.sleep(0.2)
        assert answers[-4:] == [200] * 4, answers
        assert server.process.poll() is None  # no worker crash took the server down
