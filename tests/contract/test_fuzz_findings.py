"""What Schemathesis found, pinned down: request bodies take JSON types exactly as the spec declares them."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse


def json_of(response: TestResponse) -> dict[str, Any]:
    body = response.get_json()
    assert isinstance(body, dict), response.data
    return body


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"target_score": 14.9}, "target_score"),  # was read as 14
        ({"target_score": "15"}, "target_score"),  # a string is not an integer
        ({"first_dealer": 2.5e-42}, "first_dealer"),  # was read as seat 0
        ({"first_dealer": True}, "first_dealer"),
        ({"auto_deal": 1}, "auto_deal"),  # was read as true
        ({"auto_deal": "yes"}, "auto_deal"),
        ({"seats": [{"name": "Ana", "age": 30.9}, None, None]}, "seats"),
    ],
)
def test_create_game_refuses_values_of_the_wrong_json_type(
    client: FlaskClient, body: dict[str, Any], field: str
) -> None:
    response = client.post("/v1/games", json=body)
    assert response.status_code == 422, response.json
    assert json_of(response)["code"] == "validation_error"
    assert field in json_of(response)["errors"]


def test_integral_floats_are_integers_as_json_schema_says(client: FlaskClient) -> None:
    seats = [{"name": "Ana", "age": 41.0}, {"name": "Bo"}, {"name": "Cy"}]
    response = client.post("/v1/games", json={"target_score": 12.0, "first_dealer": 1.0, "seats": seats})
    assert response.status_code == 201, response.json
    assert json_of(response)["target_score"] == 12
    assert json_of(response)["first_dealer"] == 1


def test_join_refuses_a_fractional_seat(client: FlaskClient) -> None:
    game = json_of(client.post("/v1/games", json={}))
    response = client.post(f"/v1/games/{game['id']}/players", json={"name": "Cy", "seat": 0.5})
    assert response.status_code == 422, response.json


def test_create_game_without_a_body_uses_every_default(client: FlaskClient) -> None:
    """The spec marks the body optional (every field has a default), as the service behaves."""
    response = client.post("/v1/games")
    assert response.status_code == 201, response.json
    assert json_of(response)["target_score"] == 15
    assert json_of(response)["status"] == "waiting_for_players"
