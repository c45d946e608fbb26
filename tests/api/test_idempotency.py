"""Idempotency-Key on every POST: replays, reuse, races, scopes, failures and expiry, on both databases."""

from __future__ import annotations

import threading
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask

SEATS = [{"name": "Ana", "age": 41}, {"name": "Bo", "age": 35}, {"name": "Cy", "age": 29}]


def key() -> dict[str, str]:
    return {"Idempotency-Key": str(uuid.uuid4())}


def actions(client, game_id: str) -> list[dict]:
    response = client.get(f"/v1/games/{game_id}/actions?limit=100")
    assert response.status_code == 200, response.json
    return response.json["items"]  # type: ignore[no-any-return]


def test_a_retried_create_gets_the_first_response_and_creates_one_game(client):
    headers = key()
    first = client.post("/v1/games", json={"seats": SEATS}, headers=headers)
    again = client.post("/v1/games", json={"seats": SEATS}, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.data == first.data  # the same body, tokens included
    assert again.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first.headers
    for name in ("ETag", "Location", "Content-Type"):
        assert again.headers[name] == first.headers[name]
    assert len(client.get("/v1/games").json["items"]) == 1


def test_a_retried_play_is_applied_once(client, new_table):
    table = new_table(seed="idem", first_dealer=0)
    table.deal(0)
    seat = table.state()["turn"]
    card = table.hand(seat)[0]
    headers = key()
    first = table.play(seat, card, **headers)
    again = table.play(seat, card, **headers)
    assert first.status_code == again.status_code == 201
    assert again.json == first.json and again.headers["ETag"] == first.headers["ETag"]
    plays = [a for a in actions(table.client, table.id) if a["kind"] == "play"]
    assert len(plays) == 1


def test_the_same_key_for_another_body_is_refused(client, new_table):
    table = new_table(seed="idem", first_dealer=0)
    table.deal(0)
    seat = table.state()["turn"]
    first, second = table.hand(seat)[:2]
    headers = key()
    assert table.play(seat, first, **headers).status_code == 201
    reused = table.play(seat, second, **headers)
    assert reused.status_code == 422
    assert reused.json["code"] == "idempotency_key_reused"
    assert reused.content_type == "application/problem+json"
    other_path = table.client.post("/v1/games", json={"card": first}, headers=headers)  # another caller: own scope
    assert other_path.status_code == 422 and other_path.json["code"] == "validation_error"


def test_a_retry_refused_before_its_first_write_still_gets_the_key_s_answer(client, new_table):
    """A unit claims its key at its first write: a request refused before it (a body that does not
    validate, a token no longer valid) is still answered from the key's row when there is one."""
    headers = key()
    created = client.post("/v1/games", json={"seats": SEATS}, headers=headers)
    assert created.status_code == 201
    other = client.post("/v1/games", json={"seats": SEATS, "note": 1}, headers=headers)
    assert other.status_code == 422 and other.json["code"] == "idempotency_key_reused"
    fresh = client.post("/v1/games", json={"seats": SEATS, "note": 1}, headers=key())
    assert fresh.status_code == 422 and fresh.json["code"] == "validation_error"


def test_a_refusal_is_kept_and_replayed(client, new_table):
    table = new_table(seed="idem", first_dealer=0)
    table.deal(0)
    seat = (table.state()["turn"] + 1) % 3
    card = table.hand(seat)[0]
    headers = key()
    first = table.play(seat, card, **headers)
    assert first.status_code == 409 and first.json["code"] == "not_your_turn"
    again = table.play(seat, card, **headers)
    assert again.status_code == 409 and again.data == first.data
    assert again.headers["Idempotent-Replayed"] == "true"


def test_callers_have_their_own_keys(client, new_table):
    table = new_table(seed="idem", first_dealer=0)
    table.deal(0)
    headers = key()
    seat = table.state()["turn"]
    assert table.play(seat, table.hand(seat)[0], **headers).status_code == 201
    following = table.state()["turn"]
    second = table.play(following, table.hand(following)[0], **headers)  # same key, another token
    assert second.status_code == 201 and "Idempotent-Replayed" not in second.headers
    from_elsewhere = client.post("/v1/games", json={"seats": SEATS}, headers=headers)  # no token: the address
    assert from_elsewhere.status_code == 201


@pytest.mark.parametrize("value", ["", "x" * 256, "caf\u00e9", "tab\there"])
def test_a_key_must_be_printable_ascii_of_1_to_255(client, value):
    response = client.post("/v1/games", json={}, headers={"Idempotency-Key": value})
    assert response.status_code == 400, response.json
    assert response.json["code"] == "bad_request"
    assert client.get("/v1/games").json["items"] == []


def test_a_failed_first_request_releases_its_key(app: Flask, client, monkeypatch):
    service = app.extensions["coins.games"]
    real = service.create

    def broken(request, *, uow):
        raise RuntimeError("boom")

    monkeypatch.setattr(service, "create", broken)
    headers = key()
    assert client.post("/v1/games", json={"seats": SEATS}, headers=headers).status_code == 500
    monkeypatch.setattr(service, "create", real)
    retry = client.post("/v1/games", json={"seats": SEATS}, headers=headers)
    assert retry.status_code == 201 and "Idempotent-Replayed" not in retry.headers


def test_a_commit_that_fails_answers_503_and_applies_nothing(client, monkeypatch):
    """The database goes away at the commit: the client is told so (not 201), nothing is there, and
    the retry with the same key runs afresh."""
    from service.store import DatabaseUnavailable, WriteTransaction

    def lost(self: WriteTransaction) -> None:
        self.rollback()
        raise DatabaseUnavailable("the connection was lost at COMMIT")

    monkeypatch.setattr(WriteTransaction, "commit", lost)
    headers = key()
    failed = client.post("/v1/games", json={"seats": SEATS}, headers=headers)
    assert failed.status_code == 503 and failed.json["code"] == "database_unavailable"
    monkeypatch.undo()
    assert client.get("/v1/games").json["items"] == []
    retry = client.post("/v1/games", json={"seats": SEATS}, headers=headers)
    assert retry.status_code == 201 and "Idempotent-Replayed" not in retry.headers
    assert len(client.get("/v1/games").json["items"]) == 1


def _held_create(app: Flask, monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, threading.Event]:
    """createGame made to wait inside its unit of work once it has written (holding its key, which
    a unit claims before its first write): ``entered`` once it is there, and it goes on to its
    commit once the test sets ``release``."""
    service = app.extensions["coins.games"]
    real = service.create
    entered, release = threading.Event(), threading.Event()

    def slow(request, *, key=None, address=None, uow):
        created = real(request, key=key, address=address, uow=uow)
        entered.set()
        assert release.wait(10)
        return created

    monkeypatch.setattr(service, "create", slow)
    return entered, release


def test_a_key_in_use_is_409_and_nothing_runs_twice(app: Flask, client, monkeypatch):
    """On PostgreSQL; on SQLite the retry waits for the first (next test)."""
    if app.extensions["coins.games"].store.db.is_sqlite:
        pytest.skip("PostgreSQL's advisory lock: SQLite's writers take turns instead")
    entered, release = _held_create(app, monkeypatch)
    headers = key()
    results: list[int] = []
    first = threading.Thread(
        target=lambda: results.append(app.test_client().post("/v1/games", json={}, headers=headers).status_code)
    )
    first.start()
    assert entered.wait(10)
    busy = client.post("/v1/games", json={}, headers=headers)
    release.set()
    first.join(10)
    assert busy.status_code == 409 and busy.json["code"] == "idempotency_key_in_use"
    assert results == [201]
    assert len(client.get("/v1/games").json["items"]) == 1


def test_on_sqlite_a_retry_waits_for_the_first_then_gets_its_answer(app: Flask, monkeypatch):
    if not app.extensions["coins.games"].store.db.is_sqlite:
        pytest.skip("SQLite: PostgreSQL answers 409 at once (test above)")
    entered, release = _held_create(app, monkeypatch)
    headers = key()
    answers: dict[str, Any] = {}

    def post(name: str) -> None:
        answers[name] = app.test_client().post("/v1/games", json={}, headers=headers)

    first = threading.Thread(target=post, args=("first",))
    first.start()
    assert entered.wait(10)
    retry = threading.Thread(target=post, args=("retry",))
    retry.start()
    retry.join(0.5)
    assert retry.is_alive()  # waiting for the write lock the first request holds
    release.set()
    first.join(10), retry.join(30)
    assert answers["first"].status_code == answers["retry"].status_code == 201
    assert answers["retry"].headers["Idempotent-Replayed"] == "true"
    assert answers["retry"].json == answers["first"].json
    assert len(app.test_client().get("/v1/games").json["items"]) == 1


def test_simultaneous_identical_plays_apply_once(app: Flask, new_table):
    table = new_table(seed="idem", first_dealer=0)
    table.deal(0)
    seat = table.state()["turn"]
    card = table.hand(seat)[0]
    headers = {**table.auth(seat), **key()}
    barrier = threading.Barrier(8)
    responses: list = [None] * 8

    def run(index: int) -> None:
        client = app.test_client()
        barrier.wait(10)
        responses[index] = client.post(f"/v1/games/{table.id}/plays", json={"card": card}, headers=headers)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    statuses = [r.status_code for r in responses]
    assert set(statuses) <= {201, 409}, statuses
    fresh = [r for r in responses if r.status_code == 201 and "Idempotent-Replayed" not in r.headers]
    assert len(fresh) == 1, statuses
    for response in responses:
        if response.status_code == 409:
            assert response.json["code"] == "idempotency_key_in_use"
        else:
            assert response.json == fresh[0].json
    assert len([a for a in actions(table.client, table.id) if a["kind"] == "play"]) == 1


def test_keys_expire(app: Flask, client):
    keys = app.extensions["coins.games"].keys
    now = datetime.now(UTC)
    headers = key()
    first = client.post("/v1/games", json={}, headers=headers)
    keys.clock = lambda: now + timedelta(hours=24, seconds=1)
    assert keys.purge() == 1
    again = client.post("/v1/games", json={}, headers=headers)
    assert again.status_code == 201 and again.json["id"] != first.json["id"]


def test_an_expired_key_not_yet_purged_runs_afresh(app: Flask, client):
    keys = app.extensions["coins.games"].keys
    now = datetime.now(UTC)
    headers = key()
    first = client.post("/v1/games", json={}, headers=headers)
    keys.clock = lambda: now + timedelta(hours=25)
    again = client.post("/v1/games", json={}, headers=headers)
    assert "Idempotent-Replayed" not in again.headers and again.json["id"] != first.json["id"]


def test_the_table_holds_no_token(app: Flask, client):
    from sqlalchemy import text

    response = client.post("/v1/games", json={"seats": SEATS}, headers=key())
    tokens = [c["token"].encode() for c in response.json["credentials"]]
    db = app.extensions["coins.db"]
    with db.engine.connect() as connection:
        rows = connection.execute(text("SELECT scope, key, response FROM idempotency_keys")).all()
    assert len(rows) == 1
    stored = b"".join(bytes(row.response) + row.scope.encode() + row.key.encode() for row in rows)
    assert not any(token in stored for token in tokens)
    assert response.json["id"].encode() not in stored  # sealed


def test_every_post_documents_the_key_and_the_replay(app: Flask):
    spec = app.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec.to_dict()
    posts = [(path, item["post"]) for path, item in spec["paths"].items() if "post" in item]
    assert posts
    for path, operation in posts:
        refs = [p.get("$ref") for p in operation.get("parameters", [])]
        assert "#/components/parameters/IdempotencyKey" in refs, path
        success = [r for status, r in operation["responses"].items() if status.startswith("2")]
        assert all("Idempotent-Replayed" in r.get("headers", {}) for r in success), path
        assert "idempotency_key_in_use" in operation["responses"]["409"]["description"], path
        assert "idempotency_key_reused" in operation["responses"]["422"]["description"], path


def test_every_post_view_runs_in_a_unit_of_work(app: Flask):
    """Each POST view is wrapped in ``@idempotent``: a view without it would ignore the key."""
    posts = [
        view.view_class
        for rule in app.url_map.iter_rules()
        if "POST" in (rule.methods or ()) and hasattr(view := app.view_functions[rule.endpoint], "view_class")
    ]
    assert len(posts) >= 6
    for view_class in posts:
        assert getattr(view_class.post, "idempotent", False), view_class.__name__
