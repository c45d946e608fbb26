"""What service/api/flask_smorest_overrides.py assumes of flask-smorest, apispec and webargs: each
assumption checked by behaviour or by a public signature, on a bare app, so that a library upgrade
that changes one fails here by name (the app's own document is held by tests/contract)."""

from __future__ import annotations

import inspect
from typing import Any

import flask_smorest
import marshmallow as ma
import pytest
from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin as ApispecMarshmallowPlugin
from flask import Flask
from flask.views import MethodView
from webargs.flaskparser import FlaskParser

from service.api.compiled_dumpers import fast_schema
from service.api.flask_smorest_overrides import (
    DEFAULT_ERROR_DESCRIPTION,
    Api,
    Blueprint,
    JsonBodyParser,
    MarshmallowPlugin,
)
from service.api.problems import PROBLEM_MEDIA_TYPE, Problem
from tests.support.working_client import bare_client

WHERE = "see service/api/flask_smorest_overrides.py"


class ThingSchema(ma.Schema):
    name = ma.fields.String(required=True)


def _app(blueprint: flask_smorest.Blueprint, api_class: type[flask_smorest.Api] = flask_smorest.Api) -> Flask:
    app = Flask(__name__)
    app.config.update(API_TITLE="t", API_VERSION="1", OPENAPI_VERSION="3.1.0", ETAG_DISABLED=True)
    api = api_class(app)
    api.register_blueprint(blueprint)
    return app


def _spec(app: Flask) -> dict[str, Any]:
    return app.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec.to_dict()  # type: ignore[no-any-return]


def test_the_public_signatures_the_overrides_take_are_unchanged():
    """Each override takes the arguments the library passes to the method it extends (``response``:
    the two it reads; the others pass through)."""
    signatures = {
        flask_smorest.Api.init_app: ["self", "app", "spec_kwargs"],
        flask_smorest.Blueprint.doc: ["kwargs"],
        flask_smorest.Blueprint.response: ["self", "status_code", "schema"],
        flask_smorest.Blueprint.arguments: ["self", "schema"],
        ApispecMarshmallowPlugin.init_spec: ["self", "spec"],
        FlaskParser.load_json: ["self", "req", "schema"],
    }
    for method, expected in signatures.items():
        parameters = list(inspect.signature(method).parameters)[: len(expected)]
        assert parameters == expected, f"{method.__qualname__} changed: {WHERE}"


def test_the_response_wrapper_dumps_with_the_instance_it_is_given():
    """Blueprint.response relies on flask-smorest's wrapper calling ``schema.dump(result)`` on the
    very schema instance passed to ``response`` (so an instance's own ``dump`` is used)."""
    blueprint = flask_smorest.Blueprint("t", __name__)
    schema = ThingSchema()
    schema.dump = lambda obj, **kwargs: {"dumped_by": "the instance"}  # type: ignore[method-assign]

    @blueprint.route("/thing")
    @blueprint.response(200, schema)
    def thing() -> Any:
        return {"name": "x"}

    body = _app(blueprint).test_client().get("/thing").json
    assert body == {"dumped_by": "the instance"}, (
        f"flask-smorest's response wrapper no longer dumps with the given schema instance's dump(): {WHERE}, "
        "Blueprint.response and service/api/compiled_dumpers.py fast_schema"
    )


def test_a_204_has_no_content_type():
    """flask-smorest answers a view's ``None`` as JSON; a 204 (RFC 9110: no content) is answered
    without a ``Content-Type``, and still documented as a 204 with no content."""
    blueprint = Blueprint("t", __name__)

    @blueprint.route("/thing")  # a GET: the suite's test client runs the worker after other methods
    @blueprint.response(204)
    def nothing() -> None:
        return None

    app = _app(blueprint)
    answer = app.test_client().get("/thing")
    assert answer.status_code == 204 and "Content-Type" not in answer.headers and answer.data == b""
    assert "content" not in _spec(app)["paths"]["/thing"]["get"]["responses"]["204"]


