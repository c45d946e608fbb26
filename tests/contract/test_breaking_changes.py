""".ci/breaking_changes.mjs (docs/compatibility.md, "Released specs, and the check"): openapi.yaml breaks no client of the
latest released spec, and the check fails when a copy of the spec does, in the ways within v1 forbids."""

from __future__ import annotations

import copy
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / ".ci" / "breaking_changes.mjs"
RELEASED = ROOT / "openapi" / "1.2.0.yaml"
ACCEPTED = ROOT / "openapi" / "1.2.0-accepted.yaml"


@pytest.fixture(scope="module", autouse=True)
def node() -> None:
    if shutil.which("node") is None or not (ROOT / "node_modules" / "api-smart-diff").exists():
        if os.environ.get("COINS_REQUIRE_NODE"):
            pytest.fail("COINS_REQUIRE_NODE is set but node or node_modules/api-smart-diff is missing (npm ci)")
        pytest.skip("node or the npm packages (npm ci) are missing")


#: The operations the changes below touch: the spec is cut down to them, to compare faster.
OPERATIONS = (
    "/v1/games",
    "/v1/games/{game_id}",
    "/v1/games/{game_id}/actions",
    "/v1/games/{game_id}/events",
    "/v1/games/{game_id}/hint",
    "/v1/games/{game_id}/scores",
    "/v1/players/me/events",
    "/v1/queue/{ticket_id}",
)


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    document["paths"] = {path: document["paths"][path] for path in OPERATIONS}
    return document


def check(*arguments: Path | str) -> subprocess.CompletedProcess[str]:
    command = ["node", str(SCRIPT), *map(str, arguments)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT, check=False)


def test_the_spec_breaks_no_client_of_the_latest_release() -> None:
    """The default: openapi.yaml against the highest openapi/X.Y.Z.yaml and its accepted changes."""
    result = check()
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"against {RELEASED} (accepted: {ACCEPTED})" in result.stdout
    assert result.stdout.rstrip().endswith("no breaking change")


def test_without_its_accepted_changes_opening_the_responses_reads_as_breaking(tmp_path: Path) -> None:
    nothing = tmp_path / "nothing.yaml"
    nothing.write_text("released: 1.2.0\n")
    result = check(RELEASED, ROOT / "openapi.yaml", "--accepted", nothing)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "BREAKING remove paths//v1/games/{game_id}/get/responses/200/" in result.stdout


def test_an_accepted_change_that_was_not_made_is_refused(tmp_path: Path) -> None:
    accepted = yaml.safe_load(ACCEPTED.read_text())
    accepted["opened_objects"].append("CreateGame")  # a request: still closed
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text(yaml.safe_dump(accepted))
    result = check(RELEASED, ROOT / "openapi.yaml", "--accepted", wrong)
    assert result.returncode == 2 and "CreateGame is still closed" in result.stderr


def _schemas(spec: dict[str, Any]) -> dict[str, Any]:
    schemas: dict[str, Any] = spec["components"]["schemas"]
    return schemas


def _add_event(union: str, model: str, event_type: str) -> Callable[[dict[str, Any]], None]:
    def change(spec: dict[str, Any]) -> None:
        schemas = _schemas(spec)
        event = copy.deepcopy(schemas[model])
        event["properties"]["type"]["enum"] = [event_type]
        name = f"{event_type.title().replace('_', '')}Event"
        schemas[name] = event
        schemas[union]["oneOf"].append({"$ref": f"#/components/schemas/{name}"})
        schemas[union]["discriminator"]["mapping"][event_type] = f"#/components/schemas/{name}"
        _items(spec, union).insert(-1, {"$ref": f"#/components/schemas/{name}"})  # before the unlisted event

    return change


def _items(spec: dict[str, Any], union: str) -> list[dict[str, Any]]:
    """The forms of a feed's items: those of ``union``, then the unlisted event."""
    page = {"FeedEvent": "EventPage", "PlayerEvent": "PlayerEventPage"}[union]
    forms: list[dict[str, Any]] = _schemas(spec)[page]["properties"]["items"]["items"]["anyOf"]
    return forms


def _remove_event(union: str) -> Callable[[dict[str, Any]], None]:
    def change(spec: dict[str, Any]) -> None:
        removed = _schemas(spec)[union]["oneOf"].pop()
        _items(spec, union).remove(removed)

    return change


def _union_as_any_of(spec: dict[str, Any]) -> None:
    """The released form of the feeds' unions (up to 1.3.0): an anyOf of the same events."""
    for union in ("FeedEvent", "PlayerEvent"):
        _schemas(spec)[union]["anyOf"] = _schemas(spec)[union].pop("oneOf")


def _add_response_field(spec: dict[str, Any]) -> None:
    _schemas(spec)["Game"]["properties"]["turn_started_at"] = {"type": ["string", "null"], "format": "date-time"}
    _schemas(spec)["Game"]["required"].append("turn_started_at")


def _add_operation(spec: dict[str, Any]) -> None:
    responses = {"200": {"description": "The thing."}}
    spec["paths"]["/v1/things"] = {"get": {"operationId": "listThings", "summary": "x", "responses": responses}}


