"""openapi.yaml says what docs/compatibility.md promises: requests closed, everything a client reads
open (objects, enums, the feeds' event types), and ``info.version`` the contract's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from service.api import CONTRACT_VERSION
from service.api.openapi import CLOSED_ENUMS

SPEC_FILE = Path(__file__).resolve().parents[2] / "openapi.yaml"
HTTP_METHODS = {"get", "put", "post", "delete", "patch"}
#: The event unions and the unlisted event each feed's items may also be.
FEEDS = {"EventPage": ("FeedEvent", "UnlistedFeedEvent"), "PlayerEventPage": ("PlayerEvent", "UnlistedPlayerEvent")}


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(SPEC_FILE.read_text())
    return document


def _operations(spec: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for path in spec["paths"].values():
        for method, operation in path.items():
            if method in HTTP_METHODS:
                yield operation


def _request_roots(spec: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The schemas of what clients send: bodies and parameters."""
    for operation in _operations(spec):
        for parameter in operation.get("parameters", []):
            if "schema" in parameter:
                yield parameter["schema"]
        for media in operation.get("requestBody", {}).get("content", {}).values():
            yield media["schema"]


def _response_roots(spec: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The schemas of what clients read: every answer, its own or a shared response's."""
    for operation in _operations(spec):
        for response in operation["responses"].values():
            if "$ref" in response:
                response = spec["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
            for media in response.get("content", {}).values():
                yield media["schema"]


def _nodes(spec: dict[str, Any], roots: Iterator[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], Any]]:
    """Every schema node reachable from ``roots`` (each component once), with its parent node."""
    seen: set[str] = set()
    stack: list[tuple[Any, Any]] = [(root, None) for root in roots]
    while stack:
        node, parent = stack.pop()
        if isinstance(node, list):
            stack.extend((item, parent) for item in node)
            continue
        if not isinstance(node, dict):
            continue
        yield node, parent
        ref = node.get("$ref")
        if ref and ref not in seen:
            seen.add(ref)
            stack.append((spec["components"]["schemas"][ref.rsplit("/", 1)[1]], node))
        for key in ("properties", "items", "anyOf", "allOf", "additionalProperties"):
            value = node.get(key)
            children = value.values() if key == "properties" and isinstance(value, dict) else [value]
            stack.extend((child, node) for child in children)


def _component(spec: dict[str, Any], node: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    ref = node.get("$ref")
    if not ref:
        return None
    name = ref.rsplit("/", 1)[1]
    return name, spec["components"]["schemas"][name]


def _is_enum(schema: dict[str, Any]) -> bool:
    return "enum" in schema


def test_info_version_is_the_contracts(spec: dict[str, Any]) -> None:
    assert spec["info"]["version"] == CONTRACT_VERSION == "1.3.0"


def test_request_bodies_are_closed(spec: dict[str, Any]) -> None:
    """An unknown field in a request body is refused (422): every object a client sends says so."""
    objects = [node for node, _ in _nodes(spec, _request_roots(spec)) if node.get("type") == "object"]
    assert len(objects) >= 9
    for node in objects:
        if node.get("properties"):
            assert node.get("additionalProperties") is False, node


def test_nothing_a_client_reads_forbids_additional_properties(spec: dict[str, Any]) -> None:
    """Responses, problems, pages and events gain fields within v1: no schema a client reads is closed."""
    nodes = list(_nodes(spec, _response_roots(spec)))
    assert sum(1 for node, _ in nodes if node.get("type") == "object") >= 60
    for node, _ in nodes:
        assert node.get("additionalProperties") is not False, node


def test_no_schema_is_both_sent_and_read(spec: dict[str, Any]) -> None:
    """A component is a request's (closed) or a response's (open); only named enums are both, closed in
    one and wrapped open in the other."""
    sent = {found[0] for node, _ in _nodes(spec, _request_roots(spec)) if (found := _component(spec, node))}
    read = {found[0] for node, _ in _nodes(spec, _response_roots(spec)) if (found := _component(spec, node))}
    shared = {name for name in sent & read if not _is_enum(spec["components"]["schemas"][name])}
    assert not shared


def _open_forms(parent: Any) -> bool:
    """Whether ``parent`` is an open enum's union: the named enum, any other string (, null)."""
    forms = parent.get("anyOf", []) if isinstance(parent, dict) else []
    return any(form.get("type") == "string" and "enum" not in form and "$ref" not in form for form in forms)


def test_every_enum_a_client_reads_is_open(spec: dict[str, Any]) -> None:
    """A response's enum names its known values and takes any other string: `anyOf: [$ref, {type: string}]`.
    Closed only: the 48 cards (the rules), and one-value enums, which are constants (an event's
    `type`, a record's `format`)."""
    open_enums = set()
    for node, parent in _nodes(spec, _response_roots(spec)):
        values = node.get("enum")
        if values is not None and "$ref" not in (parent or {}):  # an inline enum
            assert len(values) == 1, f"name this enum (metadata enum_schema) to make it open: {node}"
        found = _component(spec, node)
        if found and _is_enum(found[1]) and found[0] not in CLOSED_ENUMS:
            assert _open_forms(parent), f"{found[0]} is closed in a response: {parent}"
            open_enums.add(found[0])
    expected = {"GameStatus", "BotStrength", "ProblemCode", "ActionCause", "ActionKind", "TicketStatus"}
    assert open_enums >= expected | {"FirstDealerChoice", "SeatKind"}


def test_every_enum_a_client_sends_is_closed(spec: dict[str, Any]) -> None:
    """A request takes only the values an enum lists (422 for another): no string form beside it."""
    refs = 0
    for node, parent in _nodes(spec, _request_roots(spec)):
        found = _component(spec, node)
        if found and _is_enum(found[1]):
            refs += 1
            assert not _open_forms(parent), f"{found[0]} is open in a request: {parent}"
    assert refs >= 4  # listGames' and a player's games' status, a hint's strength, a seat's bot


@pytest.mark.parametrize("page", sorted(FEEDS))
def test_a_feeds_items_are_its_listed_events_or_an_unlisted_one(spec: dict[str, Any], page: str) -> None:
    """Each listed event keeps its fixed `type`; a feed's item may also be of a type added since,
    which a generated client reads as the unlisted event (tried last) and skips. The items list the
    union's events themselves, then the unlisted one (a union inside a union is what openapi-generator
    mistypes: docs/compatibility.md, "Unions of responses")."""
    union, unlisted = FEEDS[page]
    schemas = spec["components"]["schemas"]
    items = schemas[page]["properties"]["items"]["items"]
    mapping = schemas[union]["discriminator"]["mapping"]
    assert schemas[union]["discriminator"]["propertyName"] == "type"
    for event_type, ref in mapping.items():
        assert schemas[ref.rsplit("/", 1)[1]]["properties"]["type"]["enum"] == [event_type]
    listed = [form["$ref"] for form in schemas[union]["oneOf"]]
    assert sorted(listed) == sorted(mapping.values())
    assert items == {"anyOf": [{"$ref": ref} for ref in listed] + [{"$ref": f"#/components/schemas/{unlisted}"}]}
    assert schemas[unlisted]["properties"]["type"] == {
        "type": "string",
        "description": "A type not listed in this version of the spec: skip the event.",
        "example": "new_type",
    }
    assert {"id", "type"} <= set(schemas[unlisted]["required"])
    assert "skip" in schemas[union]["description"]


@pytest.mark.parametrize(("path", "unlisted"), [("/v1/games/{game_id}/events", "UnlistedFeedEvent"),
                                                ("/v1/players/me/events", "UnlistedPlayerEvent")])  # fmt: skip
def test_the_feeds_say_that_unlisted_types_are_skipped(spec: dict[str, Any], path: str, unlisted: str) -> None:
    operation = spec["paths"][path]["get"]
    stream = operation["responses"]["200"]["content"]["text/event-stream"]["schema"]["description"]
    assert f"skip an event whose `type` you do not know (`{unlisted}`" in " ".join(stream.split())
    assert "Types of events not listed here may appear (they are added within v1): skip them." in " ".join(
        operation["description"].split()
    )


def test_an_unlisted_game_event_still_carries_the_games_state(spec: dict[str, Any]) -> None:
    """The contract: every game event carries at least `type`, `version` and `game`."""
    unlisted = spec["components"]["schemas"]["UnlistedFeedEvent"]
    assert set(unlisted["required"]) == {"id", "type", "version", "game"}
    assert unlisted["properties"]["game"]["$ref"] == "#/components/schemas/Game"
