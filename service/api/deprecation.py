"""Deprecation within ``/v1`` (docs/compatibility.md): what is deprecated says so in the spec
(``deprecated: true``) and in every answer (``Deprecation``, RFC 9745, and ``Sunset``, RFC 8594), for
at least six months before a ``/v2`` drops it. Nothing is deprecated today; this is the one way to do it.

- An operation: ``@blp.deprecated(Deprecation(since=date(…), sunset=date(…)))`` on its view
  (:meth:`.flask_smorest_overrides.Blueprint.deprecated`). The operation is ``deprecated: true`` and
  each of its responses documents both headers (:class:`DeprecationDocs`).
- A field: ``fields.String(metadata=deprecated_field(Deprecation(…), {"description": …}))``. The
  property is ``deprecated: true`` and its description says when it goes; every operation that takes
  or answers a schema holding it (the Blueprint's ``arguments`` and ``response``) sends the headers.

:func:`add_deprecation_headers`, an ``after_request`` hook, puts the headers on every answer of such an
operation: its successes, its problems, its 304s.
"""

from __future__ import annotations

import calendar
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, TypeVar

import marshmallow as ma
from apispec import BasePlugin
from flask import Flask, Response, current_app, request
from werkzeug.http import http_date

__all__ = [
    "HEADERS",
    "Deprecation",
    "DeprecationDocs",
    "add_deprecation_headers",
    "deprecated_field",
    "deprecations_in",
    "deprecations_of",
    "init_deprecation",
    "mark",
]

F = TypeVar("F", bound=Callable[..., Any])

#: Months between a deprecation and its sunset, at least (the contract: six).
NOTICE_MONTHS = 6
#: The view function's attribute listing what of its operation is deprecated (functools.wraps, which
#: flask-smorest's decorators use, carries it outwards).
ATTRIBUTE = "deprecations"

HEADERS: dict[str, dict[str, Any]] = {
    "Deprecation": {
        "description": "RFC 9745: this operation, or a field it takes or answers, is deprecated since this "
        "time (`@` and Unix seconds). It keeps working until the `Sunset`.",
        "schema": {"type": "string", "pattern": "^@-?[0-9]+$"},
    },
    "Sunset": {
        "description": "RFC 8594: the time (an HTTP date) after which a `/v2` may no longer have it, at least "
        "six months after its `Deprecation`.",
        "schema": {"type": "string"},
    },
}


@dataclass(frozen=True)
class Deprecation:
    """Deprecated on ``since``; may go, in a ``/v2``, from ``sunset`` (at least six months later). Both
    dates are midnight UTC."""

    since: date
    sunset: date

    def __post_init__(self) -> None:
        earliest = _months_after(self.since, NOTICE_MONTHS)
        if self.sunset < earliest:
            raise ValueError(
                f"a sunset comes {NOTICE_MONTHS} months after the deprecation at least: {earliest} or later"
            )

    @property
    def headers(self) -> dict[str, str]:
        """The ``Deprecation`` (RFC 9745: ``@`` and Unix seconds) and ``Sunset`` (RFC 8594) headers."""
        since = datetime(self.since.year, self.since.month, self.since.day, tzinfo=UTC)
        sunset = datetime(self.sunset.year, self.sunset.month, self.sunset.day, tzinfo=UTC)
        return {"Deprecation": f"@{int(since.timestamp())}", "Sunset": http_date(sunset)}

    @property
    def note(self) -> str:
        return f"Deprecated since {self.since.isoformat()}: a `/v2` may drop it from {self.sunset.isoformat()}."


def _months_after(day: date, months: int) -> date:
    month = day.month - 1 + months
    year, month = day.year + month // 12, month % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def deprecated_field(deprecation: Deprecation, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """A field's ``metadata``: ``deprecated: true`` in the spec, the dates in its description, and the
    deprecation itself, which the operations that take or answer the field send as headers."""
    metadata = dict(metadata or {})
    description = f"{metadata['description']} {deprecation.note}" if metadata.get("description") else deprecation.note
    return {**metadata, "deprecated": True, "description": description, "deprecation": deprecation}


def deprecations_in(schema: Any) -> list[Deprecation]:
    """The deprecations of the fields of ``schema`` (an instance or a class), its nested schemas' included."""
    found: list[Deprecation] = []
    seen: set[type[ma.Schema]] = set()

    def walk(schema: Any) -> None:
        instance = schema() if isinstance(schema, type) else schema
        if not isinstance(instance, ma.Schema) or type(instance) in seen:
            return
        seen.add(type(instance))
        for field in instance.fields.values():
            visit(field)

    def visit(field: ma.fields.Field[Any]) -> None:
        if isinstance(field.metadata.get("deprecation"), Deprecation):
            found.append(field.metadata["deprecation"])
        if isinstance(field, ma.fields.Nested):
            walk(field.schema)
        elif isinstance(field, ma.fields.List):
            visit(field.inner)

    walk(schema)
    return found


def mark(func: F, deprecations: Iterable[Deprecation]) -> F:
    """Record on a view function that its operation sends these deprecations' headers."""
    setattr(func, ATTRIBUTE, (*getattr(func, ATTRIBUTE, ()), *deprecations))
    return func


def deprecations_of(view: Callable[..., Any] | None, method: str) -> tuple[Deprecation, ...]:
    """What is deprecated of the operation that ``view`` (a Flask view function) serves for ``method``."""
    view_class = getattr(view, "view_class", None)
    if view_class is not None:  # a MethodView: the method's function carries the mark
        method = method.lower()
        view = getattr(view_class, method, None) or (getattr(view_class, "get", None) if method == "head" else None)
    return tuple(getattr(view, ATTRIBUTE, ()))


def add_deprecation_headers(response: Response) -> Response:
    """An ``after_request`` hook: every answer of a deprecated operation (or one with a deprecated
    field) says since when, and until when, with the earliest such dates."""
    deprecations = deprecations_of(current_app.view_functions.get(request.endpoint or ""), request.method)
    if deprecations:
        response.headers["Deprecation"] = min(deprecations, key=lambda each: each.since).headers["Deprecation"]
        response.headers["Sunset"] = min(deprecations, key=lambda each: each.sunset).headers["Sunset"]
    return response


def init_deprecation(app: Flask) -> None:
    app.after_request(add_deprecation_headers)


class DeprecationDocs(BasePlugin):
    """An apispec plugin: each response of a ``deprecated: true`` operation documents the ``Deprecation``
    and ``Sunset`` headers (components registered lazily: the spec holds them only once one is used)."""

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None, **_: Any) -> None:
        for operation in (operations or {}).values():
            if not (isinstance(operation, dict) and operation.get("deprecated")):
                continue
            for response in operation.get("responses", {}).values():
                if isinstance(response, dict) and "$ref" not in response:
                    response.setdefault("headers", {}).update({name: name for name in HEADERS})
