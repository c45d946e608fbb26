"""The shipped proxy configuration (deploy/haproxy.cfg): valid, its error pages problem+json with the
service's security headers, the client's own X-Forwarded-For replaced, a feed's request passed to the
real-time role with no header added but X-Forwarded-For, a feed its client closed let go at once;
docker-compose.yml puts it in front."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml

from service.api.hooks.security_headers import DEFAULT_CSP, SECURITY_HEADERS
from tests.support.server import HOST
from tests.support.sse import EventStream
from tests.support.topology import ROOT, SHIPPED_CONFIG, behind_haproxy, haproxy_binary, realtime, service, timed

ERRORFILE = re.compile(r"^\s*errorfile\s+(\d{3})\s+(\S+)", re.MULTILINE)
PROBLEM_CODES = set(yaml.safe_load((ROOT / "openapi.yaml").read_text())["components"]["schemas"]["ProblemCode"]["enum"])


def errorfiles() -> dict[int, Path]:
    return {int(status): SHIPPED_CONFIG.parent / path for status, path in ERRORFILE.findall(SHIPPED_CONFIG.read_text())}


def parse(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = raw.partition(b"\r\n\r\n")
    status_line, *lines = head.decode().split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines)
    return int(status_line.split()[1]), {name.lower(): value for name, value in headers.items()}, body


def check_error_page(status: int, headers: dict[str, str], body: bytes) -> None:
    for name, value in {**SECURITY_HEADERS, "Content-Security-Policy": DEFAULT_CSP}.items():
        assert headers.get(name.lower()) == value, (status, name)
    assert headers["content-type"] == "application/problem+json"
    problem = json.loads(body)
    assert problem["status"] == status and problem["code"] in PROBLEM_CODES
    assert problem["type"] == f"urn:coins:problem:{problem['code']}" and problem["title"] and problem["detail"]


def test_every_error_page_the_proxy_sends_is_a_problem_with_the_security_headers():
    pages = errorfiles()
    assert {400, 408, 429, 500, 502, 503, 504} <= set(pages)
    for status, path in pages.items():
        code, headers, body = parse(path.read_bytes())
        assert code == status and int(headers["content-length"]) == len(body), path
        check_error_page(status, headers, body)
    assert parse(pages[429].read_bytes())[1]["retry-after"] == "10"  # the rate's window
    assert json.loads(parse(pages[429].read_bytes())[2])["code"] == "too_many_requests"


@pytest.mark.parametrize(
    "directive",
    [
        "tcp-request connection reject if { sc_conn_cur(0) gt",
        "http-request deny deny_status 429 if { sc_http_req_rate(0) gt",
        "store conn_cur,http_req_rate(10s)",
        "option http-buffer-request",
        "timeout http-request 10s",
        "http-request del-header X-Forwarded-For",
        "option forwardfor",
        'maxconn "${COINS_WEB_MAXCONN-',
        'maxconn "${COINS_REALTIME_MAXCONN-',
        "use_backend realtime if feed",
        "timeout tunnel",
        "option abortonclose",
    ],
)
def test_the_configuration_has(directive: str):
    assert directive in SHIPPED_CONFIG.read_text()


def test_the_stream_timeouts_outlast_the_heartbeat():
    text = SHIPPED_CONFIG.read_text()
    for name in ("client", "server"):
        seconds = int(re.search(rf"timeout {name} (\d+)s", text).group(1))  # type: ignore[union-attr]
        assert seconds > 15, name  # STREAM_HEARTBEAT_SECONDS' default


def test_docker_compose_publishes_only_the_proxy_and_the_roles_trust_one_hop():
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    published = [name for name, spec in services.items() if spec.get("ports")]
    assert published == ["proxy"]
    for role in ("web", "realtime"):
        assert services[role]["environment"]["TRUSTED_PROXY_HOPS"] == "1", role
    assert services["realtime"]["command"] == ["coins-realtime"]
    proxy = services["proxy"]["environment"]
    assert proxy["COINS_WEB"] == "web:8000" and proxy["COINS_REALTIME"] == "realtime:8000"
    assert any("deploy" in volume for volume in services["proxy"]["volumes"])


@pytest.mark.parametrize(
    ("path", "backend"),
    [
        ("/v1/games/01m8xb9jm6kd10w7d0rj1sf3zc/events", "realtime"),
        ("/v1/players/me/events", "realtime"),
        ("/v1/games/01m8xb9jm6kd10w7d0rj1sf3zc", "web"),
        ("/v1/games/01m8xb9jm6kd10w7d0rj1sf3zc/events/x", "web"),
        ("/v1/players/01m8xb9jm6kd10w7d0rj1sf3zc/events", "web"),
        ("/", "web"),
    ],
)
def test_the_feeds_and_only_they_go_to_the_real_time_role(path: str, backend: str):
    [pattern] = re.findall(r"acl feed path_reg (\S+)", SHIPPED_CONFIG.read_text())
    assert (re.fullmatch(pattern.strip("^$"), path) is not None) == (backend == "realtime")


def test_haproxy_accepts_the_shipped_file():
    binary = haproxy_binary()
    if binary is None:
        pytest.skip("HAProxy is not installed")
    env = {**os.environ, "COINS_PROXY_BIND": f"{HOST}:1", "COINS_WEB": f"{HOST}:2", "COINS_REALTIME": f"{HOST}:3"}
    checked = subprocess.run([binary, "-c", "-f", str(SHIPPED_CONFIG)], env=env, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr


class _Recorder(BaseHTTPRequestHandler):
    """A stand-in for a role: 200 to every request; the header names of each request, by path."""

    heads: ClassVar[dict[str, list[str]]] = {}

    def do_GET(self) -> None:
        self.heads[self.path] = [name.lower() for name in self.headers]
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def test_a_feed_reaches_the_real_time_role_with_the_client_headers_and_x_forwarded_for_only(tmp_path):
    """The role keeps a request's headers for as long as its stream lasts: the proxy adds the client's
    address, and not the "Connection: close" of http-server-close (option http-pretend-keepalive)."""
    binary = haproxy_binary()
    if binary is None:
        pytest.skip("HAProxy is not installed")
    roles = [ThreadingHTTPServer((HOST, 0), _Recorder) for _ in range(2)]
    for role in roles:
        threading.Thread(target=role.serve_forever, daemon=True).start()
    web, feeds = (role.server_address[1] for role in roles)
    try:
        with behind_haproxy(binary, [web], [feeds], tmp_path) as proxy:
            answer = timed(proxy.port, "GET", "/v1/games/x/events")
    finally:
        for role in roles:
            role.shutdown()
            role.server_close()
    assert answer.status == 200
    assert sorted(_Recorder.heads["/v1/games/x/events"]) == ["accept", "accept-encoding", "host", "x-forwarded-for"]


@pytest.mark.slow
def test_through_the_proxy_a_forged_forwarded_for_is_replaced(database_url, tmp_path):
    binary = haproxy_binary()
    if binary is None:
        pytest.skip("HAProxy is not installed")
    env = {"TRUSTED_PROXY_HOPS": "1", "LOG_LEVEL": "INFO", "WEB_CONCURRENCY": "1"}
    with (
        service(database_url, tmp_path, **env) as app,
        realtime(database_url, tmp_path, **env) as feeds,
        behind_haproxy(binary, [app.port], [feeds.port], tmp_path) as proxy,
        socket.create_connection((HOST, proxy.port), timeout=10) as sock,
    ):
        sock.sendall(b"GET /v1/games/forged HTTP/1.1\r\nHost: coins\r\nX-Forwarded-For: 203.0.113.9\r\n\r\n")
        assert b" 404 " in sock.recv(65536)
    [line] = [line for line in app.log.read_text().splitlines() if "/v1/games/<game_id>" in line]
    assert json.loads(line)["remote_addr"] == "127.0.0.1"  # the proxy's view of the client, not the forged one


STREAMS_PER_TOKEN = 5  # the real-time role's share of one token (its default, set here explicitly)
REOPEN_SECONDS = 1.0  # a closed feed's share is free at once; before, the proxy held it 15 s (a stream) or 30 s
PROBE_SECONDS = 0.05  # between two attempts: 20 a second, far under the proxy's 1,000 requests in 10 s


def _reopened_after(port: int, game_id: str, token: str) -> float | None:
    """Seconds until a stream of ``token`` opens (each refusal a 429), or None if none does within REOPEN_SECONDS."""
    started = time.monotonic()
    for _ in range(round(REOPEN_SECONDS / PROBE_SECONDS) + 1):
        with EventStream(port, game_id, token=token, timeout=5) as stream:
            if stream.status == 200:
                return time.monotonic() - started
            assert stream.status == 429 and b'"too_many_requests"' in stream.body, (stream.status, stream.body)
        if time.monotonic() - started >= REOPEN_SECONDS:
            return None
        time.sleep(PROBE_SECONDS)
    return None


@pytest.mark.slow
def test_through_the_proxy_a_closed_stream_or_long_poll_gives_its_share_back_at_once(database_url, tmp_path):
    """A client holds its token's 5 streams through the proxy, closes them, and opens a new one at once;
    the same with 5 long polls (wait=30). HAProxy used to keep a request whose client had gone until its
    next write to it failed: the role's heartbeat 15 s later, the long poll's answer 30 s later."""
    binary = haproxy_binary()
    if binary is None:
        pytest.skip("HAProxy is not installed")
    env = {"TRUSTED_PROXY_HOPS": "1", "WEB_CONCURRENCY": "1", "RATE_LIMITS": "on"}
    env["STREAMS_PER_TOKEN"] = str(STREAMS_PER_TOKEN)
    with (
        service(database_url, tmp_path, **env) as app,
        realtime(database_url, tmp_path, **env) as feeds,
        behind_haproxy(binary, [app.port], [feeds.port], tmp_path) as proxy,
    ):
        created = timed(proxy.port, "POST", "/v1/games", {"seats": [{"name": "Ana"}, {"name": "Bea"}, None]}).body
        game_id = created["id"]
        streaming, polling = (credential["token"] for credential in created["credentials"][:2])

        held = [EventStream(proxy.port, game_id, token=streaming, timeout=5) for _ in range(STREAMS_PER_TOKEN)]
        assert [stream.status for stream in held] == [200] * STREAMS_PER_TOKEN
        with EventStream(proxy.port, game_id, token=streaming, timeout=5) as refused:
            assert refused.status == 429  # the share is full
        for stream in held:
            stream.close()
        assert _reopened_after(proxy.port, game_id, streaming) is not None, "a closed stream kept its share"

        last_id = timed(proxy.port, "GET", f"/v1/games/{game_id}/events", token=polling).body["last_id"]
        waiting = f"/v1/games/{game_id}/events?after={last_id}&wait=30"  # nothing comes: each waits 30 s
        polls = [
            EventStream(
                proxy.port, game_id, token=polling, timeout=5, path=waiting, headers={"Accept": "application/json"}
            )
            for _ in range(STREAMS_PER_TOKEN)
        ]
        assert [poll.status for poll in polls] == [200] * STREAMS_PER_TOKEN  # the answer's head comes at once
        with EventStream(proxy.port, game_id, token=polling, timeout=5) as refused:
            assert refused.status == 429
        for poll in polls:
            poll.close()
        assert _reopened_after(proxy.port, game_id, polling) is not None, "a closed long poll kept its share"
