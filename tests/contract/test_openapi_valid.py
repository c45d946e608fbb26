"""openapi.yaml is a valid OpenAPI document that generators can work with."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from openapi_spec_validator import validate

from service.api.problems import PROBLEMS

SPEC_FILE = Path(__file__).resolve().parents[2] / "openapi.yaml"
OPERATIONS = {
    "createGame",
    "joinGame",
    "getGame",
    "dealHand",
    "getHand",
    "playCard",
    "getScores",
    "listTricks",
    "listGames",
}
HTTP_METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(SPEC_FILE.read_text())
    return document


def operations(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        operation["operationId"]: operation
        for path in spec["paths"].values()
        for method, operation in path.items()
        if method in HTTP_METHODS
    }


def test_the_spec_is_valid_openapi(spec: dict[str, Any]) -> None:
    validate(spec)  # raises with the first violation


def test_every_contract_operation_is_there(spec: dict[str, Any]) -> None:
    assert set(operations(spec)) >= OPERATIONS


def test_every_operation_is_described(spec: dict[str, Any]) -> None:
    for operation_id, operation in operations(spec).items():
        assert operation.get("summary") and operation.get("description"), operation_id


def test_cards_are_one_named_enum_of_48(spec: dict[str, Any]) -> None:
    card = spec["components"]["schemas"]["Card"]
    assert card["type"] == "string"
    assert len(set(card["enum"])) == 48


def test_every_problem_code_is_in_the_spec(spec: dict[str, Any]) -> None:
    assert set(spec["components"]["schemas"]["ProblemCode"]["enum"]) == set(PROBLEMS)


def _schemas_in(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            found.extend(_schemas_in(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_schemas_in(value))
    return found


def test_no_construct_generators_trip_over(spec: dict[str, Any]) -> None:
    """No oneOf; an anyOf is named schemas (or null), each an object with its own required keys."""
    schemas = spec["components"]["schemas"]
    for node in _schemas_in(spec):
        assert "oneOf" not in node, node
        if "anyOf" in node:
            refs = [item["$ref"].rsplit("/", 1)[1] for item in node["anyOf"] if "$ref" in item]
            rest = [item for item in node["anyOf"] if "$ref" not in item]
            assert refs and rest in ([], [{"type": "null"}]), node
            if len(refs) > 1:  # a union of objects: no two forms accept the same body
                forms = [schemas[name] for name in refs]
                assert all(form.get("additionalProperties") is False and form.get("required") for form in forms)
                assert len({tuple(form["required"]) for form in forms}) == len(forms)


LINKED = {"getGame", "joinGame", "dealHand", "getHand", "playCard", "getScores", "listTricks"}
WITH_TOKEN = {"dealHand", "getHand", "playCard", "getHint", "leaveGame"}


@pytest.mark.parametrize("source", ["createGame", "joinGame"])
def test_created_seats_link_to_the_operations_that_use_them(spec: dict[str, Any], source: str) -> None:
    links = operations(spec)[source]["responses"]["201"]["links"]
    assert {link["operationId"] for link in links.values()} >= LINKED
    for link in links.values():
        target = operations(spec)[link["operationId"]]
        assert "game_id" in link["parameters"]
        if link["operationId"] in WITH_TOKEN:
            assert target["security"] == [{"playerToken": []}, {"playerKey": []}]  # a seat's token, or its player's key
            assert link["parameters"]["header.Authorization"].startswith("Bearer {$response.body#/")


def test_nullable_enums_are_named(spec: dict[str, Any]) -> None:
    """An inline `type: [string, null]` enum makes generators invent types (`SeatBotType1`, …)."""
    for node in _schemas_in(spec):
        if "enum" in node and isinstance(node.get("type"), list):
            raise AssertionError(f"name this enum and refer to it with anyOf [$ref, null]: {node}")
