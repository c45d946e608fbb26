"""Computer players for Coins: one protocol, three strengths. Imports only the engine and the standard library.

A bot plays one seat. It is built with that seat and an injected :class:`random.Random`
(its only source of randomness), and it decides from that seat's
:class:`~service.engine.PrivateView` alone: the seat's own hand and legal cards plus the
public view. It is never given a :class:`~service.engine.Game`, so it cannot see another
seat's cards::

    from service.bots import make_bot
    from service.engine import private_view

    bot = make_bot("expert", seat, random.Random(seed))
    decision = bot.decide(private_view(game, seat))   # Decision(card=Card(...), reason="...")
    game.play(seat, decision.card)

A hint for a human player is the same call: build a bot for the player's seat and show
``decision.card`` and ``decision.reason``.

- ``STRENGTHS`` = ``("random", "basic", "expert", "master")``; ``HINT_STRENGTHS``, the ones a hint
  may ask for, leave the master out (its moves cost up to a second of CPU: worker work, never a
  request's).
- ``make_bot(strength, seat, rng, **options) -> Bot``: :class:`ValueError` for an unknown
  strength, a seat other than 0, 1, 2, or an option the strength does not take. Only the
  expert and the master take options: ``playouts: int`` (default :data:`DEFAULT_PLAYOUTS`, the playouts of
  one decision at the start of a hand, scaled up as the hand shortens) and ``max_seconds:
  float | None`` (default None: a safety net on the CPU time of one decision, this thread's
  :func:`time.thread_time`; when it bites the search stops early, which is logged and counted,
  :func:`service.bots.expert.capped_decisions`, and the decision then depends on the machine).
- ``Bot.decide(view) -> Decision``: always one of ``view.legal_cards``. It raises
  :class:`~service.engine.NotYourTurn` when the seat has no legal card (not its turn) and
  :class:`ValueError` when given another seat's view.
- Determinism: the same strength and options, the same RNG state and the same view give the
  same decision. A bot keeps no state between decisions but its RNG, so a service may build
  a fresh bot per move, seeded from what identifies the move, e.g.
  ``random.Random(f"{game_id}/{hand_number}/{trick_number}/{seat}")``, to make every
  decision reproducible; a bot kept across moves draws on from its RNG instead.
- Give bots that decide concurrently RNGs of their own: a shared RNG makes their decisions
  depend on the order they draw in.
- Strengths: ``random`` plays any legal card; ``basic`` follows greedy rules (take coins as
  cheaply as possible, never give a coin away when a plain card will do, track the cards
  gone and what unseen cards could beat); ``expert`` searches hundreds of random deals of the
  unseen cards, each weighted by how well it explains the other seats' plays this hand, playing
  each out with the basic rules, and picks the card that leaves it the best chance of reaching
  the target first; in the last three tricks it plays every possible deal out exactly; ``master`` is the expert's search with
  :data:`MASTER_PLAYOUTS` (16 times the expert's playouts): up to about a second of CPU a move.
- ``review_play(view, played, rng) -> PlayReview`` (:mod:`.review`): one play judged by the same
  search, every legal card valued by the points the seat could expect in the rest of the hand.
"""

from __future__ import annotations

import random
from typing import Any

from service.engine import SEATS

from .basic import BasicBot
from .expert import DEFAULT_PLAYOUTS, ExpertBot
from .protocol import Bot, Decision
from .random_bot import RandomBot
from .review import REVIEW_DEALS, CardValue, PlayReview, review_play

__all__ = [
    "STRENGTHS", "HINT_STRENGTHS", "DEFAULT_PLAYOUTS", "MASTER_PLAYOUTS", "Bot", "Decision", "make_bot",
    "RandomBot", "BasicBot", "ExpertBot", "REVIEW_DEALS", "CardValue", "PlayReview", "review_play",
]  # fmt: skip

STRENGTHS = ("random", "basic", "expert", "master")
HINT_STRENGTHS = ("random", "basic", "expert")  # the master is never a hint: a second of CPU a move
MASTER_PLAYOUTS = 16 * DEFAULT_PLAYOUTS  # issue 35's "about 20 times the budget"; a second of CPU a move at p99


def make_bot(strength: str, seat: int, rng: random.Random, **options: Any) -> Bot:
    """A bot of ``strength`` for ``seat`` drawing on ``rng``."""
    if type(seat) is not int or seat not in SEATS:
        raise ValueError(f"seat must be 0, 1 or 2, not {seat!r}")
    if strength == "expert":
        return ExpertBot(seat, rng, **_only(options, strength, "playouts", "max_seconds"))
    if strength == "master":
        return ExpertBot(
            seat, rng, **{"playouts": MASTER_PLAYOUTS, **_only(options, strength, "playouts", "max_seconds")}
        )
    if strength == "basic":
        return BasicBot(seat, rng, **_only(options, strength))
    if strength == "random":
        return RandomBot(seat, rng, **_only(options, strength))
    raise ValueError(f"unknown bot strength {strength!r}: expected one of {', '.join(STRENGTHS)}")


def _only(options: dict[str, Any], strength: str, *allowed: str) -> dict[str, Any]:
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(f"the {strength} bot takes no option {', '.join(unknown)}")
    return options
