"""Input only one database minds (U+0000, which PostgreSQL cannot store) and malformed ids and entity
tags: refused alike on SQLite and PostgreSQL, before any query, never with a 500."""

from __future__ import annotations

import base64
import io
import re

import pytest
from flask import Flask
from hypothesis import given
from hypothesis import strategies as st

from service.api.hooks.guards import ENTITY_TAGS_PATTERN, GAME_ID_PATTERN
from service.api.resources.events.routes import last_event_id
from service.api.resources.events.schemas import MAX_EVENT_ID
from service.games.ids import BOT_PLAYER_IDS, is_game_id, new_game_id

NUL = "\x00"
MISSING = "0" * 26  # a well-formed id of no game


def _b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def _open_game(client) -> str:
    response = client.post("/v1/games", json={"seats": [{"name": "Ana"}, None, None]})
    assert response.status_code == 201
    return response.json["id"]


BODIES = [
    ({"seats": [{"name": f"A{NUL}"}, None, None]}, "seats"),
    ({"seats": [{"bot": "basic", "name": f"Robo{NUL}"}, None, None]}, "seats"),
    ({"seed": f"s{NUL}"}, "seed"),
    ({f"x{NUL}": 1}, f"x{NUL}"),
]


@pytest.mark.parametrize(("body", "field"), BODIES)
def test_nul_in_a_create_body_is_a_validation_error(client, body, field):
    response = client.post("/v1/games", json=body)
    assert response.status_code == 422, response.json
    assert response.json["code"] == "validation_error" and field in response.json["errors"]


def test_nul_in_a_joining_name_is_a_validation_error(client):
    game_id = _open_game(client)
    response = client.post(f"/v1/games/{game_id}/players", json={"name": f"Bo{NUL}"})
    assert response.status_code == 422 and response.json["errors"] == {
        "name": ["Must not contain U+0000: a control character."]  # the rule for names (service.names)
    }


@pytest.mark.parametrize("path", ["/v1/games", "/v1/games/{id}/tricks", "/v1/games/{id}/actions"])
@pytest.mark.parametrize("cursor", [f"a{NUL}", _b64(f"g:{NUL}x"), _b64("t:²"), _b64("a:²"), _b64(f"t:1{NUL}")])
def test_bad_cursors_are_refused(client, path, cursor):
    game_id = _open_game(client)
    response = client.get(path.format(id=game_id), query_string={"cursor": cursor})
    assert response.status_code in (400, 422), response.json
    assert response.json["code"] in ("invalid_cursor", "validation_error")


RANDOM_BOT = BOT_PLAYER_IDS["random"]


@pytest.mark.parametrize(
    ("path", "text"),
    [
        *(("/v1/games/{id}/actions", f"a:{n}") for n in (2**31, 2**63, 10**30)),
        *(("/v1/games/{id}/tricks", f"t:{n}") for n in (2**31, 2**63, 10**30)),
        # times a UTC comparison cannot take: a year 0 and a year 10000 in UTC
        (f"/v1/players/{RANDOM_BOT}/ratings", "r:0001-01-01T00:00:00+23:59|abc"),
        (f"/v1/players/{RANDOM_BOT}/ratings", "r:9999-12-31T23:59:59-23:59|abc"),
        ("/v1/leaderboard", f"l:{2**31}|25.0|abc"),
        ("/v1/leaderboard?provisional=true", f"u:{2**63}|25.0|abc"),
    ],
)
def test_a_cursor_past_what_its_column_holds_is_refused(client, path, text):
    """Positions are INTEGER columns (32 bits on PostgreSQL, 64 on SQLite): a larger number was never
    issued, and comparing with it is the database's error, not an empty page."""
    url = path.format(id=_open_game(client))
    response = client.get(f"{url}{'&' if '?' in url else '?'}cursor={_b64(text)}")
    assert response.status_code == 400, response.json
    assert response.json["code"] == "invalid_cursor"


@pytest.mark.parametrize("query", [{"status": f"playing{NUL}"}, {"limit": f"1{NUL}"}])
def test_nul_in_a_query_is_a_validation_error(client, query):
    assert client.get("/v1/games", query_string=query).json["code"] == "validation_error"


@pytest.mark.parametrize(
    "suffix", ["", "/scores", "/hand", "/hands", "/plays", "/players", "/tricks", "/actions", "/hint", "/events"]
)
@pytest.mark.parametrize("game_id", [f"a{NUL}b", "0" * 25 + "%00", "x" * 300, "0" * 25 + "I", "0" * 27, "é" * 26])
def test_a_malformed_game_id_is_no_game(client, suffix, game_id):
    method = client.post if suffix in ("/hands", "/plays", "/players") else client.get
    response = method(f"/v1/games/{game_id}{suffix}", json={} if method == client.post else None)
    assert response.status_code == 404, response.json
    assert response.json["code"] == "game_not_found"


