"""Web Push end to end: a browser's subscription (a P-256 key pair and an auth secret made here),
the worker's message to a local push endpoint, decrypted with the subscription's private key
(RFC 8291) and its VAPID signature checked (RFC 8292); 404 and 410 remove; refusals store nothing."""

from __future__ import annotations

import base64
import json
import os
import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import http_ece
import pytest
import sqlalchemy as sa
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from flask import Flask
from flask.testing import FlaskClient
from py_vapid import Vapid02

from service import DELIVERER_EXTENSION, create_app
from service.api.context import PUSH_EXTENSION
from service.config import Settings
from service.push import b64url
from tests.support.players import Player, new_player
from tests.support.webhook_receiver import HOST, Received, Receiver
from tests.support.working_client import keep_up
from tests.webhooks.conftest import Names
from tests.webhooks.test_webhooks import clock, deliver_until, rows, tell

__all__ = ["clock"]


@dataclass
class Browser:
    """What a browser keeps of its subscription: the private key and the auth secret."""

    key: ec.EllipticCurvePrivateKey
    auth: bytes

    @classmethod
    def new(cls) -> Browser:
        return cls(ec.generate_private_key(ec.SECP256R1()), os.urandom(16))

    def subscription(self, endpoint: str, **extra: Any) -> dict[str, Any]:
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        keys = {"p256dh": b64url(point), "auth": b64url(self.auth)}
        return {"endpoint": endpoint, "expirationTime": None, "keys": keys, **extra}

    def read(self, got: Received) -> dict[str, Any]:
        plain = http_ece.decrypt(got.body, private_key=self.key, auth_secret=self.auth, version="aes128gcm")
        return json.loads(plain)  # type: ignore[no-any-return]


def subscribe(client: FlaskClient, player: Player, body: dict[str, Any]) -> Any:
    return client.post("/v1/players/me/push-subscriptions", json=body, headers=player.auth)


def claims(authorization: str) -> dict[str, Any]:
    token = authorization.split("t=", 1)[1].split(",", 1)[0]
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))  # type: ignore[no-any-return]


def test_a_your_turn_reaches_the_browser_encrypted_signed_and_without_cards(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names
) -> None:
    keys = [new_player(client, name) for name in ("Ana", "Bo", "Cy")]
    browsers = {}
    for seat, key in enumerate(keys):
        browsers[f"/hook/{seat}"] = browser = Browser.new()
        made = subscribe(client, key, browser.subscription(f"{hook_receiver.url}/{seat}", types=["your_turn"]))
        assert made.status_code == 201, made.json
        assert set(made.json) == {"id", "types", "created_at"} and made.json["types"] == ["your_turn"]
    created = client.post("/v1/games", json={"seats": [{"player": "me"}, None, None]}, headers=keys[0].auth)
    for seat in (1, 2):
        client.post(f"/v1/games/{created.json['id']}/players", json={"player": "me"}, headers=keys[seat].auth)
    keep_up(app)
    assert hook_receiver.received, "no push message arrived"
    got = hook_receiver.received[0]
    browser = browsers[got.path]
    assert got.headers["content-encoding"] == "aes128gcm" and got.headers["content-type"] == "application/octet-stream"
    assert int(got.headers["ttl"]) > 0 and got.headers["urgency"] == "high"
    message = browser.read(got)
    assert message["type"] == "your_turn" and message["game"] == created.json["id"]
    assert set(message) == {"type", "game", "turn_deadline"}  # never a card, never the state
    authorization = got.headers["authorization"]
    assert Vapid02.verify(authorization)
    public = client.get("/v1/push/key").json["public_key"]
    assert authorization.endswith(f"k={public}")
    assert claims(authorization)["aud"] == f"https://{HOST}:{hook_receiver.port}"
    assert claims(authorization)["sub"] == "mailto:coins@localhost"
    assert rows(app, "push_deliveries") == []


def test_keys_are_kept_sealed_and_the_same_endpoint_replaces_its_subscription(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names
) -> None:
    ana = new_player(client)
    browser = Browser.new()
    first = subscribe(client, ana, browser.subscription(hook_receiver.url)).json
    assert first["types"] == ["your_turn", "match_found", "challenge_received", "rematch_offered", "game_result"]
    again = subscribe(client, ana, browser.subscription(hook_receiver.url, types=["match_found"])).json
    [stored] = rows(app, "push_subscriptions")
    assert stored["id"] == again["id"] != first["id"]
    assert b64url(browser.auth) not in json.dumps(stored, default=str)  # the auth secret is sealed
    tell(app, ana)
    keep_up(app)
    [got] = hook_receiver.received
    assert browser.read(got) == {"type": "match_found", "game": "g" * 26, "turn_deadline": None}


