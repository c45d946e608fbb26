"""getRecord: a game's record over the API, which coins-verify checks from the record alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from service.verify import main as coins_verify
from tests.support.players import new_player


def play_to_end(table: Any, *, plays: int = 10_000) -> dict[str, Any]:
    """Deal and play each seat's first card until the game is over (or ``plays`` plays)."""
    state = table.state()
    for _ in range(plays):
        if state["status"] == "finished":
            break
        if state["status"] == "waiting_for_deal":
            assert table.deal(state["dealer"]).status_code == 201
        else:
            assert table.play(state["turn"], table.hand(state["turn"])[0]).status_code == 201
        state = table.state()
    return state


def verify(record: dict[str, Any], path: Path) -> int:
    """coins-verify's exit status for ``record`` written to ``path``."""
    path.write_text(json.dumps(record), encoding="utf-8")
    try:
        return coins_verify([str(path)])
    except SystemExit as exit:
        return int(exit.code or 0)


def download(client: Any, game_id: str, **headers: str) -> Any:
    return client.get(f"/v1/games/{game_id}/record", headers=headers)


def test_a_finished_games_record_verifies(client, new_table, tmp_path):
    table = new_table(target_score=5, seed="record")
    state = play_to_end(table)
    response = download(client, table.id)
    assert response.status_code == 200
    assert response.headers["ETag"] == f'"{table.id}.{state["version"]}"'
    record = response.json
    assert record["status"] == "finished" and record["winner"] == state["winner"]
    assert [seat["name"] for seat in record["seats"]] == ["Ana", "Bo", "Cy"]
    assert all(hand["over"] and "seed" in hand for hand in record["hands"])
    assert record["recorded_at"] == record["updated_at"]
    assert verify(record, tmp_path / "record.json") == 0


def test_a_tampered_record_fails(client, new_table, tmp_path):
    table = new_table(target_score=5, seed="tamper")
    play_to_end(table)
    record = download(client, table.id).json
    play = record["hands"][0]["plays"][0]
    others = [p["card"] for p in record["hands"][0]["plays"]]  # the card played too
    play["card"] = next(card for card in ("ace-coins", "2-cups", "7-swords") if card not in others)
    assert verify(record, tmp_path / "tampered.json") == 1
    record = download(client, table.id).json
    record["scores"][record["winner"]] += 1
    assert verify(record, tmp_path / "scores.json") == 1


def test_a_game_in_progress_shows_no_hidden_card(client, new_table, tmp_path):
    table = new_table(target_score=100, seed="progress")
    table.deal(0)
    for _ in range(5):  # a trick and two cards of the next
        turn = table.state()["turn"]
        assert table.play(turn, table.hand(turn)[0]).status_code == 201
    record = download(client, table.id).json
    text = json.dumps(record)
    held = {card for seat in range(3) for card in table.hand(seat)}
    assert len(held) == 48 - 5
    assert not any(f'"{card}"' in text for card in held)
    (hand,) = record["hands"]
    assert hand["over"] is False and "seed" not in hand and "scores_after" not in hand
    assert len(hand["plays"]) == 5 and len(hand["tricks"]) == 1
    assert verify(record, tmp_path / "progress.json") == 0


def test_a_game_with_open_seats_has_no_hands(client):
    game = client.post("/v1/games", json={"seats": [{"name": "Ana"}, None, None]}).json
    record = download(client, game["id"]).json
    assert record["hands"] == [] and record["status"] == "waiting_for_players"
    assert record["setup"]["first_dealer"] is None
    assert [seat["kind"] for seat in record["seats"]] == ["person", "open", "open"]


def test_a_cancelled_games_record_has_no_hands_and_verifies(client, tmp_path):
    """A game cancelled before it started (here a declined challenge) has a record like any other."""
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    game = client.post(
        "/v1/games", json={"seats": [{"player": "me"}, {"player": bo.id}, {"bot": "basic"}]}, headers=ana.auth
    ).json
    assert client.delete(f"/v1/games/{game['id']}/players/me", headers=bo.auth).status_code == 204
    response = download(client, game["id"])
    assert response.status_code == 200, response.json
    record = response.json
    assert record["status"] == "cancelled" and record["hands"] == [] and record["winner"] is None
    assert verify(record, tmp_path / "cancelled.json") == 0
    record["status"] = "finished"
    assert verify(record, tmp_path / "not-cancelled.json") == 1


def test_the_record_is_cached_by_the_games_version(client, new_table):
    table = new_table(seed="etag")
    etag = download(client, table.id).headers["ETag"]
    assert download(client, table.id, **{"If-None-Match": etag}).status_code == 304
    table.deal(0)
    changed = download(client, table.id, **{"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag


@pytest.mark.parametrize("game_id", ["nosuchgame", "01jf3v9k2m8q4r6t0w5x7y9z1a"])
def test_an_unknown_game_has_no_record(client, game_id):
    response = download(client, game_id)
    assert response.status_code == 404 and response.json["code"] == "game_not_found"
