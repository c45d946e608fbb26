"""What the OpenAPI document needs beyond the decorators: links between operations, named enums (closed
in requests, open in responses)."""

from __future__ import annotations

from typing import Any

import marshmallow as ma

from .schemas import RequestSchema, ResponseSchema

__all__ = [
    "CREATED_GAME_LINKS",
    "JOINED_GAME_LINKS",
    "PUSH_SUBSCRIPTION_LINKS",
    "TICKET_LINKS",
    "WEBHOOK_LINKS",
    "KEY_SECURITY",
    "CLOSED_ENUMS",
    "OPTIONAL_KEY_SECURITY",
    "PUBLIC",
    "SEAT_SECURITY",
    "UNLISTED_VALUE",
    "any_of_schemas",
    "items_ref",
    "named_enum_to_ref",
    "read_by_clients",
]

#: The operations that need no credential: an explicit ``security: []`` (the spec declares no global
#: security, so an operation without one would say nothing; Redocly's ``security-defined`` asks for it).
PUBLIC: list[dict[str, list[str]]] = []
#: The operations of a seat: its token, or the key of the player who holds it.
SEAT_SECURITY: list[dict[str, list[str]]] = [{"playerToken": []}, {"playerKey": []}]
#: The operations of a player: their key.
KEY_SECURITY: list[dict[str, list[str]]] = [{"playerKey": []}]
#: No credential, or a player's key: createGame and joinGame (for the seats taken as ``{"player": "me"}``),
#: and the operations whose player-id path parameter may be ``me``.
OPTIONAL_KEY_SECURITY: list[dict[str, list[str]]] = [{}, {"playerKey": []}]


#: Named enums that stay closed in responses too: a card outside the 48 would be another game.
CLOSED_ENUMS = frozenset({"Card"})

#: The second form of an open enum (``anyOf: [the enum, this]``): any other value.
UNLISTED_VALUE: dict[str, Any] = {
    "type": "string",
    "description": "A value not listed: values are added within v1; treat an unknown one as another case, "
    "never as an error.",
}


def named_enum_to_ref(
    _converter: Any, field: ma.fields.Field[Any], ret: dict[str, Any], **_kwargs: Any
) -> dict[str, Any]:
    """apispec attribute function: a field with ``metadata={"enum_schema": name}`` refers to that named enum.

    SDK generators then make one enum type per name (``GameStatus``), not one per field
    (``GameStatus``, ``CreatedGameStatus``, ``ListGamesStatus`` …). In a request the enum is
    closed (``$ref``); in a response it is open, ``anyOf: [$ref, string]``: the named enum lists
    the values this version knows, and a generated client reads any other as a plain string
    instead of failing on it. A nullable one adds ``null`` to the forms.
    """
    name = field.metadata.get("enum_schema")
    if name is None:
        return {}
    ret.pop("type", None)
    ret.pop("enum", None)
    forms: list[dict[str, Any]] = [{"$ref": f"#/components/schemas/{name}"}]
    if name not in CLOSED_ENUMS and read_by_clients(field):
        forms.append(dict(UNLISTED_VALUE))
    if field.allow_none:
        forms.append({"type": "null"})
    return forms[0] if len(forms) == 1 else {"anyOf": forms}


def read_by_clients(field: ma.fields.Field[Any]) -> bool:
    """Whether ``field`` is part of what a client reads (a :class:`.ResponseSchema`: open) rather than
    of what it sends (a :class:`.RequestSchema`: closed)."""
    if isinstance(field.root, ResponseSchema):
        return True
    if isinstance(field.root, RequestSchema):
        return False
    raise TypeError(f"field {field.name!r} of {field.root!r}: declare it on a RequestSchema or a ResponseSchema")