def test_a_compiled_schema_is_documented_under_its_class_name():
    """The spec's component name comes from the schema's class, whatever its instance's dump."""
    blueprint = flask_smorest.Blueprint("t", __name__)

    @blueprint.route("/thing")
    @blueprint.response(200, fast_schema(ThingSchema))
    def thing() -> Any:
        return {"name": "x"}

    assert "Thing" in _spec(_app(blueprint))["components"]["schemas"], f"compiled schemas change the names: {WHERE}"


def test_init_app_uses_the_given_marshmallow_plugin_before_converting_the_error_schema():
    """Api.init_app hands flask-smorest its MarshmallowPlugin (the ``marshmallow_plugin`` spec kwarg),
    whose ``init_spec`` must run before flask-smorest converts ``ERROR_SCHEMA``: the problem's
    ``code`` then refers to the ProblemCode enum (an attribute function of ours), as an open enum."""
    app = _app(Blueprint("t", __name__), Api)
    api = app.extensions["flask-smorest"]["apis"][""]["ext_obj"]
    assert isinstance(api.ma_plugin, MarshmallowPlugin), f"flask-smorest ignored the marshmallow_plugin: {WHERE}"
    code = _spec(app)["components"]["schemas"]["Problem"]["properties"]["code"]
    assert code.get("anyOf", [{}])[0].get("$ref") == "#/components/schemas/ProblemCode", (
        f"flask-smorest converted its error schema before the plugin's init_spec: {WHERE}, MarshmallowPlugin"
    )


@pytest.mark.parametrize(("unknown", "documented"), [(ma.RAISE, False), (ma.EXCLUDE, None), (ma.INCLUDE, True)])
def test_apispec_documents_a_schemas_unknown_option_as_additional_properties(unknown: str, documented: Any) -> None:
    """RequestSchema (``unknown = RAISE``) is documented closed, ``additionalProperties: false``, and
    ResponseSchema (``EXCLUDE``) open, with no ``additionalProperties`` (service/api/schemas.py): apispec
    reads the option so, unless the schema's Meta has a ``description``, which skips it."""

    class Meta:
        pass

    Meta.unknown = unknown  # type: ignore[attr-defined]
    schema = type("OptionSchema", (ma.Schema,), {"Meta": Meta, "name": ma.fields.String()})
    spec = APISpec("t", "1", "3.1.0", plugins=[ApispecMarshmallowPlugin()])
    spec.components.schema("Option", schema=schema)
    assert spec.to_dict()["components"]["schemas"]["Option"].get("additionalProperties") == documented, (
        f"apispec documents unknown={unknown} differently: see service/api/schemas.py, RequestSchema and ResponseSchema"
    )


def test_a_response_registered_lazily_again_replaces_the_first():
    """Api.init_app registers flask-smorest's lazy error responses again under their names: apispec
    keeps the last lazy registration, and enters it in the document once referred to."""
    spec = APISpec("t", "1", "3.1.0")
    spec.components.response("GONE", {"description": "first"}, lazy=True)
    spec.components.response("GONE", {"description": "second"}, lazy=True)
    spec.path("/x", operations={"get": {"responses": {"410": "GONE"}}})
    assert spec.to_dict()["components"]["responses"] == {"GONE": {"description": "second"}}, (
        f"apispec no longer replaces a lazily registered response: {WHERE}, Api.init_app"
    )


def test_errors_are_documented_as_problems_and_a_summary_keeps_the_docstring():
    """On a bare app with this module's Api and Blueprint: the default error and the argument's 422
    (flask-smorest's own references) are problem+json; ``doc(summary=...)`` keeps the docstring."""
    blueprint = Blueprint("t", __name__)

    @blueprint.route("/thing", endpoint="thing")
    class Views(MethodView):
        @blueprint.doc(summary="Make a thing")
        @blueprint.arguments(ThingSchema)
        @blueprint.response(201, ThingSchema)
        def post(self, thing: dict[str, Any]) -> Any:
            """A long line of what the view does, which flask-smorest alone would read as a summary."""
            return thing

    spec = _spec(_app(blueprint, Api))
    operation = spec["paths"]["/thing"]["post"]
    assert (operation["summary"], operation["description"]) == (
        "Make a thing",
        "A long line of what the view does, which flask-smorest alone would read as a summary.",
    ), f"flask-smorest's doc() no longer puts a given description over the docstring's: {WHERE}, Blueprint.doc"
    responses = spec["components"]["responses"]
    problem = {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}}
    assert responses["DEFAULT_ERROR"] == {"description": DEFAULT_ERROR_DESCRIPTION, "content": problem}, WHERE
    name = operation["responses"]["422"]["$ref"].removeprefix("#/components/responses/")
    assert responses[name]["content"] == problem, f"flask-smorest's 422 is not problem+json: {WHERE}"


