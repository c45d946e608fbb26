"""Every change this service makes to flask-smorest's and webargs' behaviour, in one place.

- :class:`Blueprint` (flask-smorest's):
  ``response`` hands flask-smorest a schema instance whose ``dump`` is compiled from the
  schema (:mod:`.fast_dump`): flask-smorest's own wrapper calls ``schema.dump(result)``, so
  nothing of it is copied;
  ``arguments`` first offers a JSON body to a plain loader (:mod:`.loaders`);
  ``doc`` and ``problems`` keep flask-smorest's documentation but not its run-time wrappers;
  ``_store_endpoint_docs`` keeps a docstring as the description when ``doc`` gives a summary.
- :class:`JsonBodyParser` (webargs' ``FlaskParser``): JSON bodies read with orjson.

tests/api/test_smorest_overrides.py checks each assumption these make about the libraries'
internals, and names the one that broke when an upgrade changes them.
"""

from __future__ import annotations

import inspect
from collections import defaultdict
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import flask_smorest
import marshmallow as ma
from flask import request
from webargs import core
from webargs.flaskparser import FlaskParser, is_json_request

from .. import jsonio
from .fast_dump import fast_schema
from .loaders import LOADERS
from .problems import PROBLEM_MEDIA_TYPE, PROBLEMS
from .schemas import ProblemSchema

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["Blueprint", "JsonBodyParser"]


class JsonBodyParser(FlaskParser):
    """webargs' Flask parser, reading JSON bodies with :mod:`service.jsonio` (orjson), as the rest of
    the service does. As with webargs' own reader, an empty body is no arguments, and a body that is
    not UTF-8 JSON raises ``UnicodeDecodeError`` or ``json.JSONDecodeError`` (``malformed_json``);
    the body is decoded first because webargs takes an orjson error on bytes for an empty body."""

    def _raw_load_json(self, req: Any) -> Any:
        if not is_json_request(req):
            return core.missing
        return jsonio.loads(req.get_data(cache=True).decode())


class Blueprint(flask_smorest.Blueprint):  # type: ignore[misc]  # flask-smorest ships no types
    """flask-smorest's Blueprint, plus a decorator that documents an operation's problem codes,
    responses dumped by functions compiled from their schemas, and plain loaders for hot bodies."""

    ARGUMENTS_PARSER = JsonBodyParser()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: The schema instances the responses of this blueprint's views are dumped with.
        self.response_schemas: list[ma.Schema] = []

    def response(self, status_code: int, schema: Any = None, **options: Any) -> Callable[[F], F]:
        """flask-smorest's ``response``, given an instance of the schema whose ``dump`` is compiled
        from it (:func:`.fast_dump.fast_schema`): the same document, the same body, less CPU."""
        schema = fast_schema(schema)
        if isinstance(schema, ma.Schema):
            self.response_schemas.append(schema)
        return super().response(status_code, schema, **options)  # type: ignore[no-any-return]

    def arguments(self, schema: Any, **options: Any) -> Callable[[F], F]:
        """flask-smorest's ``arguments``. A JSON body whose schema has a function in ``LOADERS`` is
        first offered to that function: a body it loads skips webargs and marshmallow (the same
        arguments, less CPU); any other body, every invalid one included, goes the usual way."""
        documented = super().arguments(schema, **options)
        load = LOADERS.get(type(schema)) if options.get("location", "json") == "json" else None
        if load is None:
            return documented  # type: ignore[no-any-return]

        def decorator(func: F) -> F:
            usual = documented(func)

            @wraps(func)
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                loaded = load(_json_body())
                if loaded is None:
                    return usual(*args, **kwargs)
                return func(*args, loaded, **kwargs)  # where webargs puts them: after the positional ones

            wrapper._apidoc = usual._apidoc  # type: ignore[attr-defined]
            return wrapper  # type: ignore[return-value]

        return decorator

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
                func = _documented(document, func)
            return func

        return decorator

    @staticmethod
    def doc(**kwargs: Any) -> Callable[[F], F]:
        """flask-smorest's ``doc``, without its run-time wrapper (see :func:`_documented`)."""
        document = flask_smorest.Blueprint.doc(**kwargs)
        return lambda func: _documented(document, func)


def _documented(document: Callable[[F], F], func: F) -> F:
    """Apply a flask-smorest decorator that only documents, and keep its documentation but not its
    wrapper: each such wrapper (``doc``, and ``alt_response`` once per documented status) would
    otherwise be one more call through ``current_app.ensure_sync`` on every request."""
    func._apidoc = document(func)._apidoc  # type: ignore[attr-defined]
    return func


def _example(code: str) -> dict[str, Any]:
    status, title = PROBLEMS[code]
    return {"type": f"urn:coins:problem:{code}", "title": title, "status": status, "detail": title, "code": code}


def _json_body() -> Any:
    """The request's JSON body, or None when it has none or it is not JSON (webargs then says which)."""
    if not request.is_json:
        return None
    try:
        return jsonio.loads(request.get_data(cache=True))
    except ValueError:
        return None
