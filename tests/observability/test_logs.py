"""Access logs: one JSON line per request, with its id, and never a token or a card."""

from __future__ import annotations

import json
import logging
import sys
from dataclasses import replace
from typing import Any

import pytest

from service import create_app
from service.api.context import GAME_ID_PATTERN
from service.config import Settings
from service.engine import CARD_CODES
from service.observability import access
from service.observability.logs import JsonFormatter

ACCESS_LOGGER = "service.access"


@pytest.fixture
def settings(settings: Settings, request: pytest.FixtureRequest) -> Settings:
    """The shared settings, at the log level a test parametrizes (``indirect``), INFO otherwise."""
    return replace(settings, log_level=getattr(request, "param", "INFO"))


def access_lines(err: str) -> list[dict[str, Any]]:
    entries = [json.loads(line) for line in err.splitlines() if line.strip()]
    return [entry for entry in entries if entry["logger"] == ACCESS_LOGGER]


def test_a_request_logs_exactly_one_json_line_with_its_id(client, capsys):
    capsys.readouterr()
    response = client.get("/v1/games/nosuchgame")
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1, err
    entry = json.loads(lines[0])
    request_id = response.headers["X-Request-ID"]
    assert entry["request_id"] == request_id
    assert entry["logger"] == ACCESS_LOGGER and entry["level"] == "INFO"
    assert entry["method"] == "GET"
    assert entry["route"] == "/v1/games/<game_id>"
    assert entry["status"] == 404
    assert entry["game_id"] == "<malformed>"  # not an id's shape: not logged as sent
    assert entry["remote_addr"] == "127.0.0.1"
    assert isinstance(entry["duration_ms"], float) and entry["duration_ms"] >= 0


@pytest.mark.parametrize("suffix", ["", "/hand", "/events"])
def test_a_path_value_that_is_no_game_id_is_not_logged_as_sent(client, capsys, suffix):
    """A seat token sent as the game's id (a client's slip) must not reach the log; a well-formed id does."""
    token = client.post("/v1/games", json={"seats": [{"name": "Ana"}, None, None]}).json["credentials"][0]["token"]
    well_formed = "0" * 26  # no game's, of an id's shape
    capsys.readouterr()
    client.get(f"/v1/games/{token}{suffix}")
    client.get(f"/v1/games/{well_formed}{suffix}")
    err = capsys.readouterr().err
    assert token not in err
    assert [entry["game_id"] for entry in access_lines(err)] == ["<malformed>", well_formed]


def test_the_logged_id_shape_is_the_api_s():
    assert access._GAME_ID.pattern == GAME_ID_PATTERN[1:-1]


def test_created_game_is_logged_with_its_id(client, capsys):
    capsys.readouterr()
    response = client.post("/v1/games", json={})
    [entry] = access_lines(capsys.readouterr().err)
    assert entry["status"] == 201 and entry["route"] == "/v1/games"
    assert entry["game_id"] == response.json["id"]


@pytest.mark.parametrize(
    ("supplied", "kept"),
    [
        ("3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b", True),
        ("req_01HZX.abc:42", True),
        ("01HZX3F2A9C1E5B7D4E8F9A0B1", True),
        ("x" * 40, True),
        ("x" * 41, False),
        ("a/b+c=", False),
        ("-leading-dash", False),
        ("", False),
        ("has space", False),
        ('quote"inside', False),
        ("new\\nline", False),
        ("ümlaut", False),
    ],
)
def test_request_id_is_taken_from_the_client_only_when_sane(client, supplied, kept):
    response = client.get("/healthz", headers={"X-Request-ID": supplied})
    echoed = response.headers["X-Request-ID"]
    if kept:
        assert echoed == supplied
    else:
        assert echoed != supplied and len(echoed) == 32 and echoed.isalnum()


def test_each_request_gets_its_own_generated_id(client):
    ids = {client.get("/healthz").headers["X-Request-ID"] for _ in range(5)}
    assert len(ids) == 5


def test_a_token_sent_as_request_id_is_not_echoed_or_logged(new_table, client, capsys):
    table = new_table()
    token = table.tokens[0]
    capsys.readouterr()
    for request_id in (token, f"req-{token}"):
        response = client.get(f"/v1/games/{table.id}/hand", headers={**table.auth(0), "X-Request-ID": request_id})
        assert response.status_code == 200
        assert token not in response.headers["X-Request-ID"]
    assert token not in capsys.readouterr().err