def test_route_documents_the_problems_named_and_those_of_its_rules():
    """``problems`` names codes, ``route`` documents them, adding ``not_found`` to every operation with
    a path parameter (beside its own 404 code, once even if named), and 413 and 415 to a PUT, on a
    MethodView and on a function."""
    blueprint = Blueprint("t", __name__)

    @blueprint.route("/things/<thing_id>", endpoint="thing")
    class Views(MethodView):
        @blueprint.response(200, ThingSchema)
        @blueprint.problems("game_not_found", "validation_error")
        def get(self, thing_id: str) -> Any:
            return {"name": thing_id}

        @blueprint.response(204)
        @blueprint.problems("not_found")
        def delete(self, thing_id: str) -> None:
            return None

        @blueprint.response(200, ThingSchema)
        def put(self, thing_id: str) -> Any:
            return {"name": thing_id}

    @blueprint.route("/things", endpoint="things")
    @blueprint.response(200, ThingSchema)
    @blueprint.problems("validation_error")
    def things() -> Any:
        return {"name": "all"}

    app = _app(blueprint, Api)
    paths = _spec(app)["paths"]
    read = paths["/things/{thing_id}"]["get"]["responses"]
    assert read["404"]["description"] == "`game_not_found`: No such game; `not_found`: No such resource"
    assert read["404"]["content"][PROBLEM_MEDIA_TYPE]["example"]["code"] == "game_not_found"  # its own first
    assert read["422"]["description"] == "`validation_error`: The request is not valid"
    assert paths["/things/{thing_id}"]["delete"]["responses"]["404"]["description"] == "`not_found`: No such resource"
    assert "404" not in paths["/things"]["get"]["responses"]  # no path parameter
    assert paths["/things"]["get"]["responses"]["400"]["description"] == "`bad_request`: Bad request"  # every one
    for method in ("get", "put", "delete"):  # a body is refused on a POST, PUT or PATCH only
        operation = paths["/things/{thing_id}"][method]
        assert ("413" in operation["responses"], "415" in operation["responses"]) == (method == "put",) * 2, method
    client = bare_client(app)  # the documented views still answer
    assert client.get("/things/a").json == {"name": "a"}
    assert client.delete("/things/a").status_code == 204
    assert client.get("/things").json == {"name": "all"}


@pytest.mark.parametrize(
    ("body", "content_type", "expected"),
    [
        (b'{"name": "x"}', "application/json", {"name": "x"}),
        (b'{"name": "x"}', "application/merge-patch+json", {"name": "x"}),
        (b"", "application/json", {}),
        (b'{"name": "x"}', "text/plain", {}),
        (b'{"n": NaN}', "application/json", "malformed_json"),
        (b'{"n": Infinity}', "application/json", "malformed_json"),
        (b'{"name": "\xff"}', "application/json", "malformed_json"),
    ],
    ids=["json", "json-suffix", "empty", "not-json", "nan", "infinity", "not-utf-8"],
)
def test_webargs_reads_the_json_location_with_load_json(body: bytes, content_type: str, expected: Any):
    """webargs loads the ``json`` location with the parser's public ``load_json`` (JsonBodyParser's)."""
    app = Flask(__name__)
    schema = ma.Schema.from_dict({"name": ma.fields.String(), "n": ma.fields.Float()})()
    with app.test_request_context("/", method="POST", data=body, content_type=content_type):
        parser = JsonBodyParser()
        if isinstance(expected, str):
            with pytest.raises(Problem) as raised:
                parser.parse(schema, location="json")
            assert raised.value.code == expected, WHERE
        else:
            assert parser.parse(schema, location="json") == expected, f"webargs' json location changed: {WHERE}"
