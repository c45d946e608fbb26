"""Every change this service makes to flask-smorest's (and webargs' body reading) behaviour, in one
place (none to Flask's or marshmallow's: the custom fields of :mod:`.fields` are marshmallow's own
extension point).

- :class:`Blueprint`:
  ``response`` hands flask-smorest a schema instance whose ``dump`` is compiled from the
  schema (:mod:`.compiled_dumpers`): flask-smorest's own wrapper calls ``schema.dump(result)``, so
  nothing of it is copied;
  ``problems`` documents an operation's problem codes with flask-smorest's ``alt_response``;
  ``_store_endpoint_docs`` keeps a docstring as the description when ``doc`` gives a summary.
- :class:`JsonBodyParser` (webargs' ``FlaskParser``): JSON bodies read strictly (no ``NaN``).
- :class:`Api`: ``_register_responses`` documents every error as ``application/problem+json``.

tests/api/test_flask_smorest_overrides.py pins the source of each method overridden, and checks
each assumption made about it, naming the one that broke when an upgrade changes them.
"""

from __future__ import annotations

import http
import inspect
from collections import defaultdict
from collections.abc import Callable
from typing import Any, TypeVar

import flask_smorest
import marshmallow as ma
from flask_smorest.utils import prepare_response
from webargs import core
from webargs.flaskparser import FlaskParser, is_json_request

from .. import jsonio
from .compiled_dumpers import fast_schema
from .openapi import any_of_schemas, items_ref, named_enum_to_ref
from .problems import PROBLEM_MEDIA_TYPE, PROBLEMS
from .schemas import ProblemSchema

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["Api", "Blueprint"]


class Api(flask_smorest.Api):  # type: ignore[misc]  # flask-smorest ships no types
    """flask-smorest's Api with RFC 9457 errors documented as ``application/problem+json``."""

    ERROR_SCHEMA = ProblemSchema

    def _register_responses(self) -> None:
        # Runs inside init_app, before ProblemSchema is converted: its `code` refers to ProblemCode.
        self.ma_plugin.converter.add_attribute_function(named_enum_to_ref)
        self.ma_plugin.converter.add_attribute_function(any_of_schemas)
        self.ma_plugin.converter.add_attribute_function(items_ref)
        for status in http.HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            if status >= 400:
                response["schema"] = self.ERROR_SCHEMA
                prepare_response(response, self.spec, PROBLEM_MEDIA_TYPE)
            else:
                prepare_response(response, self.spec, self.DEFAULT_RESPONSE_CONTENT_TYPE)
            self.spec.components.response(status.name, response, lazy=True)
        response = {"description": "An error, as RFC 9457 problem details.", "schema": self.ERROR_SCHEMA}
        prepare_response(response, self.spec, PROBLEM_MEDIA_TYPE)
        self.spec.components.response("DEFAULT_ERROR", response, lazy=True)


class JsonBodyParser(FlaskParser):
    """webargs' Flask parser, reading JSON bodies with :mod:`service.jsonio` (orjson), which refuses
    ``NaN`` and ``Infinity`` as the contract does (``malformed_json``); the standard library's json
    takes them. An empty body is no arguments; a body not UTF-8 JSON raises ``ValueError``."""

    def _raw_load_json(self, req: Any) -> Any:
        if not is_json_request(req):
            return core.missing
        return jsonio.loads(req.get_data(cache=True).decode())


class Blueprint(flask_smorest.Blueprint):  # type: ignore[misc]  # flask-smorest ships no types
    """flask-smorest's Blueprint, plus a decorator that documents an operation's problem codes, and
    responses dumped by functions compiled from their schemas."""

    ARGUMENTS_PARSER = JsonBodyParser()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: The schema instances the responses of this blueprint's views are dumped with.
        self.response_schemas: list[ma.Schema] = []

    def response(self, status_code: int, schema: Any = None, **options: Any) -> Callable[[F], F]:
        """flask-smorest's ``response``, given an instance of the schema whose ``dump`` is compiled
        from it (:func:`.compiled_dumpers.fast_schema`): the same document, the same body, less CPU."""
        schema = fast_schema(schema)
        if isinstance(schema, ma.Schema):
            self.response_schemas.append(schema)
        return super().response(status_code, schema, **options)  # type: ignore[no-any-return]

    def _store_endpoint_docs(self, endpoint: str, obj: Any, parameters: Any, tags: Any, **options: Any) -> None:
        # flask-smorest reads a docstring without a blank line as one long summary, which the
        # summary given to ``doc()`` then replaces: keep the docstring as the description instead.
        super()._store_endpoint_docs(endpoint, obj, parameters, tags, **options)
        for method, doc in self._docs[endpoint].items():
            function = getattr(obj, method, None) if method != "parameters" else None
            if function is not None and function.__doc__ and "summary" in doc.get("manual_doc", {}):
                doc["docstring"] = {"description": inspect.cleandoc(function.__doc__)}

    def problems(self, *codes: str) -> Callable[[F], F]:
        """Document each listed problem code under its HTTP status, as ``application/problem+json``."""
        by_status: dict[int, list[str]] = defaultdict(list)
        for code in codes:
            by_status[PROBLEMS[code][0]].append(code)

        def decorator(func: F) -> F:
            for status, status_codes in sorted(by_status.items(), reverse=True):
                description = "; ".join(f"`{code}`: {PROBLEMS[code][1]}" for code in status_codes)
                headers: dict[str, Any] | None = {"WWW-Authenticate": "WWW-Authenticate"} if status == 401 else None
                if status in (429, 503):
                    headers = {"Retry-After": {"description": "Seconds to wait.", "schema": {"type": "integer"}}}
                document = self.alt_response(
                    status,
                    schema=ProblemSchema,
                    content_type=PROBLEM_MEDIA_TYPE,
                    description=description,
                    headers=headers,
                    example=_example(status_codes[0]),
                )
                func = document(func)
            return func

        return decorator


def _example(code: str) -> dict[str, Any]:
    status, title = PROBLEMS[code]
    return {"type": f"urn:coins:problem:{code}", "title": title, "status": status, "detail": title, "code": code}