def test_a_token_like_request_id_is_replaced_even_without_its_token(new_table, client, capsys):
    table = new_table()
    token = table.tokens[1]  # another seat's token, in the wrong header of a request without one
    capsys.readouterr()
    response = client.get(f"/v1/games/{table.id}", headers={"X-Request-ID": token})
    assert response.status_code == 200
    assert response.headers["X-Request-ID"] != token
    assert token not in capsys.readouterr().err


def test_an_idempotency_key_sent_as_request_id_is_not_logged(client, capsys):
    key = "3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b"
    response = client.post("/v1/games", json={}, headers={"Idempotency-Key": key, "X-Request-ID": key})
    assert response.status_code == 201
    assert response.headers["X-Request-ID"] != key
    assert key not in capsys.readouterr().err


@pytest.mark.parametrize("settings", ["INFO", "DEBUG"], indirect=True)
def test_a_short_request_id_is_kept_even_with_a_token(new_table, client):
    table = new_table()
    response = client.get(f"/v1/games/{table.id}/hand", headers={**table.auth(0), "X-Request-ID": "r1"})
    assert response.headers["X-Request-ID"] == "r1"


def test_a_long_game_id_from_the_path_is_not_logged(client, capsys):
    capsys.readouterr()
    client.get("/v1/games/" + "x" * 5000)
    [entry] = access_lines(capsys.readouterr().err)
    assert entry["game_id"] == "<malformed>"


def test_no_token_and_no_card_ever_reaches_the_log(new_table, client, capsys):
    table = new_table(seed="logs", first_dealer=0)
    capsys.readouterr()
    assert table.deal(0).status_code == 201
    hands = {seat: table.hand(seat) for seat in range(3)}
    for _ in range(6):  # two tricks, then some failures that echo a card in the problem detail
        seat = table.state()["turn"]
        assert table.play(seat, table.hand(seat)[-1]).status_code == 201
    seat = table.state()["turn"]
    table.play((seat + 1) % 3, hands[(seat + 1) % 3][0])  # not your turn
    table.play(seat, next(card for card in CARD_CODES if card not in table.hand(seat)))  # not in hand
    err = capsys.readouterr().err
    entries = access_lines(err)
    assert len(entries) >= 20
    assert {entry["game_id"] for entry in entries} == {table.id}
    for token in table.tokens.values():
        assert token not in err
    for card in CARD_CODES:
        assert card not in err
    assert "Bearer" not in err


def test_log_level_is_honoured(settings, capsys):
    level = logging.getLogger().level
    app = create_app(replace(settings, log_level="WARNING"))
    try:
        capsys.readouterr()
        app.test_client().get("/v1/games")
        assert capsys.readouterr().err == ""
        assert logging.getLogger().level == logging.WARNING
    finally:
        app.extensions["coins.db"].dispose()
        logging.getLogger().setLevel(level)


def test_create_app_twice_still_logs_one_line_per_request(settings, client, capsys):
    other = create_app(settings)
    try:
        capsys.readouterr()
        client.get("/healthz")
        other.test_client().get("/v1/games")
        assert len(access_lines(capsys.readouterr().err)) == 1  # /healthz is DEBUG, /v1/games INFO
    finally:
        other.extensions["coins.db"].dispose()


def test_records_logged_during_a_request_carry_its_id(app, client, capsys):
    @app.get("/boom")
    def boom() -> None:
        raise RuntimeError("boom")

    capsys.readouterr()
    response = client.get("/boom", headers={"X-Request-ID": "trace-me"})
    assert response.status_code == 500
    entries = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert [entry["request_id"] for entry in entries] == ["trace-me", "trace-me"]
    assert "RuntimeError: boom" in entries[0]["exception"]


def test_sql_parameters_are_redacted_from_exceptions():
    try:
        raise RuntimeError("(x) oops\n[SQL: UPDATE games SET state=?]\n[parameters: ('secret-hand',)]\n(Background)")
    except RuntimeError:
        record = logging.getLogger("t").makeRecord("t", logging.ERROR, __file__, 1, "failed", (), sys.exc_info())
    line = json.loads(JsonFormatter().format(record))
    assert "secret-hand" not in line["exception"]
    assert "[parameters: redacted]" in line["exception"] and "[SQL: UPDATE games SET state=?]" in line["exception"]


def test_uvicorns_coloured_copy_of_a_message_is_not_a_field():
    """uvicorn passes ``color_message`` (the message with terminal colour codes) with its records."""
    record = logging.getLogger("uvicorn.error").makeRecord(
        "uvicorn.error", logging.INFO, __file__, 1, "Started server process [%d]", (7,), None,
        extra={"color_message": "Started server process [\x1b[36m%d\x1b[0m]"},
    )  # fmt: skip
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "Started server process [7]" and "color_message" not in line
