"""Every change this service makes to flask-smorest's, webargs' and apispec's behaviour, in one
place, each through the library's public extension points (none to Flask's or marshmallow's: the
custom fields of :mod:`.fields` are marshmallow's own extension point).

- :class:`Api` (flask-smorest's): ``init_app`` hands flask-smorest :class:`MarshmallowPlugin` (its
  documented ``marshmallow_plugin`` spec kwarg), then registers every status's response and
  ``DEFAULT_ERROR`` again as ``application/problem+json`` (apispec's ``components.response``).
- :class:`MarshmallowPlugin` (apispec's): ``init_spec`` (a plugin's hook) adds this service's
  attribute functions to its converter before any schema is converted.
- :class:`Blueprint` (flask-smorest's):
  ``response`` hands flask-smorest a schema instance whose ``dump`` is compiled from the
  schema (:mod:`.compiled_dumpers`): flask-smorest's own wrapper calls ``schema.dump(result)``, so
  nothing of it is copied;
  ``doc`` given a summary passes the view's docstring as the description;
  ``problems`` names an operation's problem codes, which ``route`` documents with flask-smorest's
  ``alt_response``, adding those of the rules every operation of a kind follows
  (:data:`EVERY_OPERATION_PROBLEMS`, :data:`BODY_METHOD_PROBLEMS`, :data:`BODYLESS_PROBLEMS`,
  :data:`PATH_PARAMETER_PROBLEMS`);
  ``deprecated`` marks an operation deprecated (flask-smorest's ``doc``) and has its answers carry the
  ``Deprecation`` and ``Sunset`` headers (:mod:`.deprecation`), as ``arguments`` and ``response`` do
  for an operation whose schemas hold a deprecated field.
- :class:`JsonBodyParser` (webargs' ``FlaskParser``): ``load_json``, the public loader of the
  ``json`` location, reads bodies strictly (no ``NaN``).

tests/api/test_flask_smorest_overrides.py checks each behaviour these build on, naming the one
that broke when an upgrade changes it.
"""

from __future__ import annotations

import functools
import http
import inspect
from collections import defaultdict
from collections.abc import Callable
from typing import Any, TypeVar

import flask_smorest
import marshmallow as ma
from apispec import APISpec
from apispec.ext import marshmallow as apispec_marshmallow
from flask import Flask, Response
from flask.views import MethodView
from webargs import core
from webargs.flaskparser import FlaskParser

from .. import jsonio
from . import deprecation
from .compiled_dumpers import fast_schema
from .fields import card_field_to_ref
from .openapi import any_of_schemas, items_ref, named_enum_to_ref
from .problems import PROBLEM_MEDIA_TYPE, PROBLEMS, Problem
from .schemas import ProblemSchema

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["Api", "Blueprint", "JsonBodyParser", "MarshmallowPlugin"]

#: apispec attribute functions: what the OpenAPI document says of a field beyond apispec's own reading
ATTRIBUTE_FUNCTIONS = (named_enum_to_ref, any_of_schemas, items_ref, card_field_to_ref)
DEFAULT_ERROR_DESCRIPTION = "An error, as RFC 9457 problem details."
#: What every operation can answer, whatever its method: a chunked body the server cannot read (a
#: chunk size that is no number, a missing terminator), which the guards read for any request before
#: any view (:mod:`.hooks.guards`), as gunicorn refuses a malformed head.
EVERY_OPERATION_PROBLEMS = ("bad_request",)
#: What every operation with a path parameter can answer besides its own codes: a parameter that is
#: no value of its type (a seat "abc"), or holds a slash (sent as %2F, decoded before routing), makes
#: a path that matches no route.
PATH_PARAMETER_PROBLEMS = ("not_found",)
#: What every POST, PUT and PATCH can answer, whether it takes a body or not: the guards refuse a body
#: that is not JSON and one over MAX_REQUEST_BYTES before any view (:mod:`.hooks.guards`); one that does
#: not parse is refused where it is read (:func:`json_body`).
BODY_METHOD_PROBLEMS = ("malformed_json", "payload_too_large", "unsupported_media_type")
#: What a POST, PUT or PATCH that takes no body answers besides: a body with fields (:func:`refuse_a_body_with_fields`).
BODYLESS_PROBLEMS = ("validation_error",)
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
_PROBLEM_CODES = "_coins_problem_codes"  # the attribute of a view function naming its codes


class MarshmallowPlugin(apispec_marshmallow.MarshmallowPlugin):
    """apispec's marshmallow plugin, whose converter knows this service's attribute functions from
    the start: flask-smorest converts the error schema while ``Api.init_app`` runs, and its ``code``
    refers to the ``ProblemCode`` enum."""

    def init_spec(self, spec: APISpec) -> None:
        super().init_spec(spec)
        assert self.converter is not None, "apispec's init_spec makes the converter"
        for function in ATTRIBUTE_FUNCTIONS:
            self.converter.add_attribute_function(function)  # type: ignore[no-untyped-call]  # apispec leaves it unannotated


