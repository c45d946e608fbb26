"""Interactive docs: /docs and every asset it references come from this app, never a CDN."""

from __future__ import annotations

from html.parser import HTMLParser

CONTENT_TYPES = {".js": ("text/javascript", "application/javascript"), ".css": ("text/css",)}


class References(HTMLParser):
    """Collects the src and href attributes of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.urls += [value for name, value in attrs if name in ("src", "href") and value]


def test_docs_page_and_every_asset_it_references_are_served_locally(client):
    page = client.get("/docs")
    assert page.status_code == 200
    assert page.mimetype == "text/html"
    parser = References()
    parser.feed(page.get_data(as_text=True))
    assert len(parser.urls) >= 3  # the css, the bundle and the preset
    for url in parser.urls:
        assert url.startswith("/"), f"{url} is not served by this app"
        asset = client.get(url)
        assert asset.status_code == 200, url
        suffix = url[url.rindex(".") :]
        assert asset.mimetype in CONTENT_TYPES[suffix], (url, asset.mimetype)
        assert len(asset.data) > 1000


def test_docs_page_points_at_the_served_spec(client):
    page = client.get("/docs").get_data(as_text=True)
    assert 'url: "/openapi.json"' in page
    assert "https://" not in page and "http://" not in page
    spec = client.get("/openapi.json")
    assert spec.status_code == 200 and spec.mimetype == "application/json"
    assert spec.json["openapi"].startswith("3.") and "/v1/games" in spec.json["paths"]


def test_unknown_asset_is_a_problem_404(client):
    response = client.get("/docs/assets/nope.js")
    assert response.status_code == 404
    assert response.mimetype == "application/problem+json"
    assert client.get("/docs/assets/../../service/config.py").status_code == 404
