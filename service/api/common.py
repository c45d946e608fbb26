"""What every resource shares: the Blueprint with documented problems, tokens, ETags and 304s."""

from __future__ import annotations

import inspect
from collections import defaultdict
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import flask_smorest
from flask import Response, current_app, jsonify, request, url_for
from flask_smorest.utils import get_appcontext, set_status_and_headers_in_response, unpack_tuple_response
from webargs import core
from webargs.flaskparser import FlaskParser, is_json_request
from werkzeug.wrappers import Response as WerkzeugResponse

from .. import jsonio
from .loaders import LOADERS
from .problems import PROBLEM_MEDIA_TYPE, PROBLEMS
from .schemas import ProblemSchema
from .serialize import SERIALIZERS

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["Blueprint", "bearer_token", "game_page", "if_match", "next_link", "not_modified", "with_etag"]


class _Parser(FlaskParser):
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
    and responses dumped by the plain functions of :mod:`.serialize` where there is one."""

    ARGUMENTS_PARSER = _Parser()

    def response(self, status_code: int, schema: Any = None, **options: Any) -> Callable[[F], F]:
        """flask-smorest's ``response``: the schema documents the response. A schema class with a
        function in ``SERIALIZERS`` has that function dump the body at run time (same JSON, less CPU)."""
        documented = super().response(status_code, schema, **options)
        dump = SERIALIZERS.get(schema) if isinstance(schema, type) else None
        if dump is None:
            return documented  # type: ignore[no-any-return]
        prepare = self._prepare_response_content

        def decorator(func: F) -> F:
            # What flask_smorest.response.ResponseMixin.response's wrapper does (0.47), with
            # ``dump(result)`` in place of ``schema.dump(result)``.
            @wraps(func)
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                result, status, headers = unpack_tuple_response(current_app.ensure_sync(func)(*args, **kwargs))
                if isinstance(result, WerkzeugResponse):
                    set_status_and_headers_in_response(result, status, headers)
                    return result
                result_dump = dump(result)
                get_appcontext()["result_dump"] = result_dump  # as flask-smorest does, for its ETags
                response = jsonify(prepare(result_dump))
                set_status_and_headers_in_response(response, status, headers)
                if status is None:
                    response.status_code = status_code
                return response

            wrapper._apidoc = documented(func)._apidoc  # type: ignore[attr-defined]
            return wrapper  # type: ignore[return-value]

        return decorator

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
                if status == 503:
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


def bearer_token() -> str | None:
    """The token of ``Authorization: Bearer <token>``, or None."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def if_match() -> list[str] | None:
    """The entity tags of ``If-Match`` (``["*"]`` for a star), or None without the header."""
    if "If-Match" not in request.headers:
        return None
    tags = request.if_match
    return ["*"] if tags.star_tag else list(tags)


def not_modified(etag: str) -> Response | None:
    """A 304 when ``If-None-Match`` already names ``etag``."""
    if etag in request.if_none_match or request.if_none_match.star_tag:
        response = Response(status=304)
        response.set_etag(etag)
        return response
    return None


def with_etag(etag: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """Response headers carrying a strong ETag."""
    headers = {"ETag": f'"{etag}"'}
    headers.update(extra or {})
    return headers


def next_link(endpoint: str, next_cursor: str | None, **query: Any) -> dict[str, str]:
    """A ``Link: <…>; rel="next"`` header for the next page, when there is one."""
    if not next_cursor:
        return {}
    return {"Link": f'<{url_for(endpoint, cursor=next_cursor, **query)}>; rel="next"'}


def game_page(page: Any, etag: str, endpoint: str, **query: Any) -> Any:
    """A page of one game's history: 304 while the game is unchanged, else the page with its
    ETag and the link to the next page."""
    unchanged = not_modified(etag)
    if unchanged is not None:
        return unchanged
    return page, 200, with_etag(etag, next_link(endpoint, page.next_cursor, **query))
