"""What service/api/flask_smorest_overrides.py assumes of flask-smorest (and the compiled dumpers of
marshmallow): each overridden or mirrored method is pinned by a hash of its installed source, and
each assumption checked by behaviour, so that a library upgrade that changes one fails by name."""

from __future__ import annotations

import hashlib
import inspect
from typing import Any

import flask_smorest
import marshmallow as ma
import pytest
from flask import Flask
from flask.views import MethodView

from service.api.compiled_dumpers import fast_schema

WHERE = "see service/api/flask_smorest_overrides.py"

# (class, method) -> the first 16 hex digits of the SHA-256 of the installed version's source.
# A change means the library changed code that an override builds on (flask-smorest) or that the
# compiled dumpers reproduce (marshmallow): read the new source, adapt the override, update the hash.
PINNED: dict[tuple[type, str], str] = {
    (flask_smorest.Blueprint, "response"): "ae08ddc829d44d0f",
    (flask_smorest.Blueprint, "_store_endpoint_docs"): "48af2e784ebf1c8b",
    (flask_smorest.Api, "_register_responses"): "42ac780261644c27",
    # what service/api/compiled_dumpers.py reproduces of marshmallow's dump
    (ma.Schema, "dump"): "c3ac5263c061b29e",
    (ma.Schema, "_serialize"): "a7f7cb3e7de3bc41",
    (ma.Schema, "get_attribute"): "677cb9479a1ab5a3",
    (ma.fields.Field, "serialize"): "0578e860c0a0f521",
    (ma.fields.Field, "get_value"): "e2998aa6ce9c6030",
    (ma.fields.String, "_serialize"): "cee633dbe0c522e4",
    (ma.fields.Number, "_serialize"): "0cfd99f5e7a34035",
    (ma.fields.Number, "_format_num"): "e1aa9c763c46f20e",
    (ma.fields.DateTime, "_serialize"): "efc4a09af1684e45",
    (ma.fields.Nested, "_serialize"): "3757037695d7797c",
    (ma.fields.List, "_serialize"): "504c1181504820c9",
}


def _digest(owner: type, name: str) -> str:
    return hashlib.sha256(inspect.getsource(getattr(owner, name)).encode()).hexdigest()[:16]


@pytest.mark.parametrize(("owner", "name"), list(PINNED), ids=[f"{o.__name__}.{n}" for o, n in PINNED])
def test_the_overridden_library_code_is_the_version_the_overrides_were_written_for(owner: type, name: str):
    assert _digest(owner, name) == PINNED[owner, name], (
        f"{owner.__module__}.{owner.__name__}.{name} changed in the installed version: {WHERE} "
        "(or service/api/compiled_dumpers.py) and update its hash in this table"
    )


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
        "Blueprint.response and service/api/compiled_dumpers.py fast_schema"
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
    """Api overrides flask-smorest's ``Api._register_responses``, which ``init_app`` must call."""
    called: list[bool] = []
    monkeypatch.setattr(flask_smorest.Api, "_register_responses", lambda self: called.append(True))
    _app(flask_smorest.Blueprint("t", __name__))
    assert called, f"flask-smorest's Api.init_app no longer calls _register_responses: {WHERE}, Api"