@pytest.mark.parametrize("name", ["If-Match", "If-None-Match"])
@pytest.mark.parametrize("value", [f'"7{NUL}"', "7", '"7', '"a b"', '"' + "7" * 1100 + '"', '"1",,"2"', "\t"])
def test_junk_entity_tags_are_a_validation_error(client, new_table, name, value):
    table = new_table()
    method = table.client.post if name == "If-Match" else table.client.get
    path = f"/v1/games/{table.id}/hands" if name == "If-Match" else f"/v1/games/{table.id}"
    response = method(path, headers={**table.auth(0), name: value})
    assert response.status_code == 422, response.json
    assert list(response.json["errors"]) == [name]


@pytest.mark.parametrize("value", ['"1"', "*", 'W/"1", "2"', '"1" ,\t"2"', '""', ""])
def test_well_formed_entity_tags_are_taken(client, new_table, value):
    table = new_table()
    response = table.client.get(f"/v1/games/{table.id}", headers={"If-None-Match": value})
    assert response.status_code in (200, 304)


def test_an_empty_if_match_counts_as_absent(client, new_table):
    table = new_table(first_dealer=0)
    response = table.client.post(f"/v1/games/{table.id}/hands", headers={**table.auth(0), "If-Match": ""})
    assert response.status_code == 201, response.json


def _chunked(client, body: bytes):
    """A POST /v1/games whose body comes without Content-Length, as a chunked one does."""
    environ = {"wsgi.input": io.BytesIO(body), "wsgi.input_terminated": True, "CONTENT_TYPE": "application/json"}
    return client.post("/v1/games", environ_overrides={**environ, "HTTP_TRANSFER_ENCODING": "chunked"})


def test_a_chunked_body_over_the_limit_is_413(app, client):
    limit = app.config["MAX_CONTENT_LENGTH"]
    padded = b'{"seed": "' + b"s" * (limit - 12) + b'"}'
    assert len(padded) == limit
    assert _chunked(client, padded).json["code"] == "validation_error"  # at the limit: read and parsed
    response = _chunked(client, padded + b" ")
    assert response.status_code == 413 and response.json["code"] == "payload_too_large"
    assert _chunked(client, b'{"target_score": 10}').status_code == 201


@pytest.mark.parametrize("value", ["²", "1" * 11, f"1{NUL}", "-1", "{}"])
def test_a_last_event_id_that_is_no_id_is_a_bad_request(client, value):
    game_id = _open_game(client)
    for accept in ("text/event-stream", "application/json"):
        headers = {"Accept": accept, "Last-Event-ID": value}
        response = client.get(f"/v1/games/{game_id}/events", headers=headers)
        assert response.status_code == 400 and response.json["code"] == "bad_request"


@pytest.mark.parametrize("value", [str(2**31), "9" * 10])
def test_a_last_event_id_past_what_the_id_column_holds_is_past_every_event(client, value):
    """The spec lets it have ten digits: one past the largest id is no malformed header but the
    largest id, past every event, so the stream is refused as resuming after no event of the feed
    (a long poll resumes by `after` alone), and the database is never asked for a number its column
    cannot hold."""
    assert last_event_id_of(value) == MAX_EVENT_ID
    game_id = _open_game(client)
    for accept, status in (("application/json", 200), ("text/event-stream", 400)):
        headers = {"Accept": accept, "Last-Event-ID": value}
        response = client.get(f"/v1/games/{game_id}/events?wait=0", headers=headers)
        assert response.status_code == status, response.json
        assert status == 200 or response.json["code"] == "unknown_event_id"


def last_event_id_of(value: str) -> int | None:
    with Flask(__name__).test_request_context(headers={"Last-Event-ID": value}):
        return last_event_id()


def test_nul_in_a_token_is_just_an_invalid_token(client, new_table):
    table = new_table()
    response = client.get(f"/v1/games/{table.id}/hand", headers={"Authorization": f"Bearer x{NUL}"})
    assert response.status_code == 401 and response.json["code"] == "invalid_token"


@given(st.text(alphabet="0123456789abcdefghijklmnopqrstuvwxyzABC\x00", max_size=30))
def test_the_game_id_pattern_is_is_game_id(text):
    assert bool(re.fullmatch(GAME_ID_PATTERN, text)) == is_game_id(text)


def test_new_ids_match_the_pattern():
    assert all(re.fullmatch(GAME_ID_PATTERN, new_game_id()) for _ in range(100))


def test_the_spec_states_every_pattern(app):
    spec = app.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec.to_dict()
    assert spec["components"]["parameters"]["IfMatch"]["schema"]["pattern"] == ENTITY_TAGS_PATTERN
    for path, operations in spec["paths"].items():
        for parameter in operations.get("parameters", []):
            if parameter.get("name") == "game_id":
                assert parameter["schema"]["pattern"] == GAME_ID_PATTERN, path


