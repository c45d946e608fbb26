"""Webhooks end to end: made with a secret shown once, kept encrypted, deliveries signed (checked with
the ``standardwebhooks`` package), retried, removed by ``410``, disabled after 3 days of failures,
and refused at delivery when the name's answer turns private."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient
from standardwebhooks import Webhook as Verifier

from service import DELIVERER_EXTENSION
from service.games.player_events import MatchFoundEvent, encode_player_event
from service.players.accounts import Operators
from service.store import GameStore
from tests.support.players import Player, new_player
from tests.support.webhook_receiver import HOST, Receiver
from tests.support.working_client import keep_up
from tests.webhooks.conftest import Names


@pytest.fixture
def clock(app: Flask) -> list[datetime]:
    """The service's clock, moved on by the test (``clock[0] += …``)."""
    games = app.extensions["coins.games"]
    now = [games.clock()]
    games.clock = lambda: now[0]
    return now


def create(client: FlaskClient, player: Player, url: str, **body: Any) -> Any:
    return client.post("/v1/players/me/webhooks", json={"url": url, **body}, headers=player.auth)


def tell(app: Flask, player: Player, ticket: str = "t1") -> None:
    """A player event appended to ``player``'s feed (quick play's, the shortest to make)."""
    store: GameStore = app.extensions["coins.games"].store
    now = app.extensions["coins.games"].clock()
    store.append_player_events([encode_player_event(player.id, MatchFoundEvent(ticket=ticket, game="g" * 26), now)])


def rows(app: Flask, table: str) -> list[dict[str, Any]]:
    with app.extensions["coins.db"].transaction(write=False) as connection:
        return [dict(row._mapping) for row in connection.execute(sa.text(f"SELECT * FROM {table}"))]


def listed(client: FlaskClient, player: Player) -> list[dict[str, Any]]:
    response = client.get("/v1/players/me/webhooks", headers=player.auth)
    assert response.status_code == 200, response.json
    return response.json["items"]  # type: ignore[no-any-return]


def test_made_listed_deleted_and_the_secret_shown_once_and_kept_encrypted(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names
) -> None:
    ana = new_player(client)
    made = create(client, ana, hook_receiver.url, types=["your_turn", "game_result"])
    assert made.status_code == 201, made.json
    assert made.json["secret"].startswith("whsec_") and made.json["enabled"] is True
    assert made.json["types"] == ["your_turn", "game_result"] and made.json["url"] == hook_receiver.url
    default = create(client, ana, hook_receiver.url)
    assert default.json["types"] == ["your_turn", "match_found", "challenge_received", "rematch_offered", "game_result"]
    items = listed(client, ana)
    assert [item["id"] for item in items] == [made.json["id"], default.json["id"]]
    assert all("secret" not in item for item in items)
    stored = rows(app, "webhooks")
    assert made.json["secret"] not in json.dumps(stored, default=str)  # encrypted at rest, never hashed away
    assert client.get("/v1/players/me/webhooks", headers=new_player(client, "Bo").auth).json["items"] == []
    assert client.delete(f"/v1/players/me/webhooks/{made.json['id']}", headers=ana.auth).status_code == 204
    again = client.delete(f"/v1/players/me/webhooks/{made.json['id']}", headers=ana.auth)
    assert again.status_code == 404 and again.json["code"] == "webhook_not_found"
    assert client.delete("/v1/players/me/webhooks/nope", headers=ana.auth).json["code"] == "webhook_not_found"
    assert client.get("/v1/players/me/webhooks").json["code"] == "missing_token"


def test_the_secret_is_not_stored_by_caches_and_the_list_is_private(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names
) -> None:
    ana = new_player(client)
    made = create(client, ana, hook_receiver.url)
    assert made.status_code == 201 and made.headers["Cache-Control"] == "no-store"
    replay = {"Idempotency-Key": "once"}
    first = client.post("/v1/players/me/webhooks", json={"url": hook_receiver.url}, headers={**ana.auth, **replay})
    again = client.post("/v1/players/me/webhooks", json={"url": hook_receiver.url}, headers={**ana.auth, **replay})
    assert again.json["secret"] == first.json["secret"] and again.headers["Cache-Control"] == "no-store"
    listed = client.get("/v1/players/me/webhooks", headers=ana.auth)
    assert listed.headers["Cache-Control"] == "private, no-cache" and listed.headers["Vary"] == "Authorization"


