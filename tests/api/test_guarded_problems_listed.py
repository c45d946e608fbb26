"""The problems the guards answer before any operation are listed by every operation they reach: a
chunked body the server cannot read (400 bad_request) on every operation, whatever its method; a
body that is not JSON (415) or too large (413) on every POST, PUT and PATCH, a body or not; and a
path that matches no route because a parameter is no value of its type is listed where it can be."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from flask.testing import FlaskClient
from gunicorn.http.errors import InvalidChunkSize  # imported: what the guards catch as gunicorn serves

from service.games.ids import new_game_id
from tests.support.documented_problems import _operations

BODY_METHODS = ("POST", "PUT", "PATCH")


def _body_operations() -> list[tuple[str, str]]:
    return sorted((path, method) for path, method in _operations() if method in BODY_METHODS)


@pytest.mark.parametrize(("path", "method"), _body_operations())
def test_every_operation_that_can_be_sent_a_body_lists_its_refusals(path: str, method: str) -> None:
    documented = _operations()[(path, method)]
    assert "unsupported_media_type" in documented.get("415", set()), f"{method} {path}"
    assert "payload_too_large" in documented.get("413", set()), f"{method} {path}"


@pytest.mark.parametrize("path", ["/v1/games/{id}/rematch", "/v1/games/{id}/hands", "/v1/players/me/key"])
def test_a_body_that_is_not_json_is_415_where_no_body_is_taken(client: FlaskClient, new_table: Any, path: str) -> None:
    table = new_table()
    headers = {"Authorization": f"Bearer {table.tokens[0]}"}
    response = client.post(path.format(id=table.id), data="hello", content_type="text/plain", headers=headers)
    assert response.status_code == 415 and response.json["code"] == "unsupported_media_type"  # and listed (conftest)


@pytest.mark.parametrize("seat", ["abc", "-1"])
def test_a_seat_that_is_no_number_is_not_found_and_listed(client: FlaskClient, new_table: Any, seat: str) -> None:
    table = new_table()
    response = client.post(
        f"/v1/games/{table.id}/players/{seat}/leave", json={}, headers={"Authorization": f"Bearer {table.tokens[0]}"}
    )
    assert response.status_code == 404 and response.json["code"] == "not_found"
    assert "not_found" in _operations()[("/v1/games/{game_id}/players/{seat}/leave", "POST")]["404"]


def _parameterized_operations() -> list[tuple[str, str]]:
    return sorted((path, method) for path, method in _operations() if "{" in path)


@pytest.mark.parametrize(("path", "method"), _parameterized_operations())
def test_every_operation_with_a_path_parameter_lists_not_found(path: str, method: str) -> None:
    """A parameter holding a / (sent as %2F, which the server decodes before routing) makes a path
    that matches no route: 404 not_found, whatever the operation's own 404 is."""
    assert "not_found" in _operations()[(path, method)].get("404", set()), f"{method} {path}"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/v1/games/..%2f..%2fetc"),
        ("GET", "/v1/games/a%2fb/events"),
        ("GET", "/v1/players/a%2fb"),
        ("GET", "/v1/players/a%2fb/games"),
        ("DELETE", "/v1/queue/a%2fb"),
        ("GET", "/v1/players/%2F/games"),  # a slash alone: not merged into /v1/players/games
        ("POST", "/v1//games"),  # an empty segment: a 404, not a redirect (HTML) to /v1/games
        ("GET", "/v1//games"),
    ],
)
def test_a_path_parameter_holding_a_slash_is_not_found(client: FlaskClient, method: str, path: str) -> None:
    response = client.open(path, method=method)
    assert response.status_code == 404 and response.json["code"] == "not_found"


def test_every_operation_lists_bad_request() -> None:
    """The guards read any chunked body, whatever the method, before any view: one they cannot read is 400."""
    unlisted = sorted(
        f"{method} {path}"
        for (path, method), documented in _operations().items()
        if "bad_request" not in documented.get("400", set())
    )
    assert not unlisted


class UnreadableChunks(io.RawIOBase):
    """A chunked body as gunicorn reads it when a chunk's size is no number."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        raise InvalidChunkSize("zz")


def _patch_and_delete_operations() -> list[tuple[str, str]]:
    found = sorted((path, method) for path, method in _operations() if method in ("PATCH", "DELETE"))
    assert len(found) >= 7  # updateMyPlayer, deleteMyPlayer, declineChallenge, declineRematch, cancelTicket...
    return [*found, ("/v1/games/{game_id}", "GET"), ("/healthz", "GET")]


@pytest.mark.parametrize(("path", "method"), _patch_and_delete_operations())
def test_a_chunked_body_that_cannot_be_read_is_bad_request_and_listed(
    client: FlaskClient, path: str, method: str
) -> None:
    """Whatever the method (a DELETE takes no body, but one sent chunked is read like any): 400
    bad_request, which the operation lists (checked by conftest's problems_are_documented too)."""
    url = re.sub(r"\{[a-z_]+\}", "x", path.replace("{game_id}", new_game_id()))
    response = client.open(
        url,
        method=method,
        headers={"Authorization": "Bearer nobody"},
        environ_overrides={"wsgi.input_terminated": True, "wsgi.input": UnreadableChunks()},
    )
    assert response.status_code == 400 and response.json["code"] == "bad_request", response.json
    assert "bad_request" in _operations()[(path, method)]["400"]
