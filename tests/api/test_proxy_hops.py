"""TRUSTED_PROXY_HOPS: whose address the service sees. With 0 a client's X-Forwarded-For changes
nothing (limits, idempotency keys and the access log see the socket's peer); with 1 they see the
address the proxy appended last, whatever the client wrote before it."""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Iterator

import pytest
from flask import Flask

from service import create_app
from service.api.hooks.limits import SHARED_LIMITS
from service.config import ConfigError, Settings

CREATIONS = int(SHARED_LIMITS["create"][0].split("/")[0])  # per address and minute
PROXY = "10.0.0.9"  # the socket's peer: the proxy


def app_with(settings: Settings, hops: int) -> Iterator[Flask]:
    app = create_app(dataclasses.replace(settings, rate_limits="on", trusted_proxy_hops=hops))
    yield app
    app.extensions["coins.db"].dispose()


@pytest.fixture
def direct(settings: Settings) -> Iterator[Flask]:
    yield from app_with(settings, 0)


@pytest.fixture
def proxied(settings: Settings) -> Iterator[Flask]:
    yield from app_with(settings, 1)


def create(app: Flask, forwarded_for: str | None, *, peer: str = PROXY, key: str | None = None) -> tuple[int, str]:
    headers = {} if forwarded_for is None else {"X-Forwarded-For": forwarded_for}
    if key:
        headers["Idempotency-Key"] = key
    response = app.test_client().post("/v1/games", json={}, headers=headers, environ_base={"REMOTE_ADDR": peer})
    return response.status_code, (response.json or {}).get("id", "")


@pytest.mark.parametrize("raw", ["-1", "6", "one", "1.5"])
def test_a_bad_number_of_hops_is_a_config_error(raw: str):
    with pytest.raises(ConfigError, match="TRUSTED_PROXY_HOPS"):
        Settings.from_env({"TRUSTED_PROXY_HOPS": raw})


def test_hops_default_to_none_and_read_from_the_environment():
    assert Settings().trusted_proxy_hops == 0
    assert Settings.from_env({"TRUSTED_PROXY_HOPS": " 2 "}).trusted_proxy_hops == 2


def test_without_trusted_hops_a_forged_forwarded_for_changes_nothing(direct: Flask):
    statuses = [create(direct, f"198.51.100.{index}")[0] for index in range(CREATIONS)]
    assert statuses == [201] * CREATIONS
    assert create(direct, "203.0.113.1")[0] == 429  # still counted as the socket's address
    assert create(direct, None)[0] == 429
    assert create(direct, None, peer="10.0.0.10")[0] == 201  # another socket address counts apart


def test_with_one_hop_the_last_forwarded_address_is_the_client(proxied: Flask):
    statuses = [create(proxied, f"198.51.100.{index}, 192.0.2.7")[0] for index in range(CREATIONS)]
    assert statuses == [201] * CREATIONS  # whatever the client wrote before the proxy's entry
    assert create(proxied, "192.0.2.7", peer="10.0.0.10")[0] == 429  # that client, through another proxy
    assert create(proxied, "192.0.2.8")[0] == 201  # another client behind the same proxy


def test_idempotency_keys_are_scoped_to_the_client_behind_the_proxy(direct: Flask, proxied: Flask):
    key = str(uuid.uuid4())
    first, second = create(proxied, "192.0.2.20", key=key), create(proxied, "192.0.2.21", key=key)
    assert first[0] == second[0] == 201 and first[1] != second[1]  # two clients: two games
    assert create(proxied, "192.0.2.20", key=key) == first  # the same client: its game again
    key = str(uuid.uuid4())
    assert create(direct, "192.0.2.20", key=key) == create(direct, "192.0.2.21", key=key)  # one address


@pytest.mark.parametrize(("hops", "logged"), [(0, PROXY), (1, "192.0.2.30")])
def test_the_access_log_names_the_client(settings: Settings, capsys: pytest.CaptureFixture[str], hops, logged):
    for app in app_with(dataclasses.replace(settings, log_level="INFO"), hops):
        capsys.readouterr()
        app.test_client().get(
            "/v1/games/nosuchgame", headers={"X-Forwarded-For": "192.0.2.30"}, environ_base={"REMOTE_ADDR": PROXY}
        )
        lines = [json.loads(line) for line in capsys.readouterr().err.splitlines() if line.strip()]
        [entry] = [line for line in lines if line["logger"] == "service.access"]
        assert entry["remote_addr"] == logged