@pytest.mark.parametrize(
    ("url", "answers"),
    [
        ("http://hooks.test/hook", ["127.0.0.1"]),
        ("https://private.test/hook", ["10.0.0.7"]),
        ("https://metadata.test/hook", ["169.254.169.254"]),
        ("https://relay.test/hook", ["192.88.99.1"]),
        ("https://nowhere.test/hook", None),
    ],
)
def test_refused_urls_are_a_problem_and_store_nothing(
    app: Flask, client: FlaskClient, names: Names, url: str, answers: list[str] | None
) -> None:
    if answers is not None:
        names.table[url.split("/")[2]] = answers
    ana = new_player(client)
    refused = create(client, ana, url)
    assert refused.status_code == 422 and refused.json["code"] == "webhook_url_refused", refused.json
    assert refused.headers["Content-Type"] == "application/problem+json"
    assert rows(app, "webhooks") == []


def test_a_refusal_does_not_tell_an_internal_name_from_an_unknown_one(
    app: Flask, client: FlaskClient, names: Names
) -> None:
    names.table["postgres"] = ["172.18.0.3"]
    ana = new_player(client)
    internal = create(client, ana, "https://postgres/hook")
    unknown = create(client, ana, "https://no-such-name/hook")
    assert internal.status_code == unknown.status_code == 422
    assert internal.json["code"] == unknown.json["code"] == "webhook_url_refused"
    assert internal.json["detail"] == unknown.json["detail"] and "172.18" not in internal.json["detail"]


def test_a_url_that_is_not_ascii_is_refused_and_its_percent_encoded_form_delivered(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names
) -> None:
    ana = new_player(client)
    for url in (f"{hook_receiver.url}/h\u00e9", f"{hook_receiver.url}?q=\u2713", "https://h\u00e9.test/hook"):
        refused = create(client, ana, url)
        assert refused.status_code == 422 and refused.json["code"] == "webhook_url_refused", refused.json
    assert rows(app, "webhooks") == []
    assert create(client, ana, f"{hook_receiver.url}/h%C3%A9").status_code == 201
    tell(app, ana)
    keep_up(app)
    assert [got.path for got in hook_receiver.received] == ["/hook/h%C3%A9"]


def test_eleven_webhooks_are_one_too_many(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names
) -> None:
    ana = new_player(client)
    for _ in range(10):
        assert create(client, ana, hook_receiver.url).status_code == 201
    refused = create(client, ana, hook_receiver.url)
    assert refused.status_code == 409 and refused.json["code"] == "too_many_webhooks"
    assert len(rows(app, "webhooks")) == 10
    bad = client.post("/v1/players/me/webhooks", json={"url": hook_receiver.url, "types": ["cards"]}, headers=ana.auth)
    assert bad.status_code == 422 and bad.json["code"] == "validation_error"


def test_a_delivery_is_the_feed_event_signed_as_standard_webhooks_says(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names
) -> None:
    ana = new_player(client)
    secret = create(client, ana, hook_receiver.url).json["secret"]
    create(client, new_player(client, "Bo"), hook_receiver.url, types=["your_turn"])  # not this type: nothing
    tell(app, ana)
    keep_up(app)
    assert len(hook_receiver.received) == 1
    got = hook_receiver.received[0]
    assert got.path == "/hook" and got.headers["host"] == f"{HOST}:{hook_receiver.port}"
    assert got.headers["content-type"] == "application/json"
    event = Verifier(secret).verify(got.body, got.headers)
    assert event["type"] == "match_found" and event["ticket"] == "t1" and event["id"] == 1
    feed = client.get("/v1/players/me/events?after=0", headers=ana.auth).json["items"]
    assert feed == [event]  # the same JSON as the feed
    with pytest.raises(Exception, match="signature"):
        Verifier("whsec_" + "A" * 43 + "=").verify(got.body, got.headers)
    assert rows(app, "webhook_deliveries") == []
    keep_up(app)
    assert len(hook_receiver.received) == 1  # delivered once


def test_a_game_change_queues_deliveries_the_worker_sends(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names
) -> None:
    keys = [new_player(client, name) for name in ("Ana", "Bo", "Cy")]
    secret = create(client, keys[0], hook_receiver.url, types=["your_turn", "game_started"]).json["secret"]
    created = client.post("/v1/games", json={"seats": [{"player": "me"}, None, None]}, headers=keys[0].auth)
    for seat in (1, 2):
        client.post(f"/v1/games/{created.json['id']}/players", json={"player": "me"}, headers=keys[seat].auth)
    keep_up(app)
    kinds = [Verifier(secret).verify(got.body, got.headers)["type"] for got in hook_receiver.received]
    assert "game_started" in kinds


