"""The browser client's files: served at / and /web/, with a strict CSP, and shipped in the package."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
import yaml

from service.web import CONTENT_SECURITY_POLICY, STATIC_DIR

ROOT = STATIC_DIR.parents[1]

STATIC_FILES = sorted(
    path.relative_to(STATIC_DIR).as_posix()
    for path in STATIC_DIR.rglob("*")
    if path.suffix in {".html", ".js", ".css", ".svg"}
)
CONTENT_TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml"}


class Page(HTMLParser):
    """The src/href URLs of a page, and whether it has inline script or style."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.inline: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        self.urls += [value for name, value in attrs if name in ("src", "href") and value and value[0] != "#"]
        if "style" in named or any(name.startswith("on") for name in named) or tag == "style":
            self.inline.append(tag)
        self._in_script = tag == "script" and "src" not in named

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.inline.append("script")


def test_index_is_served_at_the_root_with_the_policy(client):
    response = client.get("/")
    assert response.status_code == 200 and response.mimetype == "text/html"
    assert response.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert "no-cache" in response.headers["Cache-Control"]
    assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_index_references_only_local_assets_and_has_nothing_inline(client):
    page = Page()
    page.feed(client.get("/").get_data(as_text=True))
    assert page.urls and page.inline == []
    for url in page.urls:
        assert url.startswith("/web/"), url
        assert client.get(url).status_code == 200, url


@pytest.mark.parametrize("filename", STATIC_FILES)
def test_every_static_file_is_served_with_its_type_and_the_policy(client, filename):
    response = client.get(f"/web/{filename}")
    assert response.status_code == 200
    assert response.mimetype == CONTENT_TYPES[filename[filename.rindex(".") :]]
    assert response.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert client.get(f"/web/{filename}", headers={"If-None-Match": response.headers["ETag"]}).status_code == 304


@pytest.mark.parametrize("filename", [name for name in STATIC_FILES if name.endswith(".js")])
def test_every_module_opens_with_a_comment_and_imports_only_local_modules(filename):
    source = (STATIC_DIR / filename).read_text()
    assert source.startswith("// "), filename
    for target in re.findall(r'^import .*? from "([^"]+)";$', source, re.MULTILINE):
        assert target.startswith("./") or target.startswith("../"), (filename, target)


@pytest.mark.parametrize("path", ["/web/__init__.py", "/web/nope.js", "/web/../__init__.py", "/web/js/"])
def test_anything_else_is_a_problem_404(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response.mimetype == "application/problem+json"


def test_the_api_keeps_its_own_headers(client):
    # only the default of service/api/hooks/security_headers.py: no framing, nothing of the client's policy
    assert client.get("/v1/games").headers["Content-Security-Policy"] == "frame-ancestors 'none'"


@pytest.mark.parametrize("messages", sorted((STATIC_DIR / "js" / "messages").glob("*.js")), ids=lambda path: path.stem)
def test_every_problem_code_has_a_message_in_every_language(messages):
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    codes = set(spec["components"]["schemas"]["ProblemCode"]["enum"])
    keys = set(re.findall(r'^  "problem\.(\w+)":', messages.read_text(), re.MULTILINE))
    assert codes <= keys, sorted(codes - keys)


def test_favicon_ico_leads_to_the_clients_icon(client):
    # Swagger UI's page at /docs links no icon, so browsers ask for /favicon.ico: no 404.
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response.headers["Location"] == "/web/img/favicon.svg"
    icon = client.get(response.headers["Location"])
    assert icon.status_code == 200 and icon.mimetype == "image/svg+xml"


def test_the_service_worker_is_served_at_the_root_for_the_whole_site(client):
    response = client.get("/service-worker.js?lang=fr")
    assert response.status_code == 200 and response.mimetype == "text/javascript"
    assert response.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert response.headers["Service-Worker-Allowed"] == "/" and "no-cache" in response.headers["Cache-Control"]
    for target in re.findall(r'^import .*? from "\./([^"]+)";$', response.get_data(as_text=True), re.MULTILINE):
        assert client.get(f"/{target}").status_code == 200, target  # its imports, relative to where it is served
