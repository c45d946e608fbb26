"""The browser client: serves ``/`` (index.html) and ``/web/<path>`` from this package's static files.

The client is plain ES modules, CSS and SVG, with no build step: what is in this folder is
what the browser gets. Every response carries a Content-Security-Policy that allows only
this origin's scripts, styles and connections (no inline script or style attribute), and
``Cache-Control: no-cache``: file names carry no content hash, so the browser revalidates
with the ETag and a new release is picked up at once. ``/favicon.ico``, which browsers ask
for on pages that name no icon (``/docs``), redirects to the client's own icon. The service
worker is served at ``/service-worker.js`` (its scope: the whole site).
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Flask, Response, redirect, send_from_directory
from werkzeug.exceptions import NotFound
from werkzeug.wrappers import Response as BaseResponse

__all__ = ["CONTENT_SECURITY_POLICY", "STATIC_DIR", "init_web"]

STATIC_DIR = Path(__file__).parent
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
SERVED_SUFFIXES = frozenset({".html", ".js", ".css", ".svg"})

blueprint = Blueprint("web", __name__)


def _static(filename: str) -> Response:
    if Path(filename).suffix not in SERVED_SUFFIXES:  # never the package's own .py files
        raise NotFound()
    response = send_from_directory(STATIC_DIR, filename)
    response.cache_control.no_cache = True
    response.headers.update(HEADERS)
    return response


@blueprint.get("/")
def index() -> Response:
    return _static("index.html")


@blueprint.get("/web/<path:filename>")
def asset(filename: str) -> Response:
    return _static(filename)


@blueprint.get("/service-worker.js")
def service_worker() -> Response:
    """The client's service worker (push messages while no tab is open), at the root so that its
    scope is the whole site; revalidated every time, as the browser checks it for updates anyway."""
    response = _static("service-worker.js")
    response.headers["Service-Worker-Allowed"] = "/"
    return response


@blueprint.get("/favicon.ico")
def favicon() -> BaseResponse:
    """The icon of pages that link none (Swagger UI at ``/docs``): the client's, not a 404."""
    response = redirect("/web/img/favicon.svg", code=301)
    response.cache_control.max_age = 24 * 3600
    return response


def init_web(app: Flask) -> None:
    """Serve the browser client at ``/``."""
    app.register_blueprint(blueprint)