class Api(flask_smorest.Api):  # type: ignore[misc]  # flask-smorest ships no types
    """flask-smorest's Api with RFC 9457 errors documented as ``application/problem+json``."""

    ERROR_SCHEMA = ProblemSchema

    def init_app(self, app: Flask, *, spec_kwargs: dict[str, Any] | None = None) -> None:
        super().init_app(app, spec_kwargs={"marshmallow_plugin": MarshmallowPlugin(), **(spec_kwargs or {})})
        # flask-smorest registered a response per status, and DEFAULT_ERROR, lazily (each enters the
        # document when an operation refers to it) as application/json: registered again lazily
        # under the same names, these replace them.
        for status in http.HTTPStatus:
            self.spec.components.response(status.name, _response(status.phrase, error=status >= 400), lazy=True)
        response = _response(DEFAULT_ERROR_DESCRIPTION, error=True)
        self.spec.components.response(self.DEFAULT_ERROR_RESPONSE_NAME, response, lazy=True)


def _response(description: str, *, error: bool) -> dict[str, Any]:
    if not error:
        return {"description": description}
    return {"description": description, "content": {PROBLEM_MEDIA_TYPE: {"schema": ProblemSchema}}}


_TAKES_BODY = "_coins_takes_body"  # the attribute of a view function that reads a body (:meth:`Blueprint.arguments`)
#: webargs' locations that are a request's body.
BODY_LOCATIONS = frozenset({"json", "form", "files", "json_or_form"})


def takes_body(function: Any) -> bool:
    """Whether a view function (a MethodView's method, or a function view) reads a body: one given
    body arguments by :meth:`Blueprint.arguments`."""
    return bool(getattr(function, _TAKES_BODY, False))


def json_body(req: Any) -> Any:
    """The request's body, read with :mod:`service.jsonio` (orjson, which refuses ``NaN`` and
    ``Infinity`` as the contract does): nothing (``missing``) unless it is JSON by its media type and
    not empty; one that is not UTF-8 JSON is ``400 malformed_json``."""
    body = req.get_data(cache=True) if req.is_json else b""
    if not body:
        return core.missing
    try:
        return jsonio.loads(body.decode())
    except ValueError:  # json.JSONDecodeError and UnicodeDecodeError both are
        raise Problem("malformed_json", "the request body could not be parsed as JSON") from None


def refuse_a_body_with_fields(req: Any) -> None:
    """For an operation that takes no body (:func:`.idempotency.idempotent` calls this where a body
    would be parsed: after the key's checks, as for any body): one with fields is refused as unknown
    fields are, ``422 validation_error``; an empty object or none is taken."""
    value = json_body(req)
    if value is core.missing or value == {}:
        return
    errors = (
        {str(name): ["Unknown field."] for name in value}
        if isinstance(value, dict)
        else {"_schema": ["Invalid input type."]}
    )
    raise Problem("validation_error", "this operation takes no body: see errors", errors=errors)


