"""Complete games over HTTP: results match the engine's replay of the stored log; no hidden card ever leaks."""

from __future__ import annotations

import json
import random
import re

import pytest

from service import engine
from service.engine import CARD_CODES, DealAction, Game, PlayAction
from service.store.repository import GameRepository

CARD_PATTERN = re.compile("|".join(sorted(map(re.escape, CARD_CODES), key=len, reverse=True)))


def _cards_in(payload: object) -> set[str]:
    return set(CARD_PATTERN.findall(json.dumps(payload)))


def _this_hand(game: dict, hand_number: int) -> dict:
    """The game without the previous hand's last trick: those cards were played, then dealt again."""
    last = game["last_trick"]
    return {**game, "last_trick": last if last and last["hand_number"] == hand_number else None}


def _replay_from_store(app, game_id: str) -> Game:
    with app.extensions["coins.db"].transaction(write=False) as connection:
        repo = GameRepository(connection)
        setup = engine.from_snapshot(repo.get(game_id).state).setup
        actions = repo.list_actions(game_id, after=0, limit=10_000)
    log = [
        DealAction(a.seat, bytes.fromhex(a.seed)) if a.kind == "deal" else PlayAction(a.seat, engine.parse_card(a.card))
        for a in actions
    ]
    return Game.replay(setup, log)


def _check_new_events(table, read_up_to: dict, hand_number: int) -> None:
    """Every event each reader (a spectator, each seat) gets shows no card still in a hand it may
    not see: the spectator no card in any hand, a seat none of the other seats' cards."""
    held = {seat: set(table.hand(seat)) for seat in (0, 1, 2)}
    everyone = set().union(*held.values())
    for reader in (None, 0, 1, 2):
        headers = table.auth(reader) if reader is not None else {}
        page = table.client.get(
            f"/v1/games/{table.id}/events", query_string={"after": read_up_to.get(reader, 0)}, headers=headers
        ).json
        read_up_to[reader] = page["last_id"]
        hidden = everyone if reader is None else everyone - held[reader]
        for event in page["items"]:
            assert event["type"] != "hand" or event["seat"] == reader, "a seat got another seat's cards"
            shown = {**event, "game": _this_hand(event["game"], hand_number)}
            assert not (_cards_in(shown) & hidden), f"a {event['type']} event shows a card still in a hand"


def _play_out(table, rng: random.Random, check_secrets: bool) -> tuple[dict, int]:
    """Play random legal cards to the end, checking every response and event for hidden cards."""
    client = table.client
    plays = 0
    read_up_to: dict = {}
    for _ in range(2000):  # bounded: a target-20 game needs far fewer requests
        state = table.state()
        if state["status"] == "finished":
            return state, plays
        if state["status"] == "waiting_for_deal":
            response = table.deal(state["dealer"])
            assert response.status_code == 201, response.json
            if check_secrets:
                _check_new_events(table, read_up_to, state["hand_number"] + 1)
            continue
        hands = {seat: table.hand(seat) for seat in (0, 1, 2)}
        seat = state["turn"]
        response = table.play(seat, rng.choice(hands[seat]))
        assert response.status_code == 201, response.json
        plays += 1
        if check_secrets:
            held_after = {s: set(h) for s, h in hands.items()}
            held_after[seat] -= {response.json["play"]["card"]}
            everyone = set().union(*held_after.values())
            hand_number = state["hand_number"]
            tricks = client.get(f"/v1/games/{table.id}/tricks?limit=200").json["items"]
            public = [
                _this_hand(response.json["game"], hand_number),
                _this_hand(state, hand_number),
                client.get(f"/v1/games/{table.id}/scores").json,
                [trick for trick in tricks if trick["hand_number"] == hand_number],
                [
                    _this_hand(game, hand_number)
                    for game in client.get("/v1/games").json["items"]
                    if game["id"] == table.id
                ],
            ]
            for payload in public:
                assert not (_cards_in(payload) & everyone), "a public response shows a card still in a hand"
            # What seat X is told never holds a card another seat still holds.
            told = {**response.json, "game": _this_hand(response.json["game"], hand_number)}
            assert not (_cards_in(told) & (everyone - held_after[seat]))
            for other in (0, 1, 2):
                own = client.get(f"/v1/games/{table.id}/hand", headers=table.auth(other)).json
                assert not (_cards_in(own) & (everyone - held_after[other]))
            _check_new_events(table, read_up_to, hand_number)
    raise AssertionError("the game did not finish")


@pytest.mark.parametrize("target", [1, 5, 15, 25])
def test_complete_games_match_the_engine_replay(app, new_table, target):
    rng = random.Random(target)
    table = new_table(target_score=target, seed=f"full-{target}")
    state, plays = _play_out(table, rng, check_secrets=False)
    replayed = _replay_from_store(app, table.id)
    assert replayed.is_over and replayed.winner == state["winner"]
    assert list(replayed.scores) == [seat["score"] for seat in state["seats"]]
    assert state["seats"][state["winner"]]["score"] >= target
    assert sum(isinstance(a, PlayAction) for a in replayed.log) == plays
    # The stored tricks are the replay's tricks, in order.
    tricks, cursor = [], None
    for _ in range(100):
        page = table.client.get(
            f"/v1/games/{table.id}/tricks", query_string={"limit": 7, **({"cursor": cursor} if cursor else {})}
        ).json
        tricks += page["items"]
        if not (cursor := page["next_cursor"]):
            break
    assert len(tricks) == plays // 3
    assert sum(t["points"] for t in tricks) == sum(replayed.scores)
    assert tricks[-1]["winner"] == replayed.last_trick.winner


def test_no_response_ever_shows_a_card_still_in_another_hand(new_table):
    table = new_table(target_score=10, seed="secrets")
    state, _ = _play_out(table, random.Random(7), check_secrets=True)
    assert state["status"] == "finished"


def test_auto_deal_game_plays_through_hands(new_table):
    table = new_table(target_score=20, auto_deal=True, seed="auto")
    state, plays = _play_out(table, random.Random(3), check_secrets=False)
    assert state["hand_number"] >= 2 and plays > 48
