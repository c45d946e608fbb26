"""CORS: off without CORS_ORIGINS; with it, preflights and simple requests for the listed origins only."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from flask.testing import FlaskClient

from service import create_app

ORIGIN = "https://play.example"


@pytest.fixture
def cors_client(settings) -> Iterator[FlaskClient]:
    app = create_app(replace(settings, cors_origins=(ORIGIN, "https://other.example")))
    yield app.test_client()
    app.extensions["coins.db"].dispose()


def _header_set(value: str | None) -> set[str]:
    return {part.strip().lower() for part in (value or "").split(",") if part.strip()}


def test_preflight_of_a_play_is_allowed(cors_client):
    response = cors_client.options(
        "/v1/games/some-game/plays",
        headers={
            "Origin": ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type, if-match",
        },
    )
    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == ORIGIN
    assert "POST" in response.headers["Access-Control-Allow-Methods"]
    assert {"authorization", "content-type", "if-match"} <= _header_set(
        response.headers["Access-Control-Allow-Headers"]
    )
    assert int(response.headers["Access-Control-Max-Age"]) > 0
    assert "Access-Control-Allow-Credentials" not in response.headers


def test_simple_request_exposes_the_api_headers(cors_client):
    created = cors_client.post("/v1/games", json={}, headers={"Origin": ORIGIN})
    assert created.status_code == 201
    assert created.headers["Access-Control-Allow-Origin"] == ORIGIN
    exposed = _header_set(created.headers["Access-Control-Expose-Headers"])
    assert {"etag", "location", "link", "x-request-id"} <= exposed
    assert "Origin" in created.headers.get("Vary", "")


def test_errors_carry_cors_headers_too(cors_client):
    response = cors_client.get("/v1/games/nosuchgame", headers={"Origin": ORIGIN})
    assert response.status_code == 404
    assert response.headers["Access-Control-Allow-Origin"] == ORIGIN


def test_other_origins_get_no_cors_headers(cors_client):
    response = cors_client.get("/v1/games", headers={"Origin": "https://evil.example"})
    assert response.status_code == 200
    assert "Access-Control-Allow-Origin" not in response.headers


def test_cors_is_off_without_origins(client):
    response = client.get("/v1/games", headers={"Origin": ORIGIN})
    assert "Access-Control-Allow-Origin" not in response.headers
    preflight = client.options("/v1/games", headers={"Origin": ORIGIN, "Access-Control-Request-Method": "POST"})
    assert "Access-Control-Allow-Origin" not in preflight.headers


def test_preflight_allows_every_header_the_api_reads(cors_client):
    requested = "idempotency-key, last-event-id, authorization"
    response = cors_client.options(
        "/v1/games/some-game/events",
        headers={"Origin": ORIGIN, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": requested},
    )
    assert response.status_code == 200
    assert _header_set(requested) <= _header_set(response.headers["Access-Control-Allow-Headers"])


def test_a_replayed_answer_says_so_to_the_browser(cors_client):
    headers = {"Origin": ORIGIN, "Idempotency-Key": "cors-replay"}
    cors_client.post("/v1/games", json={}, headers=headers)
    replayed = cors_client.post("/v1/games", json={}, headers=headers)
    assert replayed.headers["Idempotent-Replayed"] == "true"
    assert "idempotent-replayed" in _header_set(replayed.headers["Access-Control-Expose-Headers"])


@pytest.mark.parametrize("origin", [ORIGIN, None, "https://elsewhere.example"])
def test_vary_origin_with_a_single_allowed_origin(settings, origin):
    app = create_app(replace(settings, cors_origins=(ORIGIN,)))
    try:
        response = app.test_client().get("/v1/games", headers={"Origin": origin} if origin else {})
    finally:
        app.extensions["coins.db"].dispose()
    assert response.status_code == 200
    assert "origin" in _header_set(response.headers.get("Vary"))
    allowed = response.headers.get("Access-Control-Allow-Origin")
    assert allowed is None if origin == "https://elsewhere.example" else allowed == ORIGIN  # the answers differ


def test_a_cross_origin_player_client_can_queue_cancel_and_follow_its_feed(cors_client):
    """Quick play from another origin: POST and DELETE a ticket, read the player feed with a key."""
    for method, path, headers in (
        ("POST", "/v1/queue", "authorization, content-type, idempotency-key"),
        ("DELETE", "/v1/queue/some-ticket", "authorization"),
        ("GET", "/v1/players/me/events", "authorization, last-event-id"),
    ):
        preflight = cors_client.options(
            path,
            headers={
                "Origin": ORIGIN,
                "Access-Control-Request-Method": method,
                "Access-Control-Request-Headers": headers,
            },
        )
        assert preflight.status_code == 200, (method, path)
        assert preflight.headers["Access-Control-Allow-Origin"] == ORIGIN
        assert method.lower() in _header_set(preflight.headers["Access-Control-Allow-Methods"])
        assert _header_set(headers) <= _header_set(preflight.headers["Access-Control-Allow-Headers"])
    created = cors_client.post("/v1/players", json={"name": "Ana"}, headers={"Origin": ORIGIN})
    assert created.status_code == 201
    exposed = _header_set(created.headers["Access-Control-Expose-Headers"])
    assert {"location", "etag", "retry-after", "idempotent-replayed", "link", "www-authenticate"} <= exposed
    cancelled = cors_client.delete("/v1/queue/nosuchticket", headers={"Origin": ORIGIN})
    assert cancelled.headers["Access-Control-Allow-Origin"] == ORIGIN


def test_a_preflight_allows_every_method_the_api_takes(cors_client):
    """A browser on an allowed origin may call every operation: the preflight lists each method of
    every route under ``/v1/`` (``PATCH /v1/players/me`` changes who may challenge a player)."""
    app = cors_client.application
    methods = {
        method for rule in app.url_map.iter_rules() if rule.rule.startswith("/v1/") for method in rule.methods or ()
    }
    assert "PATCH" in methods
    for method in sorted(methods - {"OPTIONS", "HEAD"}):
        response = cors_client.options(
            "/v1/players/me", headers={"Origin": ORIGIN, "Access-Control-Request-Method": method}
        )
        assert response.status_code == 200
        assert method.lower() in _header_set(response.headers.get("Access-Control-Allow-Methods")), method
