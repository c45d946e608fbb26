"""No log line, at DEBUG, ever holds a seat's token, the seed of a hand not yet over, or a card still
in a hand: complete games of people and a bot are played through the API (errors, long polls and
streams included) while every line is captured, then checked against the game replayed from the store."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import pytest

from service import engine
from service.config import Settings
from service.engine import DealAction, Game, PlayAction, Status
from service.store.repository import GameRepository

PEOPLE_AND_A_BOT = [{"name": "Ana", "age": 41}, {"name": "Bo", "age": 35}, {"bot": "basic"}]


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return replace(settings, log_level="DEBUG")


@dataclass
class Logged:
    """The lines one request wrote, and how many actions the game had before and after it."""

    lines: list[str]
    before: int
    after: int


def _log(app, game_id: str) -> tuple[Any, list[engine.Action]]:
    with app.extensions["coins.db"].transaction(write=False) as connection:
        repo = GameRepository(connection)
        stored = repo.get(game_id)
        actions = repo.list_actions(game_id, after=0, limit=10_000)
    log: list[engine.Action] = [
        DealAction(a.seat, bytes.fromhex(a.seed)) if a.kind == "deal" else PlayAction(a.seat, engine.parse_card(a.card))
        for a in actions
    ]
    return engine.from_snapshot(stored.state).setup, log


def _secrets_after(setup: Any, log: list[engine.Action], count: int) -> set[str]:
    """What is secret once the first ``count`` actions are applied: the cards in hands, and the
    seed of the hand being played (hex, as stored, and as text in case it were decoded)."""
    game = Game.replay(setup, log[:count])
    secret = {card.code for seat in (0, 1, 2) for card in game.hand(seat)}
    if game.status is Status.PLAYING:
        deal = next(action for action in reversed(log[:count]) if isinstance(action, DealAction))
        secret |= {deal.seed.hex(), deal.seed.hex().upper()}
    return secret


class Recorder:
    def __init__(self, app, capsys: pytest.CaptureFixture[str]) -> None:
        self.app, self.capsys = app, capsys
        self.requests: list[Logged] = []
        self.game_id: str | None = None

    def _count(self) -> int:
        return len(_log(self.app, self.game_id)[1]) if self.game_id else 0

    def __call__(self, send: Callable[..., Any], path: str, **kwargs: Any) -> Any:
        before = self._count()
        self.capsys.readouterr()
        response = send(path, **kwargs)
        response.get_data()  # a stream is read to its end inside the capture
        lines = [line for line in self.capsys.readouterr().err.splitlines() if line.strip()]
        self.requests.append(Logged(lines, before, self._count()))
        return response


def _play(client, record: Recorder, seats: list[dict[str, Any]]) -> dict[int, str]:
    created = record(client.post, "/v1/games", json={"seats": seats, "target_score": 6})
    assert created.status_code == 201
    game_id = record.game_id = created.json["id"]
    tokens = {credential["seat"]: credential["token"] for credential in created.json["credentials"]}
    auth = {seat: {"Authorization": f"Bearer {token}"} for seat, token in tokens.items()}
    base = f"/v1/games/{game_id}"
    record(client.get, f"{base}/hand", headers={"Authorization": "Bearer not-a-token"})  # 401
    for _ in range(500):
        state = record(client.get, base).json
        if state["status"] == "finished":
            break
        seat = state["turn"]
        if state["status"] == "waiting_for_deal":
            assert record(client.post, f"{base}/hands", headers=auth[seat]).status_code == 201
            record(client.get, f"{base}/events", query_string={"wait": 0}, headers=auth[0])
            continue
        cards = record(client.get, f"{base}/hand", headers=auth[seat]).json["cards"]
        other = next(s for s in auth if s != seat)
        theirs = record(client.get, f"{base}/hand", headers=auth[other]).json["cards"]
        if theirs:  # a card someone else holds: 422 card_not_in_hand, or 409 if it is not their turn
            record(client.post, f"{base}/plays", json={"card": theirs[0]}, headers=auth[seat])
        record(client.post, f"{base}/plays", json={"card": cards[0]}, headers=auth[other])  # 409 or 422
        record(client.get, f"{base}/hint", headers=auth[seat])
        played = record(client.post, f"{base}/plays", json={"card": cards[0]}, headers=auth[seat])
        assert played.status_code == 201, played.json
        record(client.get, f"{base}/events", query_string={"after": 1, "wait": 0}, headers=auth[seat])
    else:
        pytest.fail("the game did not finish")
    for headers in ({}, auth[0]):  # the whole feed, as a stream (it ends with the game) and as a long poll
        record(client.get, f"{base}/events", headers={**headers, "Accept": "text/event-stream"})
        record(client.get, f"{base}/events", headers=headers)
    record(client.get, f"{base}/actions")
    return tokens


@pytest.mark.parametrize("seats", [PEOPLE_AND_A_BOT, [PEOPLE_AND_A_BOT[0], {"bot": "random"}, PEOPLE_AND_A_BOT[1]]])
def test_no_token_hidden_card_or_secret_seed_in_any_log_line(app, client, capsys, seats):
    record = Recorder(app, capsys)
    tokens = _play(client, record, seats)
    setup, log = _log(app, record.game_id)
    assert Game.replay(setup, log).is_over
    lines = sum(len(logged.lines) for logged in record.requests)
    assert lines >= len(record.requests)  # an access line each, at least
    for logged in record.requests:
        secret = _secrets_after(setup, log, logged.before) | _secrets_after(setup, log, logged.after)
        secret |= set(tokens.values())
        for line in logged.lines:
            leaked = {value for value in secret if value in line}
            assert not leaked, f"{leaked} in the log line {line}"