def test_a_challenger_hears_of_a_declined_challenge_by_webhook(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names
) -> None:
    """``game_cancelled`` is a player-feed type, so a webhook takes it (contract 1.3): a challenger's
    backend learns that the challenge was declined without following the feed."""
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    secret = create(client, ana, hook_receiver.url, types=["game_cancelled"]).json["secret"]
    seats = [{"player": "me"}, {"player": bo.id}, {"bot": "basic"}]
    game = client.post("/v1/games", json={"seats": seats}, headers=ana.auth).json
    assert client.delete(f"/v1/games/{game['id']}/players/me", headers=bo.auth).status_code == 204
    keep_up(app)
    [got] = hook_receiver.received
    event = Verifier(secret).verify(got.body, got.headers)
    assert (event["type"], event["game"], event["seat"], event["reason"]) == (
        "game_cancelled",
        game["id"],
        0,
        "declined",
    )


def test_failures_are_retried_later_and_410_removes_the_webhook(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names, clock: list[datetime]
) -> None:
    ana = new_player(client)
    made = create(client, ana, hook_receiver.url).json
    hook_receiver.answers += [500, 503]
    tell(app, ana)
    keep_up(app)
    assert len(hook_receiver.received) == 1
    keep_up(app)
    assert len(hook_receiver.received) == 1  # not due yet
    clock[0] += timedelta(seconds=5)
    keep_up(app)
    assert len(hook_receiver.received) == 2
    clock[0] += timedelta(seconds=30)
    keep_up(app)
    assert len(hook_receiver.received) == 3  # the 204
    ids = {got.headers["webhook-id"] for got in hook_receiver.received}
    assert len(ids) == 1  # every try of one event is one message
    assert rows(app, "webhook_deliveries") == [] and rows(app, "webhooks")[0]["failing_since"] is None
    hook_receiver.answers.append(410)
    tell(app, ana, "t2")
    keep_up(app)
    assert listed(client, ana) == [] and rows(app, "webhook_deliveries") == []
    assert made["id"] not in json.dumps(rows(app, "webhooks"))


def test_three_days_of_failures_disable_the_webhook(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names, clock: list[datetime]
) -> None:
    ana = new_player(client)
    create(client, ana, hook_receiver.url)
    hook_receiver.answers += [500] * 100
    tell(app, ana)
    tries = 0
    for _ in range(40):  # an hour at a time: every retry falls due, for more than a day
        keep_up(app)
        tries = len(hook_receiver.received)
        clock[0] += timedelta(hours=1)
    assert tries >= 8 and rows(app, "webhook_deliveries") == []  # given up after some 25 hours
    assert listed(client, ana)[0]["enabled"] is True
    clock[0] += timedelta(days=2)
    tell(app, ana, "t2")
    keep_up(app)
    assert len(hook_receiver.received) == tries + 1
    assert listed(client, ana)[0]["enabled"] is False
    tell(app, ana, "t3")
    keep_up(app)
    assert len(hook_receiver.received) == tries + 1 and rows(app, "webhook_deliveries") == []


def test_a_name_that_turns_private_after_creation_is_refused_at_delivery(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names, clock: list[datetime]
) -> None:
    ana = new_player(client)
    create(client, ana, hook_receiver.url)
    names.table[HOST] = ["10.0.0.9"]  # the DNS answer changes after the check at creation
    tell(app, ana)
    keep_up(app)
    assert hook_receiver.received == []
    [owed] = rows(app, "webhook_deliveries")
    assert owed["attempts"] == 1  # a failure, tried again later
    names.table[HOST] = ["127.0.0.1"]
    clock[0] += timedelta(seconds=5)
    keep_up(app)
    assert len(hook_receiver.received) == 1


def test_a_deleted_account_loses_its_webhooks(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names
) -> None:
    ana = new_player(client)
    create(client, ana, hook_receiver.url)
    assert client.delete("/v1/players/me", headers=ana.auth).status_code == 204
    assert rows(app, "webhooks") == []


@pytest.mark.parametrize("how", ["replaced", "revoked", "issued"])
def test_a_key_that_stops_takes_the_webhooks_it_made_with_it(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names, how: str
) -> None:
    """A leaked key's holder may have made a webhook: once the key is replaced (or an operator revokes
    it or issues another), none of its deliveries (a ``your_turn`` carries the hand) go anywhere."""
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    create(client, ana, hook_receiver.url)
    create(client, bo, hook_receiver.url)
    if how == "replaced":
        replaced = client.post("/v1/players/me/key", headers=ana.auth)
        assert replaced.status_code == 200, replaced.json
        assert listed(client, Player(ana.id, ana.name, replaced.json["key"])) == []
    else:
        games = app.extensions["coins.games"]
        operators = Operators(games, games.clock)
        act = operators.revoke_key if how == "revoked" else operators.issue_key
        act(ana.id, operator="ops", reason="key posted in a forum")
    assert [row["player_id"] for row in rows(app, "webhooks")] == [bo.id]  # another player's stay
    tell(app, ana)
    keep_up(app)
    assert hook_receiver.received == []