@pytest.mark.parametrize("status", [404, 410])
def test_a_push_service_that_says_gone_removes_the_subscription(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names, status: int
) -> None:
    ana = new_player(client)
    subscribe(client, ana, Browser.new().subscription(hook_receiver.url))
    hook_receiver.answers.append(status)
    tell(app, ana)
    keep_up(app)
    assert len(hook_receiver.received) == 1
    assert rows(app, "push_subscriptions") == [] and rows(app, "push_deliveries") == []


def test_other_failures_are_retried_later(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names, clock: list[datetime]
) -> None:
    ana = new_player(client)
    browser = Browser.new()
    subscribe(client, ana, browser.subscription(hook_receiver.url))
    hook_receiver.answers += [500, 429]
    tell(app, ana)
    keep_up(app)
    keep_up(app)
    assert len(hook_receiver.received) == 1  # not due again yet
    clock[0] += timedelta(seconds=5)
    keep_up(app)
    clock[0] += timedelta(seconds=30)
    keep_up(app)
    assert len(hook_receiver.received) == 3
    assert all(browser.read(got)["type"] == "match_found" for got in hook_receiver.received)
    assert rows(app, "push_deliveries") == [] and len(rows(app, "push_subscriptions")) == 1


def test_a_name_that_turns_private_is_refused_at_delivery(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names
) -> None:
    ana = new_player(client)
    subscribe(client, ana, Browser.new().subscription(hook_receiver.url))
    names.table[HOST] = ["192.168.1.4"]
    tell(app, ana)
    keep_up(app)
    assert hook_receiver.received == []
    [owed] = rows(app, "push_deliveries")
    assert owed["attempts"] == 1


def _bad_keys(browser: Browser) -> list[tuple[dict[str, Any], str]]:
    good = browser.subscription("https://hooks.test/x")["keys"]
    return [
        ({**good, "auth": b64url(os.urandom(15))}, "push_subscription_invalid"),
        ({**good, "p256dh": b64url(b"\x04" + bytes(64))}, "push_subscription_invalid"),  # not on the curve
        ({**good, "p256dh": good["p256dh"][:40]}, "push_subscription_invalid"),
        ({**good, "auth": "not base64!"}, "push_subscription_invalid"),
        ({"p256dh": good["p256dh"]}, "validation_error"),
        ({**good, "auth": "A" * 300}, "validation_error"),  # oversized
        ({**good, "extra": "x"}, "validation_error"),
        ({**good, "auth": "AAAA\x00"}, "validation_error"),
    ]


@pytest.mark.parametrize("case", range(8))
def test_malformed_or_oversized_subscriptions_are_refused_and_store_nothing(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names, case: int
) -> None:
    browser = Browser.new()
    keys, code = _bad_keys(browser)[case]
    body = {**browser.subscription(hook_receiver.url), "keys": keys}
    refused = subscribe(client, new_player(client), body)
    assert refused.status_code == 422 and refused.json["code"] == code, refused.json
    assert refused.headers["Content-Type"] == "application/problem+json"
    assert rows(app, "push_subscriptions") == []


@pytest.mark.parametrize(
    ("endpoint", "answers"),
    [
        ("http://hooks.test/push", ["127.0.0.1"]),
        ("https://private.test/push", ["10.1.2.3"]),
        ("https://metadata.test/push", ["169.254.169.254"]),
        ("https://cgnat.test/push", ["100.64.0.1"]),
        ("https://sitelocal.test/push", ["fec0::1"]),
        ("https://hooks.test/push/\u00e9", ["127.0.0.1"]),
        ("https://nowhere.test/push", None),
        ("https://" + "a" * 2050 + ".test/", None),
    ],
)
def test_refused_endpoints_are_a_problem_and_store_nothing(
    app: Flask, client: FlaskClient, names: Names, endpoint: str, answers: list[str] | None
) -> None:
    if answers is not None:
        names.table[endpoint.split("/")[2]] = answers
    refused = subscribe(client, new_player(client), Browser.new().subscription(endpoint))
    assert refused.status_code == 422, refused.json
    assert refused.json["code"] in ("push_endpoint_refused", "validation_error")
    assert refused.json["code"] == "push_endpoint_refused" or len(endpoint) > 2048
    assert rows(app, "push_subscriptions") == []


def test_a_refused_endpoint_does_not_tell_an_internal_name_from_an_unknown_one(
    app: Flask, client: FlaskClient, names: Names
) -> None:
    names.table["postgres"] = ["172.18.0.3"]
    ana = new_player(client)
    internal = subscribe(client, ana, Browser.new().subscription("https://postgres/push"))
    unknown = subscribe(client, ana, Browser.new().subscription("https://no-such-name/push"))
    assert internal.status_code == unknown.status_code == 422
    assert internal.json["code"] == unknown.json["code"] == "push_endpoint_refused"
    assert internal.json["detail"] == unknown.json["detail"] and "172.18" not in internal.json["detail"]