def _strings(schema: dict, spec: dict, where: str):
    """Every string property of a request schema, with where it is (following $refs)."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        yield from _strings(spec["components"]["schemas"][name], spec, name)
        return
    for key in ("anyOf", "oneOf", "allOf"):
        for part in schema.get(key, []):
            yield from _strings(part, spec, where)
    if "items" in schema:
        yield from _strings(schema["items"], spec, where)
    for name, prop in schema.get("properties", {}).items():
        types = prop.get("type")
        if types == "string" or (isinstance(types, list) and "string" in types):
            yield f"{where}.{name}", prop
        yield from _strings(prop, spec, f"{where}.{name}")


def test_every_request_string_refuses_nul(app):
    """A string a client sends is an enum (or a const) or carries a pattern that excludes U+0000 (Text fields)."""
    spec = app.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec.to_dict()
    found = []
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method == "parameters":
                continue
            for parameter in operation.get("parameters", []):
                if "schema" in parameter and parameter["in"] == "query":
                    found.append((f"{method} {path} ?{parameter['name']}", parameter["schema"]))
            for content in operation.get("requestBody", {}).get("content", {}).values():
                found.extend(
                    (f"{method} {path} {where}", prop) for where, prop in _strings(content["schema"], spec, "")
                )
    strings = [(where, prop) for where, prop in found if "string" in str(prop.get("type")) or "$ref" in prop]
    assert strings
    for where, prop in strings:
        fixed = "enum" in prop or "const" in prop  # one of the values listed (`const: null`: null only)
        if prop.get("type") in ("string", ["string", "null"]) and not fixed and "$ref" not in prop:
            assert "pattern" in prop, f"{where}: a free-text request string without the NUL-excluding pattern"


@pytest.mark.parametrize("body", [{"seat": 1}, {"": None}, [], "deal"])
def test_a_body_for_an_operation_that_takes_none_is_refused_and_changes_nothing(client, new_table, body):
    table = new_table(first_dealer=0)
    response = table.client.post(f"/v1/games/{table.id}/hands", json=body, headers=table.auth(0))
    assert response.status_code == 422 and response.json["code"] == "validation_error", response.json
    expected = (
        {str(name): ["Unknown field."] for name in body}
        if isinstance(body, dict)
        else {"_schema": ["Invalid input type."]}
    )
    assert response.json["errors"] == expected
    game = table.client.get(f"/v1/games/{table.id}").json
    assert (game["status"], game["hand_number"], game["version"]) == ("waiting_for_deal", 0, 1)


def test_a_malformed_body_for_an_operation_that_takes_none_is_malformed_json(client, new_table):
    table = new_table(first_dealer=0)
    headers = {**table.auth(0), "Content-Type": "application/json"}
    response = table.client.post(f"/v1/games/{table.id}/hands", data=b"{bad", headers=headers)
    assert response.status_code == 400 and response.json["code"] == "malformed_json"


@pytest.mark.parametrize("body", [None, {}])
def test_no_body_or_an_empty_object_is_taken_by_an_operation_that_takes_none(client, new_table, body):
    table = new_table(first_dealer=0)
    response = table.client.post(f"/v1/games/{table.id}/hands", json=body, headers=table.auth(0))
    assert response.status_code == 201, response.json


def test_a_key_replacement_with_a_field_is_refused_and_the_key_keeps_working(client):
    key = client.post("/v1/players", json={"name": "Ana"}).json["key"]
    headers = {"Authorization": f"Bearer {key}"}
    response = client.post("/v1/players/me/key", json={"key": "mine"}, headers=headers)
    assert response.status_code == 422 and response.json["errors"] == {"key": ["Unknown field."]}
    assert client.get("/v1/players/me", headers=headers).status_code == 200


def test_a_keyed_retry_with_a_body_is_the_keys_reuse_as_for_any_operation(client, new_table):
    """The body of an operation that takes none is refused where another's would be parsed: after the
    key's checks, so that the same key with another request is ``idempotency_key_reused`` here too."""
    table = new_table(first_dealer=0)
    headers = {**table.auth(0), "Idempotency-Key": "deal-once"}
    first = table.client.post(f"/v1/games/{table.id}/hands", headers=headers)
    assert first.status_code == 201, first.json
    reused = table.client.post(f"/v1/games/{table.id}/hands", json={"note": "another request"}, headers=headers)
    assert reused.status_code == 422 and reused.json["code"] == "idempotency_key_reused", reused.json
    fresh = {**table.auth(1), "Idempotency-Key": "fresh"}  # a new key: the body is refused for what it is
    refused = table.client.post(f"/v1/games/{table.id}/hands", json={"note": 1}, headers=fresh)
    assert refused.status_code == 422 and refused.json["code"] == "validation_error", refused.json