def test_a_keyed_create_runs_once_and_its_retry_gets_the_same_answer(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names
) -> None:
    ana = new_player(client)
    headers = {**ana.auth, "Idempotency-Key": "hook-1"}
    first = client.post("/v1/players/me/webhooks", json={"url": hook_receiver.url}, headers=headers)
    again = client.post("/v1/players/me/webhooks", json={"url": hook_receiver.url}, headers=headers)
    assert first.status_code == again.status_code == 201, first.json
    assert again.json == first.json and again.headers["Idempotent-Replayed"] == "true"
    assert len(rows(app, "webhooks")) == 1


def test_a_kept_connection_is_not_used_once_the_name_turns_private(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names
) -> None:
    ana = new_player(client)
    create(client, ana, hook_receiver.url)
    tell(app, ana, "t1")
    keep_up(app)
    assert (len(hook_receiver.received), hook_receiver.connections) == (1, 1)  # its connection kept
    names.table[HOST] = ["10.0.0.9"]  # the answer turns private: the kept connection goes unused
    tell(app, ana, "t2")
    keep_up(app)
    assert len(hook_receiver.received) == 1 and rows(app, "webhook_deliveries")[0]["attempts"] == 1


def test_one_batch_settles_each_delivery_by_its_own_answer(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names
) -> None:
    players = [new_player(client, name) for name in ("Ana", "Bo", "Cy", "Di")]
    for player in players:
        create(client, player, hook_receiver.url)
    hook_receiver.answers += [500]  # one of the four fails; the others are delivered
    for player in players:
        tell(app, player)
    keep_up(app)
    assert len(hook_receiver.received) == 4
    [owed] = rows(app, "webhook_deliveries")
    assert owed["attempts"] == 1
    failing = [hook for hook in rows(app, "webhooks") if hook["failing_since"] is not None]
    assert [hook["id"] for hook in failing] == [owed["webhook_id"]]


def test_a_success_makes_what_the_webhook_still_owes_due_at_once(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names, clock: list[datetime]
) -> None:
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    create(client, ana, hook_receiver.url)
    create(client, bo, hook_receiver.url)
    hook_receiver.answers += [503, 503, 503]  # the receiver is down for the first tries
    tell(app, ana, "t1")
    keep_up(app)
    clock[0] += timedelta(seconds=5)
    keep_up(app)
    tell(app, bo, "b1")
    keep_up(app)  # Bo's first try fails too: his webhook's own retry stays where it was
    assert len(hook_receiver.received) == 3 and len(rows(app, "webhook_deliveries")) == 2
    tell(app, ana, "t2")  # the receiver is back: t2's first try succeeds, and t1's retry (30 s away) is due now
    keep_up(app)
    keep_up(app)
    tickets = [json.loads(got.body)["ticket"] for got in hook_receiver.received]
    assert tickets == ["t1", "t1", "b1", "t2", "t1"]
    [owed] = rows(app, "webhook_deliveries")
    assert owed["attempts"] == 1  # Bo's, still at its retry's time (another webhook's success says nothing of his)


def test_a_receiver_that_answers_late_holds_up_no_other_delivery(
    app: Flask, client: FlaskClient, hook_receiver: Receiver, names: Names
) -> None:
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    create(client, ana, hook_receiver.url.removesuffix("/hook") + "/slow")
    create(client, bo, hook_receiver.url)
    answer = hook_receiver.held["/slow"] = threading.Event()
    deliverer = app.extensions[DELIVERER_EXTENSION].webhooks
    tell(app, ana)
    tell(app, bo)
    assert deliverer.deliver_due(datetime.now(UTC), 0.2) == 2  # returns though Ana's receiver has not answered
    deliver_until(lambda: len(rows(app, "webhook_deliveries")) == 1, deliverer)  # Bo's is delivered meanwhile
    assert sorted(got.path for got in hook_receiver.received) == ["/hook", "/slow"] and deliverer.in_flight == 1
    tell(app, bo, "t2")
    deliver_until(lambda: len(hook_receiver.received) == 3 and len(rows(app, "webhook_deliveries")) == 1, deliverer)
    assert deliverer.in_flight == 1  # Ana's, still in flight: Bo's next was delivered meanwhile
    answer.set()
    deliver_until(lambda: deliverer.in_flight == 0, deliverer)  # a later call writes the late answer's outcome
    assert rows(app, "webhook_deliveries") == []


def deliver_until(done: Callable[[], bool], deliverer: Any, seconds: float = 10.0) -> None:
    """Calls of ``deliverer.deliver_due`` (0.2 s of patience each) until ``done()``, ``seconds`` at most."""
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        deliverer.deliver_due(datetime.now(UTC), 0.2)
    assert done()
