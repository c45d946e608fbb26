"""openapi.yaml is a valid OpenAPI document that generators can work with."""

from __future__ import annotations

import itertools
import re
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


def _exclusive(one: dict[str, Any], other: dict[str, Any], key: str) -> bool:
    """Whether no value of ``key`` is valid in both forms: one's enum holds no value the other's
    pattern (or enum) takes."""
    for a, b in ((one, other), (other, one)):
        listed, rule = a["properties"][key].get("enum"), b["properties"][key]
        if listed is not None:
            if "enum" in rule:
                return not set(listed) & set(rule["enum"])
            if "pattern" in rule:
                return not any(re.search(rule["pattern"], str(value)) for value in listed)
    return False


def test_no_construct_generators_trip_over(spec: dict[str, Any]) -> None:
    """A oneOf is only a union of events, told apart by a discriminator on `type` that maps each
    form's one `type` value to it (docs/compatibility.md, "Unions of responses"): its forms exclude
    each other, generators make a tagged union of it. An anyOf is one of: named schemas (or null); an
    open enum, a named enum and any other string (or null), which generators read as "the enum, else
    a string"; or a union of objects. In a request such a union's forms are closed with their own
    required keys (or the same keys, one of whose values tell them apart: PlayerSeat's `me` and
    ChallengeSeat's player id), so no body matches two; in a response (a feed's items) each form is an event with
    its own one-value `type`, but for the unlisted event, a plain string and the last form, which
    generators that try the forms in order reach only for a type not listed. No union holds another
    (openapi-generator's python mistypes a union in a union)."""
    schemas = spec["components"]["schemas"]
    for node in _schemas_in(spec):
        if "oneOf" in node:
            refs = [item["$ref"].rsplit("/", 1)[1] for item in node["oneOf"]]
            types = [value for name in refs for value in _event_forms(schemas, name)]
            assert None not in types and len(types) == len(set(types)) == len(refs), node
            mapping = {kind: f"#/components/schemas/{name}" for kind, name in zip(types, refs, strict=True)}
            assert node["discriminator"] == {"propertyName": "type", "mapping": mapping}, node
            continue
        if "anyOf" not in node:
            continue
        refs = [item["$ref"].rsplit("/", 1)[1] for item in node["anyOf"] if "$ref" in item]
        rest = [item for item in node["anyOf"] if "$ref" not in item]
        strings = [item for item in rest if item.get("type") == "string"]
        assert refs and [item for item in rest if item not in strings] in ([], [{"type": "null"}]), node
        assert not any("anyOf" in schemas[name] or "oneOf" in schemas[name] for name in refs), node
        if strings:  # an open enum
            assert refs == [refs[0]] and "enum" in schemas[refs[0]] and len(strings) == 1, node
            assert node["anyOf"][0] == {"$ref": f"#/components/schemas/{refs[0]}"}, node
        if len(refs) > 1:
            forms = [schemas[name] for name in refs]
            if all(form.get("additionalProperties") is False for form in forms):  # a request's
                assert all(form.get("required") for form in forms)
                for one, other in itertools.combinations(forms, 2):
                    if set(one["required"]) == set(other["required"]):  # then a key's values tell them apart
                        assert any(_exclusive(one, other, key) for key in one["required"]), (one, other)
                continue
            types = [value for name in refs for value in _event_forms(schemas, name)]
            listed = [value for value in types if value is not None]
            assert listed and len(listed) == len(set(listed)), node
            assert types in (listed, [*listed, None]), node  # the unlisted event, if any (a plain string `type`), last


def test_each_feed_item_is_its_union_or_the_unlisted_event(spec: dict[str, Any]) -> None:
    """A page's items are the forms of the feed's union (the oneOf a stream's `data:` holds, its
    `$defs.event`), then the unlisted event: the same events, flat."""
    schemas = spec["components"]["schemas"]
    for page, union, unlisted in (
        ("EventPage", "FeedEvent", "UnlistedFeedEvent"),
        ("PlayerEventPage", "PlayerEvent", "UnlistedPlayerEvent"),
    ):
        items = schemas[page]["properties"]["items"]["items"]["anyOf"]
        assert items == [*schemas[union]["oneOf"], {"$ref": f"#/components/schemas/{unlisted}"}]


def _event_forms(schemas: dict[str, Any], name: str) -> list[str | None]:
    """The `type` values the component ``name`` accepts: its one value, or None for any string."""
    schema = schemas[name]
    kind = schema["properties"]["type"]
    assert kind["type"] == "string" and "type" in schema["required"], name
    if "enum" not in kind:
        return [None]
    assert len(kind["enum"]) == 1, name
    return [kind["enum"][0]]


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


def test_only_null_is_said_so_every_generator_takes_it(spec: dict[str, Any]) -> None:
    """`{type: "null"}` alone crashes openapi-generator's python generator (NewBot.age, issue 30), and
    `enum: [null]` fails its example builder (ERROR lines, .ci/generators.sh): a property that may only
    be null is a nullable type whose `const` is null."""
    only_null = []
    for node in _schemas_in(spec):
        for name, prop in node.get("properties", {}).items():
            assert prop.get("type") != "null", (name, prop)
            assert prop.get("enum") != [None], (name, prop)
            if "const" in prop:
                assert prop["const"] is None and isinstance(prop.get("type"), list) and "null" in prop["type"], prop
                only_null.append(name)
    assert sorted(only_null) == ["age", "bot"]  # NewBot's age, NewPerson's bot


def test_every_operation_says_what_credential_it_takes(spec: dict[str, Any]) -> None:
    """No global security: each operation states its own (Redocly's `security-defined`), `security: []`
    when it needs no credential, and every scheme it names is declared."""
    assert "security" not in spec
    schemes = set(spec["components"]["securitySchemes"])
    public = set()
    for name, operation in operations(spec).items():
        assert "security" in operation, name
        if operation["security"] == []:
            public.add(name)
        assert {scheme for requirement in operation["security"] for scheme in requirement} <= schemes, name
    assert {"getGame", "listGames", "getScores", "listTricks", "createPlayer", "getLiveness"} <= public
    assert not public & {"getHand", "playCard", "dealHand", "getMyPlayer", "enterQueue"}


def test_the_spec_says_how_to_resolve_its_links(spec: dict[str, Any]) -> None:
    """`Location` and `Link` are root-relative: the description says to resolve them against the request's URL."""
    description = spec["info"]["description"]
    assert "RFC 8288 §3.2" in description and "new URL(link, response.url)" in description
    assert "RateLimit-Policy" in description