class JsonBodyParser(FlaskParser):
    """webargs' Flask parser, reading JSON bodies as :func:`json_body` does (the standard library's json
    takes ``NaN`` and ``Infinity``)."""

    def load_json(self, req: Any, schema: ma.Schema) -> Any:
        """The ``json`` location: :func:`json_body`."""
        return json_body(req)


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
        document = _with_deprecations(super().response(status_code, schema, **options), schema)
        if status_code == http.HTTPStatus.NO_CONTENT and schema is None:
            return lambda func: document(_no_content(func))
        return document

    def arguments(self, schema: Any, **options: Any) -> Callable[[F], F]:
        """flask-smorest's ``arguments``; a deprecated field in ``schema`` has the operation's answers
        carry the deprecation's headers, and arguments from the body mark the view as one that reads
        a body (:func:`takes_body`)."""
        document = _with_deprecations(super().arguments(schema, **options), schema)
        if options.get("location", "json") not in BODY_LOCATIONS:
            return document

        def decorator(func: F) -> F:
            documented: F = document(func)
            setattr(documented, _TAKES_BODY, True)
            return documented

        return decorator

    @staticmethod
    def deprecated(notice: deprecation.Deprecation) -> Callable[[F], F]:
        """Deprecate the operation: ``deprecated: true`` in the spec, and every answer carries the
        ``Deprecation`` and ``Sunset`` headers (:mod:`.deprecation`)."""

        def decorator(func: F) -> F:
            documented: F = flask_smorest.Blueprint.doc(deprecated=True)(func)
            return deprecation.mark(documented, [notice])

        return decorator

    @staticmethod
    def doc(**kwargs: Any) -> Callable[[F], F]:
        """flask-smorest's ``doc``; given a ``summary`` and no ``description``, the view's whole
        docstring is the description (flask-smorest reads a docstring without a blank line as one
        long summary, which the given summary then replaces)."""

        def decorator(func: F) -> F:
            options = kwargs
            if "summary" in kwargs and "description" not in kwargs and func.__doc__:
                options = {**kwargs, "description": inspect.cleandoc(func.__doc__)}
            return flask_smorest.Blueprint.doc(**options)(func)  # type: ignore[no-any-return]

        return decorator

    @staticmethod
    def problems(*codes: str) -> Callable[[F], F]:
        """Name the operation's problem codes: :meth:`route` documents them (with those of its rules)."""

        def decorator(func: F) -> F:
            setattr(func, _PROBLEM_CODES, (*getattr(func, _PROBLEM_CODES, ()), *codes))
            return func

        return decorator

    def route(self, rule: str, *, parameters: Any = None, tags: Any = None, **options: Any) -> Callable[[F], F]:
        """flask-smorest's ``route``; each operation of the view (a method of a ``MethodView``, or the
        function) has its problem codes documented first: those it names (:meth:`problems`), then
        :data:`EVERY_OPERATION_PROBLEMS`, :data:`BODY_METHOD_PROBLEMS` for a POST, PUT or PATCH (and
        :data:`BODYLESS_PROBLEMS` for one that takes no body), and
        :data:`PATH_PARAMETER_PROBLEMS` when ``rule`` has a path parameter."""
        register = super().route(rule, parameters=parameters, tags=tags, **options)

        def rules(method: str, function: Any) -> tuple[str, ...]:
            body: tuple[str, ...] = BODY_METHOD_PROBLEMS if method.upper() in BODY_METHODS else ()
            if body and not takes_body(function):
                body += BODYLESS_PROBLEMS
            return EVERY_OPERATION_PROBLEMS + body + (PATH_PARAMETER_PROBLEMS if "<" in rule else ())

        def decorator(view: F) -> F:
            if isinstance(view, type) and issubclass(view, MethodView):
                for method in view.methods or ():
                    function = getattr(view, method.lower())
                    setattr(view, method.lower(), self._document_problems(function, rules(method, function)))
                return register(view)  # type: ignore[no-any-return]
            methods = options.get("methods", ("GET",))
            assert len(methods) == 1, "a function view serves one method: its problems are that operation's"
            return register(self._document_problems(view, rules(methods[0], view)))  # type: ignore[no-any-return]

        return decorator

    def _document_problems(self, func: F, rules: tuple[str, ...]) -> F:
        """Document each problem code of ``func`` and ``rules`` under its HTTP status, as ``application/problem+json``."""
        by_status: dict[int, list[str]] = defaultdict(list)
        for code in dict.fromkeys((*getattr(func, _PROBLEM_CODES, ()), *rules)):
            by_status[PROBLEMS[code][0]].append(code)
        for status, status_codes in sorted(by_status.items(), reverse=True):
            description = "; ".join(f"`{code}`: {PROBLEMS[code][1]}" for code in status_codes)
            headers: dict[str, Any] | None = {"WWW-Authenticate": "WWW-Authenticate"} if status == 401 else None
            if status in (429, 503):
                headers = {"Retry-After": {"description": "Seconds to wait.", "schema": {"type": "integer"}}}
            if status == 412:  # If-Match named another version
                headers = {"ETag": {"description": "The game's current version's tag.", "schema": {"type": "string"}}}
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


def _no_content(view: F) -> F:
    """``view``, whose ``None`` is answered as a ``204`` with no ``Content-Type``: flask-smorest would
    answer it as JSON (``application/json``, an empty body), which a 204 has none of (RFC 9110)."""

    @functools.wraps(view)
    def answer(*args: Any, **kwargs: Any) -> Any:
        result = view(*args, **kwargs)
        if result is not None:
            return result
        response = Response(status=http.HTTPStatus.NO_CONTENT)
        response.headers.remove("Content-Type")
        return response

    return answer  # type: ignore[return-value]


def _with_deprecations(document: Callable[[F], F], schema: Any) -> Callable[[F], F]:
    """flask-smorest's decorator ``document``, which also marks the view with the deprecated fields of ``schema``."""
    notices = deprecation.deprecations_in(schema) if schema is not None else []
    if not notices:
        return document
    return lambda func: deprecation.mark(document(func), notices)


# The extension members a problem of a code carries (ProblemSchema names each), for its example.
_EXAMPLE_MEMBERS = {"already_queued": {"ticket": "01jf3v9k2m8q4r6t0w5x7y9z1b"}}


def _example(code: str) -> dict[str, Any]:
    status, title = PROBLEMS[code]
    example = {"type": f"urn:coins:problem:{code}", "title": title, "status": status, "detail": title, "code": code}
    return example | _EXAMPLE_MEMBERS.get(code, {})
