"""A playout policy learnt from the searching players' plays: collect their decisions, label, train, agree.

``collect`` plays games of three copies of a searching player (``expert-35`` by default) through
the engine, seeded like :mod:`bench.bots` but under a seed of their own, and writes one JSON line
per decision: what the deciding seat could see (its hand, the trick so far, the cards played this
hand, scores, hand sizes, the leader) and the card it chose, as bits (:mod:`service.bots.bits`).

``label`` adds the search's value of every distinct card (every card tried on the same deals), a
softer target that ``train --soft`` can fit instead of the one card played.

``train`` fits the linear softmax of :mod:`bench.learnt_policy` over its features of each candidate
card (multinomial logistic regression by plain stochastic gradient descent, no dependencies) on the
games but the last ``--held-out`` and prints the weights (``--write`` puts them into the module).
``agree`` reports, on the held-out games, how often the greedy rule (:func:`service.bots.policy.choose`)
and the learnt policy play the searching player's card, counting cards that play alike (of one suit,
with no unseen card between them) as one; ``--search-every`` also runs the search again on some of them.

    .venv/bin/python -m bench.playout_policy collect --games 167 --seed 1000 --out /tmp/plays.jsonl
    .venv/bin/python -m bench.playout_policy train --data /tmp/plays.jsonl --held-out 40 --epochs 12 \\
        --write bench/learnt_policy.py
    .venv/bin/python -m bench.playout_policy agree --data /tmp/plays.jsonl --held-out 40 --search-every 10

The expert with the policy in its playouts is measured by ``python -m bench.learnt_policy`` (docs/bots.md).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Iterator

from bench import learnt_policy as learnt
from bench.bots import TARGET, player
from service.bots import expert
from service.bots.bits import SUIT_MASKS, bit_of
from service.bots.knowledge import Knowledge, knowledge_of
from service.bots.policy import choose
from service.engine import Game, GameSetup, Status, private_view


def collect(games: int, seed: int, strength: str, out: str, first: int = 0) -> None:
    """Play ``games`` games of three ``strength`` players; append each decision to ``out`` as a JSON line."""
    start = time.perf_counter()
    with open(out, "a") as sink:
        for number in range(first, games):
            setup = GameSetup(target_score=TARGET, first_dealer=number % 3, seed=f"policy/{seed}/{number}")
            game = Game(setup)
            bots = [player(strength, i, random.Random(f"policy/{seed}/{number}/{i}")) for i in range(3)]
            while game.status is not Status.FINISHED:
                if game.status is Status.WAITING_FOR_DEAL:
                    game.deal(game.dealer)
                    continue
                turn = game.turn
                assert turn is not None
                view = private_view(game, turn)
                decision = bots[turn].decide(view)
                know = knowledge_of(view)
                record = {
                    "game": number,
                    "seat": know.seat,
                    "hand": know.hand,
                    "played": know.played,
                    "trick": list(know.trick),
                    "leader": know.leader,
                    "scores": list(know.scores),
                    "target": know.target,
                    "sizes": list(know.cards_in_hand),
                    "chosen": bit_of(decision.card),
                }
                sink.write(json.dumps(record) + "\n")
                game.play(turn, decision.card)
            sink.flush()
            print(f"game {number} done ({time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)


def label(path: str, out: str, deals: int, seed: int) -> None:
    """Add to each decision the search's value of every distinct card (``values``), on the same ``deals`` deals.

    The values are the expert-35 search's own (uniform deals, greedy playouts, its standing), with every
    card tried on every deal: a softer, less noisy target than the one card the search played.
    """
    rng = random.Random(seed)
    start = time.perf_counter()
    with open(out, "w") as sink:
        for count, record in enumerate(records(path)):
            know = know_of(record)
            options = expert.candidates(know)
            if len(options) > 1:
                totals = dict.fromkeys(options, 0.0)
                for _ in range(deals):
                    hands = expert.deal_unseen(know, rng)
                    for option in options:
                        totals[option] += expert._playout(know, hands, option)
                record["values"] = {str(option): total / deals for option, total in totals.items()}
            sink.write(json.dumps(record) + "\n")
            if count % 1000 == 0:
                print(f"{count} decisions labelled ({time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)


def records(path: str) -> Iterator[dict[str, object]]:
    with open(path) as source:
        for line in source:
            yield json.loads(line)


def know_of(record: dict[str, object]) -> Knowledge:
    """The :class:`Knowledge` a record holds (without the hand's history, which the policy does not read)."""
    hand = record["hand"]
    assert isinstance(hand, int)
    return Knowledge(
        seat=record["seat"],  # type: ignore[arg-type]
        hand=hand,
        legal=hand,
        played=record["played"],  # type: ignore[arg-type]
        trick=tuple(record["trick"]),  # type: ignore[arg-type]
        leader=record["leader"],  # type: ignore[arg-type]
        scores=tuple(record["scores"]),  # type: ignore[arg-type]
        target=record["target"],  # type: ignore[arg-type]
        cards_in_hand=tuple(record["sizes"]),  # type: ignore[arg-type]
    )


def alike(one: int, other: int, unseen: int) -> bool:
    """Of one suit with no unseen card between them: the two cards play alike."""
    if (one ^ other) & 3:
        return False
    low, high = min(one, other), max(one, other)
    between = ((1 << high) - (2 << low)) & SUIT_MASKS[low & 3]
    return not between & unseen


Sample = tuple[list[float], list[list[float]]]  # the target share of each candidate, each candidate's features


def samples(rows: list[dict[str, object]], soft: float) -> tuple[list[list[Sample]], int]:
    """For each place in the trick, the decisions whose card is among the candidates; and how many are not.

    The target is the card the searching player chose or, with ``soft`` above 0 and values labelled,
    the softmax of the candidates' values divided by ``soft``.
    """
    found: list[list[Sample]] = [[], [], []]
    missed = 0
    for record in rows:
        know = know_of(record)
        chosen = record["chosen"]
        assert isinstance(chosen, int)
        unseen = know.unseen
        greedy = choose(know.hand, unseen, know.trick)[0]
        options = learnt.candidates(know.hand, know.trick, greedy)
        if len(options) < 2:
            continue
        table = [
            learnt.features(know.hand, unseen, know.trick, card, know.scores, know.seat, know.target, greedy)
            for card in options
        ]
        values = record.get("values")
        if soft > 0 and isinstance(values, dict):
            known = {int(card): value for card, value in values.items()}
            value_of = [
                next(v for card, v in known.items() if card == option or alike(card, option, unseen))
                for option in options
            ]
            top = max(value_of)
            odds = [math.exp((value - top) / soft) for value in value_of]
            found[len(know.trick)].append(([odd / sum(odds) for odd in odds], table))
            continue
        target = [i for i, card in enumerate(options) if card == chosen or alike(card, chosen, unseen)]
        if not target:
            missed += 1
            continue
        found[len(know.trick)].append(([1.0 if i == target[0] else 0.0 for i in range(len(options))], table))
    return found, missed


def fit(data: list[Sample], epochs: int, rate: float, decay: float, seed: int) -> list[float]:
    """Weights of a linear softmax over the candidates, by stochastic gradient descent on the log-likelihood."""
    width = len(learnt.FEATURES)
    weights = [0.0] * width
    order = list(range(len(data)))
    rng = random.Random(seed)
    for epoch in range(epochs):
        rng.shuffle(order)
        step = rate / (1 + epoch)
        for index in order:
            target, table = data[index]
            scores = [sum(w * x for w, x in zip(weights, row, strict=True)) for row in table]
            top = max(scores)
            exps = [math.exp(value - top) for value in scores]
            total = sum(exps)
            gradient = [-decay * w for w in weights]
            for row, e, share in zip(table, exps, target, strict=True):
                p = e / total - share
                for k in range(width):
                    gradient[k] -= p * row[k]
            for k in range(width):
                weights[k] += step * gradient[k]
    return weights


def train(path: str, held_out: int, epochs: int, rate: float, decay: float, soft: float, write: str | None) -> None:
    rows = list(records(path))
    last = max(int(record["game"]) for record in rows)  # type: ignore[call-overload]
    learning = [record for record in rows if int(record["game"]) <= last - held_out]  # type: ignore[call-overload]
    found, missed = samples(learning, soft)
    print(f"{len(learning)} decisions of games 0-{last - held_out}; {missed} chose no candidate", file=sys.stderr)
    lines = ["WEIGHTS: tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]] = ("]
    for place, data in enumerate(found):
        weights = fit(data, epochs, rate, decay, place)
        lines.append("    (" + ", ".join(f"{w:.3f}" for w in weights) + f"),  # {('leading', 'second', 'last')[place]}")
    lines.append(")  # fmt: skip")
    block = "\n".join(lines) + "\n"
    print(block, end="")
    if write:
        with open(write) as source:
            text = source.read()
        start = text.index("WEIGHTS: ")
        end = text.index("\n", text.index("\n)", start) + 1) + 1
        with open(write, "w") as sink:
            sink.write(text[:start] + block + text[end:])


def agree(path: str, held_out: int, search_every: int) -> None:
    """How often the greedy rule and the learnt policy play the searching player's card, on the held-out games.

    With ``search_every`` N, also how often expert-35's search itself, run again with another RNG on
    every Nth held-out decision with more than one distinct card, plays the card it played: a ceiling.
    """
    rows = list(records(path))
    last = max(int(record["game"]) for record in rows)  # type: ignore[call-overload]
    testing = [record for record in rows if int(record["game"]) > last - held_out]  # type: ignore[call-overload]
    hits = {"greedy": [0, 0, 0], "learnt": [0, 0, 0]}
    counts = [0, 0, 0]
    choices = {"greedy": 0, "learnt": 0}  # among the decisions with more than one distinct card
    several = 0
    for record in testing:
        know = know_of(record)
        chosen = record["chosen"]
        assert isinstance(chosen, int)
        unseen, place = know.unseen, len(know.trick)
        counts[place] += 1
        open_choice = len(expert.candidates(know)) > 1
        several += open_choice
        picks = {
            "greedy": choose(know.hand, unseen, know.trick)[0],
            "learnt": learnt.choose(know.hand, unseen, know.trick, know.scores, know.seat, know.target),
        }
        for name, pick in picks.items():
            if pick == chosen or alike(pick, chosen, unseen):
                hits[name][place] += 1
                choices[name] += open_choice
    games = len({record["game"] for record in testing})
    print(
        f"{len(testing)} decisions of {games} held-out games (leading {counts[0]}, second {counts[1]}, last {counts[2]})"
    )
    if search_every:
        again = same = 0
        searcher = expert.ExpertBot(0, random.Random(0), inference=False, endgame=False)
        for index, record in enumerate(testing[::search_every]):
            know = know_of(record)
            options = expert.candidates(know)
            if len(options) > 1:
                rng = random.Random(f"again/{index}")
                pick = expert._halve(know, options, searcher._budget(know), rng, (), None)[0]
                again += 1
                same += pick == record["chosen"] or alike(pick, int(record["chosen"]), know.unseen)  # type: ignore[call-overload]
        print(f"  expert-35 run again agrees on {same / again:.1%} of {again} with more than one distinct card")
    for name, by_place in hits.items():
        shares = ", ".join(f"{h / max(c, 1):.1%}" for h, c in zip(by_place, counts, strict=True))
        print(
            f"  {name:7} agrees on {sum(by_place) / len(testing):.1%} (leading, second, last: {shares});"
            f" {choices[name] / several:.1%} of the {several} with more than one distinct card"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("collect", help="play games and record every decision")
    make.add_argument("--games", type=int, default=200)
    make.add_argument("--first", type=int, default=0)
    make.add_argument("--seed", type=int, default=1000)
    make.add_argument("--strength", default="expert-35")
    make.add_argument("--out", required=True)
    labelling = commands.add_parser("label", help="add the search's value of every card to each decision")
    labelling.add_argument("--data", required=True)
    labelling.add_argument("--out", required=True)
    labelling.add_argument("--deals", type=int, default=40)
    labelling.add_argument("--seed", type=int, default=1)
    fitting = commands.add_parser("train", help="fit the weights and print them")
    fitting.add_argument("--data", required=True)
    fitting.add_argument("--held-out", type=int, default=40, help="the last games, left out of the fit")
    fitting.add_argument("--epochs", type=int, default=6)
    fitting.add_argument("--rate", type=float, default=0.05)
    fitting.add_argument("--decay", type=float, default=1e-4)
    fitting.add_argument("--soft", type=float, default=0, help="fit the softmax of the labelled values / SOFT")
    fitting.add_argument("--write", help="also write the weights into this module (service/bots/learnt.py)")
    checking = commands.add_parser("agree", help="agreement of the greedy rule and the learnt policy, held out")
    checking.add_argument("--data", required=True)
    checking.add_argument("--held-out", type=int, default=40)
    checking.add_argument("--search-every", type=int, default=0, help="also rerun the search on every Nth decision")
    args = parser.parse_args()
    if args.command == "collect":
        collect(args.games, args.seed, args.strength, args.out, args.first)
    elif args.command == "label":
        label(args.data, args.out, args.deals, args.seed)
    elif args.command == "train":
        train(args.data, args.held_out, args.epochs, args.rate, args.decay, args.soft, args.write)
    else:
        agree(args.data, args.held_out, args.search_every)


if __name__ == "__main__":
    main()
