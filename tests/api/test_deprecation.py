"""Deprecation (service/api/deprecation.py): a deprecated operation, or one that takes or answers a
deprecated field, says so in the spec and in every answer (``Deprecation``, RFC 9745; ``Sunset``,
RFC 8594). Nothing of the service is deprecated: the blueprint here is registered by these tests only."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from flask.views import MethodView
from marshmallow import fields

from service.api.common import Blueprint
from service.api.deprecation import Deprecation, deprecated_field
from service.api.problems import Problem
from service.api.schemas import RequestSchema, ResponseSchema

OPERATION = Deprecation(since=date(2027, 1, 15), sunset=date(2027, 7, 15))
FIELD = Deprecation(since=date(2027, 3, 1), sunset=date(2027, 9, 30))


class ThingSchema(ResponseSchema):
    name = fields.String(required=True)
    old_name = fields.String(metadata=deprecated_field(FIELD, {"description": "The name, as it was."}))


class ThingQuerySchema(RequestSchema):
    fail = fields.Boolean(load_default=False)


def _blueprint() -> Blueprint:
    blp = Blueprint("deprecation_test", __name__, url_prefix="/test-deprecation")

    @blp.route("/old")
    class OldViews(MethodView):
        @blp.deprecated(OPERATION)
        @blp.doc(operationId="getOldThing", summary="An old way to read a thing")
        @blp.arguments(ThingQuerySchema, location="query", as_kwargs=True)
        @blp.response(200, ThingSchema)
        @blp.problems("not_found", "validation_error")
        def get(self, fail: bool) -> Any:
            """Answers a thing, or (`fail`) a problem."""
            if fail:
                raise Problem("not_found", "no such thing")
            return {"name": "a"}

    @blp.route("/thing")
    class ThingViews(MethodView):
        @blp.doc(operationId="getThing", summary="Read a thing, whose old_name is deprecated")
        @blp.response(200, ThingSchema)
        def get(self) -> Any:
            """Answers a thing."""
            return {"name": "a", "old_name": "b"}

    @blp.route("/current")
    class CurrentViews(MethodView):
        @blp.doc(operationId="getCurrentThing", summary="Read a thing the current way")
        @blp.arguments(ThingQuerySchema, location="query", as_kwargs=True)
        @blp.response(200, ThingQuerySchema)
        def get(self, fail: bool) -> Any:
            """Answers the query."""
            return {"fail": fail}

    return blp


@pytest.fixture
def deprecating_app(app: Flask) -> Flask:
    app.extensions["flask-smorest"]["apis"][""]["ext_obj"].register_blueprint(_blueprint())
    return app


def _headers(notice: Deprecation) -> dict[str, str]:
    since = int(datetime(notice.since.year, notice.since.month, notice.since.day, tzinfo=UTC).timestamp())
    return {"Deprecation": f"@{since}", "Sunset": notice.sunset.strftime("%a, %d %b %Y 00:00:00 GMT")}


def test_the_notice_formats_are_the_rfcs() -> None:
    assert OPERATION.headers == {"Deprecation": "@1799971200", "Sunset": "Thu, 15 Jul 2027 00:00:00 GMT"}
    assert _headers(OPERATION) == OPERATION.headers


@pytest.mark.parametrize(
    ("since", "sunset", "allowed"),
    [
        (date(2027, 1, 15), date(2027, 7, 15), True),
        (date(2027, 1, 15), date(2027, 7, 14), False),
        (date(2027, 8, 31), date(2028, 2, 29), True),  # six months after the 31st: the month's last day
        (date(2027, 8, 31), date(2028, 2, 28), False),
        (date(2027, 1, 1), date(2026, 1, 1), False),
    ],
)
def test_a_sunset_comes_six_months_after_the_deprecation_at_least(since: date, sunset: date, allowed: bool) -> None:
    if allowed:
        assert Deprecation(since=since, sunset=sunset).sunset == sunset
    else:
        with pytest.raises(ValueError, match="6 months"):
            Deprecation(since=since, sunset=sunset)


@pytest.mark.parametrize(
    ("method", "query", "status"),
    [("GET", "", 200), ("GET", "?fail=true", 404), ("GET", "?fail=maybe", 422), ("HEAD", "", 200)],
)
def test_every_answer_of_a_deprecated_operation_carries_the_headers(
    deprecating_app: Flask, method: str, query: str, status: int
) -> None:
    response = deprecating_app.test_client().open(f"/test-deprecation/old{query}", method=method)
    assert response.status_code == status
    assert {name: response.headers.get(name) for name in ("Deprecation", "Sunset")} == _headers(OPERATION)


def test_an_operation_that_answers_a_deprecated_field_carries_the_fields_headers(deprecating_app: Flask) -> None:
    response = deprecating_app.test_client().get("/test-deprecation/thing")
    assert response.json == {"name": "a", "old_name": "b"}
    assert {name: response.headers.get(name) for name in ("Deprecation", "Sunset")} == _headers(FIELD)


def test_other_operations_carry_none(deprecating_app: Flask) -> None:
    client = deprecating_app.test_client()
    for path in ("/test-deprecation/current", "/v1/games", "/healthz", "/test-deprecation/nothing-here"):
        response = client.get(path)
        assert "Deprecation" not in response.headers and "Sunset" not in response.headers, path


def test_the_spec_marks_the_operation_and_the_field(deprecating_app: Flask) -> None:
    spec = deprecating_app.test_client().get("/openapi.json").json
    old = spec["paths"]["/test-deprecation/old"]["get"]
    assert old["deprecated"] is True
    for status in ("200", "404", "422"):
        assert old["responses"][status]["headers"] == {
            "Deprecation": {"$ref": "#/components/headers/Deprecation"},
            "Sunset": {"$ref": "#/components/headers/Sunset"},
        }
    assert {"Deprecation", "Sunset"} <= set(spec["components"]["headers"])
    assert "deprecated" not in spec["paths"]["/test-deprecation/thing"]["get"]
    old_name = spec["components"]["schemas"]["Thing"]["properties"]["old_name"]
    assert old_name["deprecated"] is True
    assert (
        old_name["description"]
        == "The name, as it was. Deprecated since 2027-03-01: a `/v2` may drop it from 2027-09-30."
    )


def test_the_served_spec_deprecates_nothing(client: FlaskClient) -> None:
    """The service itself deprecates nothing yet: no operation, no field, and no header for them."""
    spec = client.get("/openapi.json").json
    assert "Deprecation" not in spec["components"]["headers"] and "Sunset" not in spec["components"]["headers"]
    assert '"deprecated"' not in client.get("/openapi.json").get_data(as_text=True)
