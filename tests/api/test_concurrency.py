"""Racing requests on one game: exactly one applies, the others get 409 or 412, nothing is lost."""

from __future__ import annotations

import threading

import pytest


def _race(app, requests: list[tuple[str, dict, dict]]) -> list[int]:
    barrier = threading.Barrier(len(requests))
    statuses: list[int] = [0] * len(requests)

    def run(index: int, path: str, body: dict, headers: dict) -> None:
        client = app.test_client()
        barrier.wait(timeout=10)
        statuses[index] = client.post(path, json=body, headers=headers).status_code

    threads = [threading.Thread(target=run, args=(i, *request)) for i, request in enumerate(requests)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    return statuses


@pytest.mark.parametrize("with_if_match", [False, True])
def test_twenty_simultaneous_plays_apply_once(app, new_table, with_if_match):
    table = new_table(seed="race")
    table.deal(0)
    state = table.state()
    seat = state["turn"]
    hand = table.hand(seat)
    headers = {**table.auth(seat), **({"If-Match": f'"{table.id}.{state["version"]}"'} if with_if_match else {})}
    requests = [(f"/v1/games/{table.id}/plays", {"card": hand[i % len(hand)]}, headers) for i in range(20)]
    statuses = _race(app, requests)
    assert statuses.count(201) == 1, statuses
    assert set(statuses) <= {201, 409, 412}, statuses
    after = table.state()
    assert after["version"] == state["version"] + 1
    assert len(table.hand(seat)) == 15
    assert len(after["trick"]["plays"]) == 1
    remaining = set(table.hand(0)) | set(table.hand(1)) | set(table.hand(2))
    assert len(remaining) == 47 and after["trick"]["plays"][0]["card"] not in remaining


def test_simultaneous_joins_fill_each_seat_once(app, client):
    game = client.post("/v1/games", json={}).json
    requests = [(f"/v1/games/{game['id']}/players", {"name": f"P{i}"}, {}) for i in range(8)]
    statuses = _race(app, requests)
    assert statuses.count(201) == 3 and statuses.count(409) == 5, statuses
    seats = client.get(f"/v1/games/{game['id']}").json["seats"]
    assert [seat["open"] for seat in seats] == [False, False, False]
