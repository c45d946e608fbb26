"""A request body the spec admits is one the server takes, and one it refuses the spec does not
admit (issue 30: joinGame's body): each body is checked against the served spec and sent."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tests.support.players import new_player

JOIN_BODIES: list[tuple[dict[str, Any], bool]] = [
    ({"name": "Cy"}, True),
    ({"name": "Cy", "age": 30, "seat": 2}, True),
    ({"name": "Cy", "age": None, "seat": None}, True),
    ({"player": "me"}, True),
    ({"player": "me", "seat": 1}, True),
    ({}, False),
    ({"seat": 1}, False),
    ({"age": 30}, False),
    ({"player": "me", "name": "Cy"}, False),
    ({"player": "me", "age": 30}, False),
    ({"player": "you"}, False),
    ({"name": "Cy", "colour": "red"}, False),
]


def validator(client: FlaskClient, component: str) -> Draft202012Validator:
    spec = client.get("/openapi.json").json
    registry = Registry().with_resource("urn:spec", Resource(contents=spec, specification=DRAFT202012))
    schema = {"$ref": f"urn:spec#/components/schemas/{component}"}
    return Draft202012Validator(schema, registry=registry)


@pytest.mark.parametrize(("body", "admitted"), JOIN_BODIES)
def test_join_bodies_the_spec_admits_are_those_the_server_takes(
    client: FlaskClient, body: dict[str, Any], admitted: bool
) -> None:
    assert validator(client, "JoinGame").is_valid(body) is admitted
    player = new_player(client)
    game = client.post("/v1/games", json={"seats": [{"name": "Ana"}, None, None]}).json
    answer = client.post(f"/v1/games/{game['id']}/players", json=body, headers=player.auth)
    assert (answer.status_code == 201) is admitted, answer.json
    if not admitted:
        assert answer.status_code == 422 and answer.json["code"] == "validation_error"
