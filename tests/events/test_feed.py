"""The feed, read as a long poll: the whole state first, then every change once, in order; resume exactly."""

from __future__ import annotations

import threading
import time

import pytest
from flask import Flask

from service import create_app
from service.config import Settings
from tests.support.realtime import realtime_role
from tests.support.working_client import NO_PACE


def _page(client, game_id: str, *, after: int | None = None, token: str | None = None, wait: int = 0) -> dict:
    query = {"wait": wait, **({"after": after} if after is not None else {})}
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = client.get(f"/v1/games/{game_id}/events", query_string=query, headers=headers)
    assert response.status_code == 200, response.json
    return response.json


def _everything(client, game_id: str, token: str | None = None) -> list[dict]:
    return _page(client, game_id, after=0, token=token)["items"]


def _play_a_hand(table) -> None:
    """The dealer deals; everyone plays their first card until the hand is over."""
    state = table.state()
    assert table.deal(state["dealer"]).status_code == 201
    for _ in range(48):
        state = table.state()
        if state["status"] != "playing":
            return
        seat = state["turn"]
        assert table.play(seat, table.hand(seat)[0]).status_code == 201


def test_the_first_event_is_the_whole_state(client, new_table):
    table = new_table(seed="first")
    page = _page(client, table.id, token=table.tokens[0])
    [event] = page["items"]
    assert event["type"] == "game" and event["game"] == table.state() and event["hand"] is None
    assert page["last_id"] == event["id"] == 0  # nothing has happened yet
    table.deal(0)
    [event] = _page(client, table.id, token=table.tokens[1])["items"]
    assert event["hand"] == {"seat": 1, "hand_number": 1, "cards": table.hand(1)}
    assert _page(client, table.id)["items"][0]["hand"] is None  # a spectator's


def test_every_change_is_an_event_in_order(client, new_table):
    table = new_table(seed="order", target_score=50)
    _play_a_hand(table)
    events = _everything(client, table.id)
    ids = [event["id"] for event in events]
    assert ids == sorted(set(ids))
    types = [event["type"] for event in events]
    assert types[0] == "hand_dealt" and types.count("card_played") == 48 and types.count("trick_won") == 16
    assert types[-1] == "hand_ended" and events[-1]["seed"]  # the seed, revealed
    versions = [event["version"] for event in events]
    assert versions == sorted(versions) and all(event["game"]["version"] == event["version"] for event in events)
    assert events[-1]["game"] == table.state()  # the last event's state is the game's
    assert "hand" not in types  # a spectator never gets a seat's cards


def test_a_seat_gets_its_own_cards_and_no_one_elses(client, new_table):
    table = new_table(seed="private")
    table.deal(0)
    for seat in (0, 1, 2):
        events = _everything(client, table.id, table.tokens[seat])
        private = [event for event in events if event["type"] == "hand"]
        assert [(event["seat"], event["cards"]) for event in private] == [(seat, table.hand(seat))]
    public = [event["id"] for event in _everything(client, table.id)]
    seat_0 = [event["id"] for event in _everything(client, table.id, table.tokens[0])]
    assert set(public) < set(seat_0)


def test_after_resumes_with_exactly_the_events_after_it(client, new_table):
    table = new_table(seed="resume", target_score=5)
    _play_a_hand(table)
    events = _everything(client, table.id, table.tokens[2])
    for index, event in enumerate(events):
        assert _page(client, table.id, after=event["id"], token=table.tokens[2])["items"] == events[index + 1 :]


def test_a_resume_past_the_last_event_is_refused_as_no_such_event(client, new_table):
    """A reader cannot wait for ids the feed has never reached (it would miss as many events as it
    is ahead): its `after` or `Last-Event-ID` past the last event is a 400, up to the last is not."""
    table = new_table(seed="ahead", target_score=5)
    last = _page(client, table.id)["last_id"]
    assert _page(client, table.id, after=last)["items"] == []
    asked = [  # a long poll resumes by `after` alone, a stream by either
        ("application/json", {"after": last + 1}, {}),
        ("text/event-stream", {"after": last + 1}, {}),
        ("text/event-stream", {}, {"Last-Event-ID": str(last + 1)}),
    ]
    for accept, query, headers in asked:
        response = client.get(f"/v1/games/{table.id}/events", query_string=query, headers={"Accept": accept, **headers})
        assert response.status_code == 400 and response.mimetype == "application/problem+json"
        assert response.json["code"] == "unknown_event_id", response.json
        assert f"its last is {last}" in response.json["detail"]


