"""What every resource shares: the Blueprint (see :mod:`.flask_smorest_overrides`), tokens, ETags and 304s."""

from __future__ import annotations

from typing import Any

from flask import Response, request, url_for

from .flask_smorest_overrides import Blueprint

__all__ = ["Blueprint", "bearer_token", "game_page", "if_match", "next_link", "not_modified", "with_etag"]


def bearer_token() -> str | None:
    """The token of ``Authorization: Bearer <token>``, or None."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def if_match() -> list[str] | None:
    """The entity tags of ``If-Match`` (``["*"]`` for a star), or None without the header (an empty
    one counts as absent: it names no tag, see :mod:`.guards`)."""
    if not request.headers.get("If-Match", "").strip():
        return None
    tags = request.if_match
    return ["*"] if tags.star_tag else list(tags)


def not_modified(etag: str) -> Response | None:
    """A 304 when ``If-None-Match`` already names ``etag``, strong or weak (``W/"…"``, as a proxy that
    compresses answers sends it back): RFC 9110 compares ``If-None-Match`` weakly."""
    if request.if_none_match.contains_weak(etag) or request.if_none_match.star_tag:
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
