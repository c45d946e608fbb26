"""Every problem the service answers is one its operation documents: the suite's own requests checked
against ``openapi.yaml`` (its status, and its ``code`` among those the status lists)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from flask import Response, request

SPEC = Path(__file__).resolve().parents[2] / "openapi.yaml"
_CODE = re.compile(r"`([a-z_]+)`:")
_ARGUMENT = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")


@cache
def _operations() -> dict[tuple[str, str], dict[str, set[str]]]:
    """(path, method) -> {status: problem codes documented under it}."""
    spec = yaml.safe_load(SPEC.read_text())
    found: dict[tuple[str, str], dict[str, set[str]]] = {}
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and "responses" in operation:
                found[(path, method.upper())] = {
                    status: set(_CODE.findall(response.get("description", "")))
                    for status, response in operation["responses"].items()
                }
    return found


def undocumented(response: Response) -> str | None:
    """Why ``response`` to the request in context is not in the spec, or None."""
    if response.mimetype != "application/problem+json" or request.url_rule is None:
        return None
    path = _ARGUMENT.sub(r"{\1}", request.url_rule.rule)
    method = "GET" if request.method == "HEAD" else request.method
    documented = _operations().get((path, method))
    if documented is None:
        return None  # not an operation of the API (the web client's pages, /metrics, ...)
    body: Any = response.get_json(silent=True) or {}
    status, code = str(response.status_code), body.get("code")
    if (status, code) == ("500", "internal_error"):
        return None  # a failure nobody foresaw: the spec's ``default`` answer of every operation
    if status not in documented:
        return f"{method} {path}: {status} {code} is not documented"
    if code not in documented[status]:
        return f"{method} {path}: {status} {code} is not among {sorted(documented[status])}"
    return None