def test_several_changes_of_one_request_are_several_events(client):
    """A person plays, then two bots: each move its own event, each with its own version and state."""
    created = client.post(
        "/v1/games",
        json={"seats": [{"name": "Ana", "age": 50}, {"bot": "random"}, {"bot": "random"}], "seed": "bots"},
    ).json
    token = created["credentials"][0]["token"]
    client.post(f"/v1/games/{created['id']}/hands", headers={"Authorization": f"Bearer {token}"})
    before = _page(client, created["id"])["last_id"]
    hand = client.get(f"/v1/games/{created['id']}/hand", headers={"Authorization": f"Bearer {token}"}).json
    game = client.get(f"/v1/games/{created['id']}").json
    if game["turn"] == 0:
        client.post(
            f"/v1/games/{created['id']}/plays",
            json={"card": hand["cards"][0]},
            headers={"Authorization": f"Bearer {token}"},
        )
    events = _page(client, created["id"], after=before)["items"]
    plays = [event for event in events if event["type"] == "card_played"]
    assert [play["cause"] for play in plays][-2:] == ["bot", "bot"]
    assert len({play["version"] for play in plays}) == len(plays)  # each move a version of its own
    assert [play["game"]["trick"]["plays"][-1]["card"] for play in plays if play["game"]["trick"]["plays"]] == [
        play["card"] for play in plays if play["game"]["trick"]["plays"]
    ]


def test_a_long_poll_waits_for_the_next_event(client, new_table, app, realtime):
    table = new_table(seed="wait")
    last = _page(client, table.id)["last_id"]
    other = app.test_client()
    timer = threading.Timer(0.3, lambda: other.post(f"/v1/games/{table.id}/hands", headers=table.auth(0)))
    timer.start()
    started = time.monotonic()
    status, _, page = realtime.get(f"/v1/games/{table.id}/events?after={last}&wait=10")
    timer.join()
    assert status == 200 and [event["type"] for event in page["items"]] == ["hand_dealt"]
    assert 0.2 < time.monotonic() - started < 5
    assert page["last_id"] > last


def test_a_long_poll_with_nothing_new_answers_empty_when_the_wait_runs_out(new_table, realtime):
    table = new_table()
    started = time.monotonic()
    assert realtime.get(f"/v1/games/{table.id}/events?after=0&wait=1")[2] == {"items": [], "last_id": 0}
    assert time.monotonic() - started >= 0.9


def test_the_web_role_answers_what_need_not_wait_and_refuses_the_rest(client, new_table):
    """The web role holds no connection: a page is answered, a stream or a long poll that would wait
    is 503 too_many_streams (the proxy sends them to the real-time role)."""
    table = new_table()
    assert _page(client, table.id, after=0, wait=0) == {"items": [], "last_id": 0}
    for query, headers in (("?after=0&wait=5", {}), ("", {"Accept": "text/event-stream"})):
        refused = client.get(f"/v1/games/{table.id}/events{query}", headers=headers)
        assert refused.status_code == 503 and refused.json["code"] == "too_many_streams", refused.json
        assert int(refused.headers["Retry-After"]) > 0


@pytest.mark.parametrize(
    ("path", "headers", "status", "code"),
    [
        ("/v1/games/nosuchgame/events", {}, 404, "game_not_found"),
        ("/v1/games/{id}/events", {"Authorization": "Bearer not-a-token"}, 401, "invalid_token"),
        ("/v1/games/{id}/events?wait=31", {}, 422, "validation_error"),
        ("/v1/games/{id}/events?after=-1", {}, 422, "validation_error"),
        ("/v1/games/{id}/events", {"Accept": "text/event-stream", "Last-Event-ID": "x"}, 400, "bad_request"),
    ],
)
def test_bad_requests_are_problems(client, new_table, path, headers, status, code):
    table = new_table()
    response = client.get(path.format(id=table.id), headers=headers)
    assert response.status_code == status and response.json["code"] == code
    assert response.mimetype == "application/problem+json"


def test_when_every_stream_slot_is_taken_the_answer_is_503_with_retry_after(database_url):
    settings = Settings(database_url=database_url, streams_per_process=0, **NO_PACE)
    app: Flask = create_app(settings)
    game = app.test_client().post("/v1/games", json={}).json
    with realtime_role(app, settings) as realtime:
        status, headers, problem = realtime.get(f"/v1/games/{game['id']}/events", {"Accept": "text/event-stream"})
    assert status == 503 and problem["code"] == "too_many_streams"
    assert int(headers["retry-after"]) > 0 and headers["content-type"] == "application/problem+json"
    app.extensions["coins.feed"].close()
    app.extensions["coins.db"].dispose()
