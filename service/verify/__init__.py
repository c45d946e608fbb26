"""coins-verify: checks a Coins game record (``GET /v1/games/{id}/record``) from the document alone.

Standard library only, and nothing imported from the rest of the service: copy this folder
anywhere and run ``python3 verify record.json`` (``-`` reads standard input), or, installed,
``coins-verify record.json``. It re-implements,
on purpose and independently of ``service.engine``, the deal algorithm of
``docs/fair-deals.md``, the trick rules, scoring, the end of the game and the dealer
rotation of the rules of Coins (a game by Mark Steere): a verifier that shared the engine's
code would share its bugs, and could not be run by someone who does not trust the server.

It checks every revealed seed against its hand's commitment, recomputes every deal, and
replays every play: from the player's dealt hand, in turn, each trick won and scored by the
rules, the scores after each hand and at the end, and the end of the game. Exit status: 0
and a one-line summary when the record holds; 1 and the first discrepancy in plain words;
2 when the file is unreadable, not JSON, or not a record of a format this verifier knows.
"""

from .check import verify
from .cli import main
from .document import Discrepancy, InvalidRecord
from .rules import DECK, commitment, deal, trick_points, trick_winner

__all__ = [
    "DECK",
    "Discrepancy",
    "InvalidRecord",
    "commitment",
    "deal",
    "main",
    "trick_points",
    "trick_winner",
    "verify",
]
