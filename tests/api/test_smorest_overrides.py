"""What service/api/smorest_overrides.py (and service/api/__init__.py's Api) assume of flask-smorest
and webargs: each test names the assumption, so a library upgrade that breaks one says where to look."""

from __future__ import annotations

import inspect
from typing import Any

import flask_smorest
import marshmallow as ma
import pytest
from flask import Flask
from flask.views import MethodView
from webargs.flaskparser import FlaskParser

from service import jsonio
from service.api import smorest_overrides
from service.api.fast_dump import fast_schema

WHERE = "see service/api/smorest_overrides.py"


class ThingSchema(ma.Schema):
    name = ma.fields.String()


def _app(blueprint: flask_smorest.Blueprint) -> Flask:
    app = Flask(__name__)
    app.config.update(API_TITLE="t", API_VERSION="1", OPENAPI_VERSION="3.1.0", ETAG_DISABLED=True)
    api = flask_smorest.Api(app)
    api.register_blueprint(blueprint)
    return app


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
        "Blueprint.response and service/api/fast_dump.py fast_schema"
    )


def test_a_compiled_schema_is_documented_under_its_class_name():
    """The spec's component name comes from the schema's class, whatever its instance's dump."""
    blueprint = flask_smorest.Blueprint("t", __name__)

    @blueprint.route("/thing")
    @blueprint.response(200, fast_schema(ThingSchema))
    def thing() -> Any:
        return {"name": "x"}

    app = _app(blueprint)
    spec = app.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec.to_dict()
    assert "Thing" in spec["components"]["schemas"], f"compiled schemas change the component names: {WHERE}"


def test_arguments_are_passed_after_the_positional_ones_and_documented_in_apidoc():
    """Blueprint.arguments' plain-loader path calls the view as webargs does: ``func(*args, loaded)``,
    and copies the ``_apidoc`` of flask-smorest's wrapper."""
    blueprint = flask_smorest.Blueprint("t", __name__)
    seen: list[Any] = []

    class Views(MethodView):
        @blueprint.arguments(ThingSchema)
        def post(self, *args: Any) -> Any:
            seen.append(args)
            return "ok"

    blueprint.add_url_rule("/thing", view_func=Views.as_view("thing"))
    _app(blueprint).test_client().post("/thing", json={"name": "x"})
    assert seen == [({"name": "x"},)], f"webargs no longer passes the arguments after the positional ones: {WHERE}"
    assert "arguments" in Views.post._apidoc, f"flask-smorest's arguments no longer keeps its doc in _apidoc: {WHERE}"  # type: ignore[attr-defined]


def test_the_arguments_parser_is_the_class_attribute_and_reads_json_through_raw_load_json(monkeypatch):
    """JsonBodyParser overrides webargs' ``FlaskParser._raw_load_json(req)``; flask-smorest uses the
    Blueprint's ``ARGUMENTS_PARSER``."""
    assert list(inspect.signature(FlaskParser._raw_load_json).parameters) == ["self", "req"], WHERE
    assert "ARGUMENTS_PARSER" in inspect.getsource(flask_smorest.arguments.ArgumentsMixin.arguments), WHERE
    calls: list[Any] = []
    real_loads = jsonio.loads
    monkeypatch.setattr(jsonio, "loads", lambda data: calls.append(data) or real_loads(data))
    app = Flask(__name__)
    with app.test_request_context("/", method="POST", json={"name": "x"}):
        parsed = smorest_overrides.JsonBodyParser().parse(ThingSchema(), location="json")
    assert parsed == {"name": "x"} and calls, f"webargs no longer reads JSON through _raw_load_json: {WHERE}"


@pytest.mark.parametrize("decorator", ["doc", "alt_response"])
def test_documenting_decorators_only_call_through_at_run_time(decorator):
    """``doc`` and ``problems`` (through ``alt_response``) keep a decorator's ``_apidoc`` and drop its
    wrapper: that is right only while the wrapper does nothing but call the view."""
    blueprint = flask_smorest.Blueprint("t", __name__)
    decorate = blueprint.doc(summary="s") if decorator == "doc" else blueprint.alt_response(404)
    wrapper = decorate(lambda: None)
    assert hasattr(wrapper, "_apidoc"), f"flask-smorest's {decorator} no longer documents in _apidoc: {WHERE}"
    assert set(wrapper.__code__.co_names) == {"current_app", "ensure_sync"}, (
        f"flask-smorest's {decorator} wrapper now does more than call the view: {WHERE}, _documented"
    )


def test_store_endpoint_docs_has_the_signature_and_docs_layout_the_override_reads():
    """Blueprint._store_endpoint_docs overrides flask-smorest's and reads ``self._docs[endpoint][method]``
    with its ``manual_doc`` and ``docstring``."""
    parameters = list(inspect.signature(flask_smorest.Blueprint._store_endpoint_docs).parameters)
    assert parameters == ["self", "endpoint", "obj", "parameters", "tags", "options"], WHERE
    blueprint = flask_smorest.Blueprint("t", __name__)

    @blueprint.route("/thing", endpoint="thing")
    class Views(MethodView):
        @blueprint.doc(summary="s")
        def get(self) -> Any:
            """Described."""

    doc = blueprint._docs["thing"]["get"]
    assert {"manual_doc", "docstring"} <= set(doc), f"flask-smorest's endpoint docs changed layout: {WHERE}"


def test_api_register_responses_is_called_by_init_app(monkeypatch):
    """service/api/__init__.py's Api overrides flask-smorest's ``Api._register_responses``."""
    called: list[bool] = []
    monkeypatch.setattr(flask_smorest.Api, "_register_responses", lambda self: called.append(True))
    _app(flask_smorest.Blueprint("t", __name__))
    assert called, "flask-smorest's Api.init_app no longer calls _register_responses: see service/api/__init__.py Api"
