"""Interactive API docs: Swagger UI at ``/docs`` over ``/openapi.json``, its assets served from this app.

The Swagger UI files come from the ``flask-swagger-ui`` package (its ``dist`` folder); we
serve them ourselves under ``/docs/assets/``, so the page needs no CDN and works offline.
"""

from __future__ import annotations

from importlib.resources import files

from flask import Flask, Response, send_from_directory

__all__ = ["ASSETS_URL", "DOCS_PATH", "configure_docs", "swagger_ui_dist"]

DOCS_PATH = "/docs"
ASSETS_URL = "/docs/assets/"
ASSET_MAX_AGE = 24 * 3600


def swagger_ui_dist() -> str:
    """The folder holding swagger-ui-bundle.js, swagger-ui.css and the rest of Swagger UI's dist."""
    return str(files("flask_swagger_ui") / "dist")


def configure_docs(app: Flask) -> None:
    """Call before ``init_api``: flask-smorest reads these settings when the Api is set up."""
    app.config.setdefault("OPENAPI_URL_PREFIX", "/")
    app.config.setdefault("OPENAPI_JSON_PATH", "openapi.json")
    app.config.setdefault("OPENAPI_SWAGGER_UI_PATH", DOCS_PATH)
    app.config.setdefault("OPENAPI_SWAGGER_UI_URL", ASSETS_URL)
    app.config.setdefault(
        "OPENAPI_SWAGGER_UI_CONFIG",
        {"deepLinking": True, "displayOperationId": True, "displayRequestDuration": True},
    )
    dist = swagger_ui_dist()

    def swagger_ui_asset(filename: str) -> Response:
        return send_from_directory(dist, filename, max_age=ASSET_MAX_AGE)

    app.add_url_rule(f"{ASSETS_URL}<path:filename>", endpoint="swagger_ui_asset", view_func=swagger_ui_asset)