def any_of_schemas(_converter: Any, field: ma.fields.Field[Any], ret: dict[str, Any], **_kwargs: Any) -> dict[str, Any]:
    """apispec attribute function: ``metadata={"any_of_schemas": [names]}`` documents a field as one of
    those named schemas (or null, if it allows none) instead of the schema that loads it."""
    names = field.metadata.get("any_of_schemas")
    if not names:
        return {}
    for key in ("$ref", "anyOf", "allOf", "type"):
        ret.pop(key, None)
    forms: list[dict[str, Any]] = [{"$ref": f"#/components/schemas/{name}"} for name in names]
    if field.allow_none:
        forms.append({"type": "null"})
    return {"anyOf": forms}


def items_ref(_converter: Any, field: ma.fields.Field[Any], ret: dict[str, Any], **_kwargs: Any) -> dict[str, Any]:
    """apispec attribute function: a list with ``metadata={"items_ref": name}`` holds items of that
    named schema (one that no marshmallow schema describes: a union, say); with a list of names,
    items of any of them (``anyOf``, tried in that order)."""
    names = field.metadata.get("items_ref")
    if not names:
        return {}
    ret.pop("items", None)
    if isinstance(names, str):
        return {"items": {"$ref": f"#/components/schemas/{names}"}}
    return {"items": {"anyOf": [{"$ref": f"#/components/schemas/{name}"} for name in names]}}


def _links(game_id: str, seat: str, token: str, operations: dict[str, str]) -> dict[str, Any]:
    """One link per operation: the game id from the response, and the seat and its token where needed."""
    links: dict[str, Any] = {}
    for operation_id, description in operations.items():
        parameters: dict[str, str] = {"game_id": game_id}
        if operation_id == "leaveGame":
            parameters["seat"] = seat
        if operation_id in _SEAT_OPERATIONS:
            # Not a declared parameter (the token is the playerToken security scheme); tools that
            # follow links (Schemathesis) send it as this header.
            parameters["header.Authorization"] = f"Bearer {{{token}}}"
        links[operation_id] = {"operationId": operation_id, "parameters": parameters, "description": description}
    return links


_SEAT_OPERATIONS = {
    "dealHand": "Deal the first hand with this token (when its seat is the dealer).",
    "getHand": "Read this seat's cards.",
    "playCard": "Play a card from this seat's hand.",
    "getHint": "Ask which card a bot would play for this seat.",
    "leaveGame": "Leave this seat (a bot takes it over once the game has started).",
}
_GAME_OPERATIONS = {
    "getGame": "Read the game's public state.",
    "getScores": "Read the game's scores.",
    "listTricks": "List the game's completed tricks.",
    "listActions": "List the game's deals and plays.",
}

CREATED_GAME_LINKS = _links(
    "$response.body#/id",
    "$response.body#/credentials/0/seat",
    "$response.body#/credentials/0/token",
    {
        **_GAME_OPERATIONS,
        "joinGame": "Take one of the game's open seats.",
        **{op: f"{text} Uses the first seat in `credentials`." for op, text in _SEAT_OPERATIONS.items()},
    },
)

JOINED_GAME_LINKS = _links(
    "$response.body#/game/id",
    "$response.body#/seat",
    "$response.body#/token",
    {**_GAME_OPERATIONS, "joinGame": "Take another open seat of the same game.", **_SEAT_OPERATIONS},
)


def _resource_links(parameter: str, operations: dict[str, str]) -> dict[str, Any]:
    """Links from a created resource to the operations on it: the answer's ``id`` is their ``parameter``."""
    return {
        operation_id: {
            "operationId": operation_id,
            "parameters": {parameter: "$response.body#/id"},
            "description": text,
        }
        for operation_id, text in operations.items()
    }


TICKET_LINKS = _resource_links(
    "ticket_id",
    {"getTicket": "Read this ticket (its status; once matched, its game).", "cancelTicket": "Leave the queue."},
)
WEBHOOK_LINKS = _resource_links("webhook_id", {"deleteWebhook": "Delete this webhook."})
PUSH_SUBSCRIPTION_LINKS = _resource_links("subscription_id", {"deletePushSubscription": "Delete this subscription."})