def test_twenty_subscriptions_a_player_and_deleting_one(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names
) -> None:
    ana = new_player(client)
    made = [subscribe(client, ana, Browser.new().subscription(f"{hook_receiver.url}/{n}")) for n in range(20)]
    assert all(response.status_code == 201 for response in made)
    refused = subscribe(client, ana, Browser.new().subscription(f"{hook_receiver.url}/20"))
    assert refused.status_code == 409 and refused.json["code"] == "too_many_push_subscriptions"
    assert len(rows(app, "push_subscriptions")) == 20
    first = made[0].json["id"]
    other = client.delete(f"/v1/players/me/push-subscriptions/{first}", headers=new_player(client, "Bo").auth)
    assert other.status_code == 404 and other.json["code"] == "push_subscription_not_found"
    assert client.delete(f"/v1/players/me/push-subscriptions/{first}", headers=ana.auth).status_code == 204
    gone = client.delete(f"/v1/players/me/push-subscriptions/{first}", headers=ana.auth)
    assert gone.json["code"] == "push_subscription_not_found"
    assert subscribe(client, ana, Browser.new().subscription(f"{hook_receiver.url}/20")).status_code == 201
    unkeyed = client.post("/v1/players/me/push-subscriptions", json=Browser.new().subscription(hook_receiver.url))
    assert unkeyed.json["code"] == "missing_token"


def test_a_deleted_account_loses_its_subscriptions(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names
) -> None:
    ana = new_player(client)
    subscribe(client, ana, Browser.new().subscription(hook_receiver.url))
    assert client.delete("/v1/players/me", headers=ana.auth).status_code == 204
    assert rows(app, "push_subscriptions") == []


def test_a_replaced_key_takes_the_subscriptions_it_made_with_it(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names
) -> None:
    ana = new_player(client)
    subscribe(client, ana, Browser.new().subscription(hook_receiver.url))
    replaced = client.post("/v1/players/me/key", headers=ana.auth)
    assert replaced.status_code == 200, replaced.json
    assert rows(app, "push_subscriptions") == []
    again = subscribe(
        client, Player(ana.id, ana.name, replaced.json["key"]), Browser.new().subscription(hook_receiver.url)
    )
    assert again.status_code == 201, again.json


def test_the_vapid_key_is_made_once_though_many_processes_start_at_once(settings: Settings) -> None:
    apps = [create_app(settings) for _ in range(4)]
    start = threading.Barrier(len(apps))
    keys: list[str] = []

    def read(app: Flask) -> None:
        start.wait()
        keys.append(app.extensions[PUSH_EXTENSION].public_key())

    threads = [threading.Thread(target=read, args=(app,)) for app in apps]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert len(keys) == 4 and len(set(keys)) == 1
        assert base64.urlsafe_b64decode(keys[0] + "=")[0] == 4 and len(keys[0]) == 87
        with apps[0].extensions["coins.db"].transaction(write=False) as connection:
            kept = connection.execute(sa.text("SELECT value FROM service_secrets WHERE name = 'vapid_private_key'"))
            [value] = kept.scalars().all()
        assert value not in keys[0]
        assert apps[0].test_client().get("/v1/push/key").json == {"public_key": keys[0]}
    finally:
        for app in apps:
            app.extensions["coins.feed"].close()
            app.extensions["coins.db"].dispose()


def test_a_configured_vapid_key_is_used(database_url: str) -> None:
    private = ec.generate_private_key(ec.SECP256R1())
    raw = b64url(private.private_numbers().private_value.to_bytes(32, "big"))
    app = create_app(Settings(database_url=database_url, rate_limits="off", vapid_private_key=raw))
    try:
        point = private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        assert app.test_client().get("/v1/push/key").json == {"public_key": b64url(point)}
    finally:
        app.extensions["coins.feed"].close()
        app.extensions["coins.db"].dispose()


def test_a_push_service_that_answers_late_holds_up_no_other_message(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names
) -> None:
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    subscribe(client, ana, Browser.new().subscription(hook_receiver.url.removesuffix("/hook") + "/slow"))
    subscribe(client, bo, Browser.new().subscription(hook_receiver.url))
    answer = hook_receiver.held["/slow"] = threading.Event()
    deliverer = app.extensions[DELIVERER_EXTENSION].push
    tell(app, ana)
    tell(app, bo)
    assert deliverer.deliver_due(datetime.now(UTC), 0.2) == 2  # returns though Ana's push service has not answered
    deliver_until(lambda: len(rows(app, "push_deliveries")) == 1, deliverer)  # Bo's is delivered meanwhile
    assert sorted(got.path for got in hook_receiver.received) == ["/hook", "/slow"]
    answer.set()
    deliver_until(lambda: rows(app, "push_deliveries") == [], deliverer)  # a later call settles Ana's