def _remove_response_field(spec: dict[str, Any]) -> None:
    game = _schemas(spec)["Game"]
    del game["properties"]["rematch"]
    game["required"].remove("rematch")


def _rename_response_field(spec: dict[str, Any]) -> None:
    ticket = _schemas(spec)["Ticket"]
    ticket["properties"]["state"] = ticket["properties"].pop("status")
    ticket["required"] = ["state" if name == "status" else name for name in ticket["required"]]


def _drop(name: str, value: str) -> Callable[[dict[str, Any]], None]:
    return lambda spec: _schemas(spec)[name]["enum"].remove(value)


def _pop(name: str, key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda spec: _schemas(spec)[name].__setitem__(key, value)


ADDITIONS = {
    "a game status": lambda spec: _schemas(spec)["GameStatus"]["enum"].append("cancelled"),
    "a problem code": lambda spec: _schemas(spec)["ProblemCode"]["enum"].append("seat_reserved"),
    "a cause of moves": lambda spec: _schemas(spec)["ActionCause"]["enum"].append("leave"),
    "a field of a game": _add_response_field,
    "an optional field of a request": lambda spec: _schemas(spec)["CreateGame"]["properties"].update(
        invitation_note={"type": "string", "maxLength": 200}
    ),
    "a type of game event": _add_event("FeedEvent", "RematchCreatedEvent", "game_cancelled"),
    "a type of player event": _add_event("PlayerEvent", "MatchFoundEvent", "challenge_received"),
    "an operation": _add_operation,
}

BREAKS = {
    "a field of a game removed": _remove_response_field,
    "a field of a ticket renamed": _rename_response_field,
    "a game status removed (a filter of listGames)": _drop("GameStatus", "finished"),
    "a problem code removed": _drop("ProblemCode", "not_your_turn"),
    "a ticket status removed (answers only)": _drop("TicketStatus", "expired"),
    "a type of game event removed": _remove_event("FeedEvent"),
    "a game closed again": _pop("Game", "additionalProperties", False),
    "a score's type changed": lambda spec: _schemas(spec)["Score"]["properties"].update(score={"type": "string"}),
    "a request field made required": _pop("CreateGame", "required", ["seed"]),
    "a bot strength removed (a request enum)": _drop("BotStrength", "random"),
    "an operation removed": lambda spec: spec["paths"].pop("/v1/games/{game_id}/scores"),
}


def _compare(
    spec: dict[str, Any], change: Callable[[dict[str, Any]], Any], tmp_path: Path
) -> subprocess.CompletedProcess[str]:
    changed = copy.deepcopy(spec)
    change(changed)
    before, after = tmp_path / "before.yaml", tmp_path / "after.yaml"
    before.write_text(yaml.safe_dump(spec))
    after.write_text(yaml.safe_dump(changed))
    nothing = tmp_path / "nothing.yaml"
    nothing.write_text("{}\n")
    return check(before, after, "--accepted", nothing)


@pytest.mark.parametrize("addition", sorted(ADDITIONS))
def test_what_v1_may_add_is_no_breaking_change(spec: dict[str, Any], addition: str, tmp_path: Path) -> None:
    result = _compare(spec, ADDITIONS[addition], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("change", sorted(BREAKS))
def test_what_v1_may_not_do_is_flagged(spec: dict[str, Any], change: str, tmp_path: Path) -> None:
    result = _compare(spec, BREAKS[change], tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "BREAKING " in result.stdout


def test_a_widened_path_parameter_must_still_take_every_value_it_took(tmp_path: Path) -> None:
    """openapi/1.2.0-accepted.yaml's widened_path_parameters: `player_id` takes `me` as well as an id;
    a pattern that no longer has the released one as an alternative is refused."""
    document: dict[str, Any] = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    [parameter] = document["paths"]["/v1/players/{player_id}/games"]["parameters"]
    assert parameter["schema"]["pattern"] == "^(?:me|[0-9a-hjkmnp-tv-z]{26})$"
    parameter["schema"]["pattern"] = "^(?:me|[0-9a-z]{20})$"
    narrowed = tmp_path / "narrowed.yaml"
    narrowed.write_text(yaml.safe_dump(document))
    result = check(RELEASED, narrowed)
    assert result.returncode == 2 and "player_id of /v1/players/{player_id}/games is not widened" in result.stderr


def test_a_response_union_made_one_of_from_any_of_is_no_breaking_change(spec: dict[str, Any], tmp_path: Path) -> None:
    """docs/compatibility.md, "Unions of responses": the same events, each with its own `type`."""
    released = copy.deepcopy(spec)
    _union_as_any_of(released)
    before, after, nothing = tmp_path / "before.yaml", tmp_path / "after.yaml", tmp_path / "nothing.yaml"
    before.write_text(yaml.safe_dump(released))
    after.write_text(yaml.safe_dump(spec))
    nothing.write_text("{}\n")
    result = check(before, after, "--accepted", nothing)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "FeedEvent: anyOf made oneOf in responses only" in result.stdout
