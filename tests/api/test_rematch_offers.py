"""Rematch offers at tables of players, anonymous persons and bots (contract 1.3): a leaver's bot takes
its seat at once and its player is not asked; a player and an anonymous person at one table each
accept their own way (the key; the old seat token); the offer is told on the players' feeds only."""

from __future__ import annotations

from service.games.ids import BOT_PLAYER_IDS
from tests.support.players import new_player
from tests.support.rated_games import play_out


def _feed(client, player, type_):
    items = client.get("/v1/players/me/events?after=0", headers=player.auth).json["items"]
    return [item for item in items if item["type"] == type_]


def test_a_leavers_bot_takes_its_seat_at_once_and_its_player_is_not_asked(client):
    ana, bo, cy = new_player(client, "Ana"), new_player(client, "Bo"), new_player(client, "Cy")
    game = client.post("/v1/games", json={"seats": [{"player": "me"}, None, None], "target_score": 2}, headers=ana.auth)
    game_id = game.json["id"]
    for player in (bo, cy):
        assert (
            client.post(f"/v1/games/{game_id}/players", json={"player": "me"}, headers=player.auth).status_code == 201
        )
    left = client.post(f"/v1/games/{game_id}/players/1/leave", json={"bot": "basic"}, headers=bo.auth)
    assert left.status_code == 200, left.json
    play_out(client, game_id, {0: ana.auth, 2: cy.auth})
    offer = client.post(f"/v1/games/{game_id}/rematch", headers=ana.auth)
    assert offer.status_code == 201, offer.json
    seats = offer.json["game"]["seats"]
    assert [(s["player"], s["bot"], s["reserved_for"]) for s in seats] == [
        (ana.id, None, None),
        (BOT_PLAYER_IDS["basic"], "basic", None),
        (None, None, cy.id),
    ]
    assert _feed(client, bo, "rematch_offered") == [] and _feed(client, ana, "rematch_offered") == []
    [told] = _feed(client, cy, "rematch_offered")
    assert told["rematch"] == offer.json["game"]["id"] and told["seat"] == 2 and told["game"] == game_id
    refused = client.post(f"/v1/games/{game_id}/rematch", headers=bo.auth)  # the leaver's seat is the bot's
    assert refused.status_code == 403 and refused.json["code"] == "not_your_seat"
    accepted = client.post(f"/v1/games/{game_id}/rematch", headers=cy.auth)
    assert accepted.status_code == 200 and accepted.json["game"]["status"] == "waiting_for_deal", accepted.json


def test_a_player_and_an_anonymous_person_accept_each_their_way(client):
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    seats = [{"player": "me"}, {"name": "Eve", "age": 30}, None]
    created = client.post("/v1/games", json={"seats": seats, "target_score": 2}, headers=ana.auth).json
    eve = {"Authorization": f"Bearer {created['credentials'][0]['token']}"}
    game_id = created["id"]
    assert client.post(f"/v1/games/{game_id}/players", json={"player": "me"}, headers=bo.auth).status_code == 201
    play_out(client, game_id, {0: ana.auth, 1: eve, 2: bo.auth})
    offer = client.post(f"/v1/games/{game_id}/rematch", headers=bo.auth).json["game"]
    assert [(s["open"], s["reserved_for"]) for s in offer["seats"]] == [(False, ana.id), (True, None), (False, None)]
    # Eve has no feed: she hears of the offer on the finished game's own feed
    created_events = client.get(f"/v1/games/{game_id}/events?after=0").json["items"]
    assert [e["rematch"] for e in created_events if e["type"] == "rematch_created"] == [offer["id"]]
    stranger = client.post(f"/v1/games/{offer['id']}/players", json={"name": "Mallory"})
    assert stranger.status_code == 409 and stranger.json["code"] == "seat_reserved"
    taken = client.post(f"/v1/games/{game_id}/rematch", headers=eve)
    assert taken.status_code == 200 and taken.json["seat"] == 1 and taken.json["token"], taken.json
    assert taken.json["game"]["status"] == "waiting_for_players"  # Ana has not asked yet
    mine = client.get("/v1/players/me/games?status=waiting_for_players", headers=ana.auth).json["items"]
    [item] = [item for item in mine if item["id"] == offer["id"]]
    assert item["reserved"] is True and item["reserved_until"] is not None  # an offer to answer, and until when
    started = client.post(f"/v1/games/{game_id}/rematch", headers=ana.auth)
    assert started.status_code == 200 and started.json["game"]["status"] == "waiting_for_deal"
    new_eve = {"Authorization": f"Bearer {taken.json['token']}"}
    assert client.get(f"/v1/games/{offer['id']}/hand", headers=new_eve).json["seat"] == 1
    [game] = [g for g in client.get("/v1/players/me/games", headers=ana.auth).json["items"] if g["id"] == offer["id"]]
    assert game["seat"] == 0 and game["status"] == "waiting_for_deal"


def test_only_the_games_own_players_decline_its_rematch(client):
    ana, bo, dan = new_player(client, "Ana"), new_player(client, "Bo"), new_player(client, "Dan")
    seats = [{"player": "me"}, {"bot": "basic"}, None]
    game_id = client.post("/v1/games", json={"seats": seats, "target_score": 2}, headers=ana.auth).json["id"]
    assert client.post(f"/v1/games/{game_id}/players", json={"player": "me"}, headers=bo.auth).status_code == 201
    play_out(client, game_id, {0: ana.auth, 2: bo.auth})
    offer = client.post(f"/v1/games/{game_id}/rematch", headers=ana.auth)
    assert offer.status_code == 201, offer.json
    stranger = client.delete(f"/v1/games/{game_id}/rematch", headers=dan.auth)
    assert stranger.status_code == 403 and stranger.json["code"] == "not_your_seat", stranger.json
    assert client.get(f"/v1/games/{offer.json['game']['id']}").json["status"] == "waiting_for_players"
    declined = client.delete(f"/v1/games/{game_id}/rematch", headers=bo.auth)
    assert declined.status_code == 204
    assert client.get(f"/v1/games/{offer.json['game']['id']}").json["status"] == "cancelled"
