"""Every schema of the api is either what a client sends (a RequestSchema: closed) or what it reads (a
ResponseSchema: open), as service/api/schemas.py says; the spec's side of it is in
tests/contract/test_compatibility.py."""

from __future__ import annotations

import importlib
import pkgutil

import marshmallow as ma
import pytest

import service.api
from service.api.schemas import RequestSchema, ResponseSchema


def _schemas() -> list[type[ma.Schema]]:
    for module in pkgutil.walk_packages(service.api.__path__, "service.api."):
        importlib.import_module(module.name)
    found: list[type[ma.Schema]] = []
    stack = [ma.Schema]
    while stack:
        for subclass in stack.pop().__subclasses__():
            stack.append(subclass)
            if subclass not in (RequestSchema, ResponseSchema) and (
                subclass.__module__.startswith("service.") or issubclass(subclass, (RequestSchema, ResponseSchema))
            ):
                found.append(subclass)
    return found


SCHEMAS = _schemas()
REQUESTS = [schema for schema in SCHEMAS if issubclass(schema, RequestSchema)]


def test_every_schema_is_a_request_or_a_response() -> None:
    assert len(SCHEMAS) > 70
    for schema in SCHEMAS:
        kinds = [kind for kind in (RequestSchema, ResponseSchema) if issubclass(schema, kind)]
        assert len(kinds) == 1, f"{schema.__module__}.{schema.__name__}: derive it from RequestSchema or ResponseSchema"


@pytest.mark.parametrize("schema", REQUESTS, ids=lambda schema: schema.__name__)
def test_a_request_refuses_a_field_it_does_not_declare(schema: type[RequestSchema]) -> None:
    with pytest.raises(ma.ValidationError) as refused:
        schema().load({"surely_not_a_field": 1})
    assert refused.value.messages_dict["surely_not_a_field"] == ["Unknown field."]


def test_the_responses_are_the_rest() -> None:
    responses = {schema.__name__ for schema in SCHEMAS if issubclass(schema, ResponseSchema)}
    assert {"GameSchema", "ProblemSchema", "EventPageSchema", "UnlistedFeedEventSchema", "TicketSchema"} <= responses
    assert len(REQUESTS) >= 14
