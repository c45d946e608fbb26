"""The one error handler: every failure becomes a problem with a registered code, never a crash."""

from __future__ import annotations

import inspect

import pytest
from flask import Flask

from service.api.problems import PROBLEMS
from service.api.schemas import ProblemSchema
from service.games import errors
from service.games.errors import AlreadyQueued, ServiceError


def _service_errors() -> list[type[ServiceError]]:
    return [
        value
        for value in vars(errors).values()
        if inspect.isclass(value) and issubclass(value, ServiceError) and value is not ServiceError
    ]


@pytest.mark.parametrize("error", _service_errors(), ids=lambda error: error.__name__)
def test_every_use_case_error_has_a_registered_client_code(error: type[ServiceError]) -> None:
    assert error.code in PROBLEMS and PROBLEMS[error.code][0] < 500


@pytest.mark.parametrize("raised", [ServiceError("a bug"), type("Unregistered", (ServiceError,), {"code": "nope"})()])
def test_a_use_case_error_without_a_client_code_is_an_internal_error(app: Flask, raised: ServiceError) -> None:
    """The base class (or a subclass whose code nobody registered) is our bug: a 500, not a crash."""

    def fail() -> None:
        raise raised

    app.add_url_rule("/v1/fail", "fail", fail)
    response = app.test_client().get("/v1/fail")
    assert response.status_code == 500
    assert response.mimetype == "application/problem+json"
    assert response.json is not None and response.json["code"] == "internal_error"
    assert "a bug" not in response.get_data(as_text=True)  # the detail of a bug stays in the log


@pytest.mark.parametrize(
    "raised, members",
    [
        (AlreadyQueued("waiting", ticket="01ticket"), {"ticket": "01ticket"}),
        (AlreadyQueued("waiting", ticket=None), {}),
    ],
    ids=["named", "gone"],
)
def test_a_use_case_errors_members_are_in_its_problem_and_in_the_schema(
    app: Flask, raised: ServiceError, members: dict[str, str]
) -> None:
    """What a client acts on besides the code (the waiting ticket's id) is a member of the problem,
    named in the spec's Problem schema; a member with nothing to name is left out."""

    def fail() -> None:
        raise raised

    app.add_url_rule("/v1/fail", "fail", fail)
    body = app.test_client().get("/v1/fail").json
    assert body is not None and body["code"] == raised.code
    assert {
        name: body[name] for name in body.keys() - {"type", "title", "status", "detail", "code", "instance"}
    } == members
    assert members.keys() <= ProblemSchema().fields.keys()
