"""Security headers on every kind of response: errors, 304s, streams, the docs, the metrics."""

from __future__ import annotations

import pytest
from flask import Flask, Response

from service.api.hooks.security_headers import DEFAULT_CSP, add_security_headers
from tests.support.working_client import follow, keep_up

EXPECTED = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": DEFAULT_CSP,
}


def _check(response) -> None:
    for name, value in EXPECTED.items():
        assert response.headers.get(name) == value, (name, response.status_code)


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/healthz", 200),
        ("/metrics", 200),
        ("/docs", 200),
        ("/openapi.json", 200),
        ("/v1/games", 200),
        ("/v1/games/nosuchgame", 404),
        ("/no/such/route", 404),
    ],
)
def test_every_response_carries_them(client, path, status):
    response = client.get(path)
    assert response.status_code == status
    _check(response)


def test_errors_304s_and_streams_carry_them(client, new_table):
    table = new_table()
    _check(client.post("/v1/games", json={"target_score": 0}))  # 422
    _check(client.put("/v1/games"))  # 405
    first = client.get(f"/v1/games/{table.id}")
    unchanged = client.get(f"/v1/games/{table.id}", headers={"If-None-Match": first.headers["ETag"]})
    assert unchanged.status_code == 304
    _check(unchanged)
    finished = new_table(seats=[{"bot": "random"}, {"bot": "random"}, {"bot": "random"}], target_score=1)
    follow(client.application, [finished.id])  # a game of bots alone moves while followed: to its end
    for _ in range(50):
        if finished.state()["status"] == "finished":
            break
        keep_up(client.application)
    stream = client.get(f"/v1/games/{finished.id}/events", headers={"Accept": "text/event-stream"})
    assert stream.mimetype == "text/event-stream"
    _check(stream)
    stream.close()


def test_a_response_with_its_own_policy_keeps_it():
    app = Flask(__name__)
    app.after_request(add_security_headers)

    @app.get("/")
    def page() -> Response:
        return Response("<p>hi</p>", headers={"Content-Security-Policy": "default-src 'self'"})

    response = app.test_client().get("/")
    assert response.headers["Content-Security-Policy"] == "default-src 'self'"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
