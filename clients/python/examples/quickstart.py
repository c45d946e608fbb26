"""Quickstart: create a player, start a game against two bots, play it from your feed alone."""

import secrets
import sys

from coins_client import AuthenticatedClient, Client, follow_player
from coins_client.api.games import create_game
from coins_client.api.hands import deal_hand
from coins_client.api.plays import play_card
from coins_client.api.profiles import create_player
from coins_client.models import (
    ActionKind,
    BotStrength,
    CreatedGame,
    CreateGame,
    GameResultEvent,
    NewBot,
    NewPlayerProfile,
    PlayCard,
    PlayerSeat,
    PlayerSeatPlayer,
    PlayerWithKey,
    YourTurnEvent,
)

BASE_URL = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000"

player = create_player.sync(client=Client(BASE_URL), body=NewPlayerProfile(name=f"Quinn-{secrets.token_hex(3)}"))
assert isinstance(player, PlayerWithKey), player  # otherwise a Problem: its .code says why
me = AuthenticatedClient(BASE_URL, token=player.key)  # your key: keep it secret

feed = follow_player(me)  # typed events; resumes by itself
next(feed)  # the `player` event (your state): news follow
bots = [NewBot(bot=BotStrength.BASIC), NewBot(bot=BotStrength.RANDOM)]
game = create_game.sync(
    client=me, body=CreateGame(seats=[PlayerSeat(player=PlayerSeatPlayer.ME), *bots], target_score=5)
)
assert isinstance(game, CreatedGame), game
print("game", game.id)

for event in feed:
    if isinstance(event, YourTurnEvent) and event.game == game.id:
        if event.action == ActionKind.DEAL:
            deal_hand.sync(game.id, client=me)
        elif event.action == ActionKind.PLAY and event.hand is not None:
            card = event.hand.cards[0]  # any card in hand may be played
            play_card.sync(game.id, client=me, body=PlayCard(card=card))
            print(f"hand {event.hand.hand_number}: you play {card}")
    elif isinstance(event, GameResultEvent) and event.game == game.id:
        print(f"game over: place {event.place}, scores {event.scores}")
        break
