"""examples/bot_player.py's bookkeeping, on events alone (no server): deliveries may come out of order
(docs/players.md, "Notifications"), and an event of a game already over must not bring it back."""

from __future__ import annotations

import importlib
import random
import sys
from collections.abc import Iterator
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from tests.contract.live import ROOT
from tests.support.client_package import package_directory

OLD, NEW = "01jf3v9k2m8q4r6t0w5x7y9z1a", "01jf3v9k2m8q4r6t0w5x7y9z1b"
YOUR_TURN = {"action": "deal", "hand": None, "state": None, "turn_deadline": None}
RESULT = {"version": 9, "place": 1, "places": [1, 2, 3], "rated": False, "rating": None, "scores": [3, 0, 0]}
LATE = {"your_turn": YOUR_TURN, "game_started": {}, "match_found": {"ticket": "ticket0"}}


NEIGHBOURS = ("bot_player", "coins_http", "webhook_receiver")


def _imported_here(name: str) -> bool:
    return name in NEIGHBOURS or name == "coins_client" or name.startswith("coins_client.")


@pytest.fixture
def bot_player(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """examples/bot_player.py, imported as the script imports its neighbours, on coins-client: on the
    package generated here, not on any ``coins_client`` imported before (the contract step installs
    a generated SDK of that name); the modules imported before are back afterwards."""
    before = {name: module for name, module in sys.modules.items() if _imported_here(name)}
    for name in before:
        del sys.modules[name]
    monkeypatch.syspath_prepend(str(package_directory()))
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    yield importlib.import_module("bot_player")
    for name in [name for name in sys.modules if _imported_here(name)]:
        del sys.modules[name]
    sys.modules.update(before)


@pytest.fixture
def queued(bot_player: ModuleType, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The tickets of the bot's POST /v1/queue, answered here (its deals too)."""
    tickets: list[str] = []

    def enter(**kwargs: Any) -> SimpleNamespace:
        tickets.append(f"ticket{len(tickets) + 1}")
        return SimpleNamespace(id=tickets[-1], target_score=3, rated=False)

    monkeypatch.setattr(bot_player, "enter_queue", SimpleNamespace(sync=enter))
    monkeypatch.setattr(bot_player, "deal_hand", SimpleNamespace(sync=lambda *args, **kwargs: object()))
    return tickets


def _event(bot_player: ModuleType, kind: str, game: str, **fields: Any) -> Any:
    body = {"type": kind, "id": 1, "game": game, "seat": 0, "version": 5, **fields}
    return bot_player.PLAYER_EVENT_TYPES[kind].from_dict(body)


@pytest.mark.parametrize("late", LATE)
def test_an_event_of_a_game_already_over_does_not_bring_it_back(
    bot_player: ModuleType, queued: list[str], late: str
) -> None:
    bot = bot_player.Bot(me=None, queue_body=None, games=3, rng=random.Random(1))
    bot.handle(_event(bot_player, "your_turn", OLD, **YOUR_TURN))
    bot.handle(_event(bot_player, "game_result", OLD, void=False, **RESULT))
    assert queued == ["ticket1"] and bot.ticket == "ticket1"
    bot.handle(_event(bot_player, late, OLD, **LATE[late]))  # delivered after the game's result
    assert bot.active == set() and bot.ticket == "ticket1"
    bot.handle(_event(bot_player, "match_found", NEW, ticket="ticket1"))
    bot.handle(_event(bot_player, "game_result", NEW, void=False, **RESULT))
    assert queued == ["ticket1", "ticket2"]  # the old game did not hold it back
    bot.handle(_event(bot_player, "game_result", NEW, void=False, **RESULT))  # told twice: counted once
    assert len(bot.results) == 2 and queued == ["ticket1", "ticket2"]
