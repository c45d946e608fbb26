"""The engine as the model of one game served over HTTP: what every read of it should show.

tests/api/test_stateful.py drives the service and one :class:`GameModel` per game side by side.
The model keeps what the service keeps beside the engine's game (who holds each seat, their
tokens, the options) and builds, from the engine alone, the JSON the service should answer.
Every change of a game gives it a new version, so the model keeps what should be seen at each
version: a read made at any version, even one that made moves the server owed, is checked
against the model at that version.

Deals are the engine's own: every game is created with a seed, from which the engine derives
each hand (the service must deal the same cards). The moves of bots and auto-deals are not
predicted: the model takes them from the service's action log and the engine checks that each
was the seat's to make and legal, so everything that follows from them is checked all the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from service.engine import CoinsError, CompletedTrick, DealAction, Game, GameSetup, Play, Status, parse_card
from service.games.ids import BOT_PLAYER_IDS

Json = dict[str, Any]


@dataclass
class SeatModel:
    """Who holds a seat: nobody (open), a person with a token, or a bot (whose name is shown)."""

    name: str | None = None
    age: int | None = None
    bot: str | None = None
    token: str | None = None
    player: str | None = None  # a bot seat's: its strength's player (a person's seat here is anonymous)

    @property
    def open(self) -> bool:
        return self.token is None and self.bot is None


@dataclass(frozen=True)
class Snapshot:
    """What the service should show at one version of a game."""

    game: Json  # the public state, as getGame answers it, less the id and the times
    hands: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]
    hand_number: int
    tricks: int  # completed tricks so far, over every hand
    actions: int
    events: int  # in the game's feed so far, private ones included


@dataclass
class GameModel:
    """One game as the service should keep it, changed only by what the service acknowledged."""

    id: str
    target_score: int
    auto_deal: bool
    seed: str
    first_dealer: int | None
    seats: list[SeatModel]
    game: Game | None = None
    seat_changes: int = 0  # joins and leaves: each one is a version, as each deal and play is
    causes: list[str] = field(default_factory=list)  # who made each action of the game's log
    commitments: list[str] = field(default_factory=list)  # of each hand dealt
    tricks: list[CompletedTrick] = field(default_factory=list)
    revoked: list[tuple[int, str]] = field(default_factory=list)  # tokens of seats left
    events: list[tuple[int, str, int | None]] = field(default_factory=list)  # the feed: version, type, to
    snapshots: dict[int, Snapshot] = field(default_factory=dict)

    @classmethod
    def created(cls, body: Json, answer: Json) -> GameModel:
        """The model of a game that createGame answered ``answer`` to ``body``."""
        tokens = {credential["seat"]: credential["token"] for credential in answer["credentials"]}
        seats = []
        for number, player in enumerate(body["seats"]):
            if player is None:
                seats.append(SeatModel())
            elif player.get("bot"):
                name = player.get("name") or _bot_name(body["seats"], number)
                seats.append(SeatModel(name, bot=player["bot"], player=BOT_PLAYER_IDS[player["bot"]]))
            else:
                seats.append(SeatModel(player["name"], player.get("age"), token=tokens[number]))
        options = (body["target_score"], body["auto_deal"], body["seed"], body.get("first_dealer"))
        model = cls(answer["id"], *options, seats)
        if not model.open_seats:
            model._begin()
        model._snapshot()
        return model

    # -- reading the model ------------------------------------------------------------------

    @property
    def version(self) -> int:
        """1 at creation, and one more for every seat taken or left, deal and play."""
        return 1 + self.seat_changes + (len(self.game.log) if self.game is not None else 0)

    @property
    def open_seats(self) -> list[int]:
        return [number for number, seat in enumerate(self.seats) if seat.open]

    @property
    def people(self) -> list[int]:
        """The seats a person holds (with a token)."""
        return [number for number, seat in enumerate(self.seats) if seat.token is not None]

    @property
    def finished(self) -> bool:
        return self.game is not None and self.game.is_over

    def at(self, version: int) -> Snapshot:
        assert version in self.snapshots, f"game {self.id} never was at version {version} (now {self.version})"
        return self.snapshots[version]

    def person_to_act(self) -> int | None:
        """The seat to deal or play now, if a person holds it and the server would not act for it."""
        if self.game is None or self.game.turn is None or self.owes_move():
            return None
        return self.game.turn if self.seats[self.game.turn].token is not None else None

    def owes_move(self) -> bool:
        """Whether the next move is the server's: a bot seat's turn, or an auto-deal."""
        game = self.game
        if game is None or game.turn is None:
            return False
        return self.seats[game.turn].bot is not None or (game.status is Status.WAITING_FOR_DEAL and self.auto_deal)

    def deal_refusal(self, seat: int) -> str | None:
        """The code the service should refuse ``seat``'s deal with now, or None."""
        if self.game is None:
            return "seats_open"
        try:
            self.game.verify_deal(seat)
        except CoinsError as error:
            return error.code
        return None

    def play_refusal(self, seat: int, card: str) -> str | None:
        """The code the service should refuse ``seat``'s play of ``card`` with now, or None."""
        if self.game is None:
            return "seats_open"
        try:
            self.game.verify_play(seat, parse_card(card))
        except CoinsError as error:
            return error.code
        return None

    def hands_over(self) -> int:
        """The highest hand number whose seed may be shown: every hand but the one being played."""
        if self.game is None:
            return 0
        return self.game.hand_number - (1 if self.game.status is Status.PLAYING else 0)

    # -- changes the service acknowledged ---------------------------------------------------

    def join(self, seat: int, name: str, age: int | None, token: str) -> None:
        self.seats[seat] = SeatModel(name, age, token=token)
        self.seat_changes += 1
        self.events.append((self.version, "seat_taken", None))
        if not self.open_seats:
            self._begin()
        self._snapshot()

    def leave(self, seat: int, bot: str) -> None:
        """Before the start the seat opens again; after it, ``bot`` plays it. The token is void."""
        leaving = self.seats[seat]
        assert leaving.token is not None
        self.revoked.append((seat, leaving.token))
        if self.game is None:
            self.seats[seat] = SeatModel()
        else:
            leaving.token, leaving.bot = None, bot
        self.seat_changes += 1
        self.events.append((self.version, "seat_left", None))
        self._snapshot()

    def deal(self, seat: int, cause: str = "player") -> Json:
        """Deal as ``seat``: the public summary dealHand should answer (without the game)."""
        assert self.game is not None
        dealt = self.game.deal(seat)  # the seeded game's own seed for this hand
        self.causes.append(cause)
        self.commitments.append(dealt.commitment)
        self.events.append((self.version, "hand_dealt", None))
        self.events += [(self.version, "hand", person) for person in self.people]  # each person's own cards
        self._snapshot()
        return {
            "hand_number": dealt.hand_number, "dealer": dealt.dealer, "shuffler": dealt.shuffler,
            "cutter": dealt.cutter, "leader": dealt.leader, "commitment": dealt.commitment,
        }  # fmt: skip

    def play(self, seat: int, card: str, cause: str = "player") -> Json:
        """Play as ``seat``: the trick as playCard should answer it."""
        assert self.game is not None
        played = self.game.play(seat, parse_card(card))
        self.causes.append(cause)
        settled = [
            ("trick_won", played.completed), ("hand_ended", played.hand_ended), ("game_finished", played.winner)
        ]  # fmt: skip
        self.events += [(self.version, "card_played", None)]
        self.events += [(self.version, kind, None) for kind, what in settled if what is not None]
        if played.completed is not None:
            self.tricks.append(played.completed)
            trick = trick_json(played.completed)
        else:
            trick = _trick(played.hand_number, played.trick_number, played.trick[0].seat, played.trick)
        self._snapshot()
        return trick

    def server_move(self, entry: Json) -> None:
        """Apply a move the service made itself (an entry of its action log): it must have been
        the server's to make, by the seat whose turn it was, and legal."""
        assert self.game is not None and self.owes_move(), f"the server moved unasked: {entry}"
        turn = self.game.turn
        assert turn is not None and entry["seat"] == turn, f"{entry} was seat {turn}'s move"
        cause = "bot" if self.seats[turn].bot is not None else "auto"
        assert entry["cause"] == cause, f"{entry}: expected cause {cause}"
        if entry["kind"] == "deal":
            self.deal(turn, cause)
        else:
            self.play(turn, entry["card"], cause)

    def logged(self, seq: int) -> Json:
        """Entry ``seq`` (from 1) of the action log as listActions should show it, less its time:
        a deal's seed only once its hand is over."""
        assert self.game is not None
        log = self.game.log
        action = log[seq - 1]
        hand_number = sum(1 for earlier in log[:seq] if isinstance(earlier, DealAction))
        entry = {"seq": seq, "seat": action.seat, "hand_number": hand_number, "cause": self.causes[seq - 1]}
        if isinstance(action, DealAction):
            revealed = hand_number <= self.hands_over()
            return {
                **entry, "kind": "deal", "card": None, "commitment": self.commitments[hand_number - 1],
                "seed": action.seed.hex() if revealed else None,
            }  # fmt: skip
        return {**entry, "kind": "play", "card": action.card.code, "commitment": None, "seed": None}

    # -- the public state -------------------------------------------------------------------

    def public_state(self) -> Json:
        """getGame's answer for the game as it stands, less ``id``, the times and the deadline."""
        game = self.game
        state: Json = {
            "status": "waiting_for_players" if game is None else game.status.value,
            "target_score": self.target_score, "seeded": True, "auto_deal": self.auto_deal,
            "turn_timeout_seconds": None, "turn_deadline": None, "version": self.version,
            "seats": [self._seat(number) for number in range(3)],
            "hand_number": 0, "dealer": None, "turn": None, "trick": None, "last_trick": None, "winner": None,
            "first_dealer": self.first_dealer, "first_dealer_chosen_by": None if self.first_dealer is None else "named",
            "commitment": None, "rematch_of": None, "rematch": None, "rated": False, "void": False,
            "expires_at": None,  # no seat is reserved (no challenges here)
        }  # fmt: skip
        if game is None:
            return state  # waiting for players: a named first dealer is shown already
        trick = None
        if game.status is Status.PLAYING:
            assert game.leader is not None
            trick = _trick(game.hand_number, game.trick_number, game.leader, game.trick)
        state.update(
            hand_number=game.hand_number, dealer=game.dealer, turn=game.turn, trick=trick,
            last_trick=trick_json(game.last_trick) if game.last_trick else None, winner=game.winner,
            first_dealer=game.setup.first_dealer, first_dealer_chosen_by=game.setup.first_dealer_reason.value,
            commitment=game.commitment,
        )  # fmt: skip
        return state

    def _seat(self, number: int) -> Json:
        seat, game = self.seats[number], self.game
        return {
            "seat": number, "name": seat.name, "open": seat.open, "bot": seat.bot,
            "score": game.scores[number] if game else 0,
            "cards_in_hand": game.cards_in_hand[number] if game else 0,
            "tricks_won": game.tricks_won[number] if game else 0, "player": seat.player,
            "reserved_for": None, "rating": None, "rating_change": None,  # no challenges, no rated games
        }  # fmt: skip

    def _begin(self) -> None:
        """All three seats taken: the first dealer as the rules choose, with the game's seed."""
        ages = [seat.age for seat in self.seats]
        setup = GameSetup.choose(self.target_score, ages=ages, first_dealer=self.first_dealer, seed=self.seed)
        self.game = Game(setup)

    def _snapshot(self) -> None:
        game = self.game
        hands = tuple(tuple(card.code for card in game.hand(seat)) if game else () for seat in range(3))
        self.snapshots[self.version] = Snapshot(
            self.public_state(),
            (hands[0], hands[1], hands[2]),
            game.hand_number if game else 0,
            len(self.tricks),
            len(game.log) if game else 0,
            len(self.events),
        )


def trick_json(trick: CompletedTrick) -> Json:
    return {
        **_trick(trick.hand_number, trick.trick_number, trick.leader, trick.plays),
        "complete": True, "winner": trick.winner, "points": trick.points,
    }  # fmt: skip


def _trick(hand_number: int, trick_number: int, leader: int, plays: tuple[Play, ...]) -> Json:
    return {
        "hand_number": hand_number, "trick_number": trick_number, "leader": leader,
        "plays": [{"seat": play.seat, "card": play.card.code} for play in plays],
        "complete": False, "winner": None, "points": None,
    }  # fmt: skip


def _bot_name(players: list[Json | None], number: int) -> str:
    """An unnamed bot's name: "Expert bot", or "Expert bot A", "… B" when more unnamed bots share its strength."""
    strength = players[number]["bot"]  # type: ignore[index]
    alike = [
        i for i, player in enumerate(players) if player and player.get("bot") == strength and not player.get("name")
    ]
    name = f"{strength.capitalize()} bot"
    return name if len(alike) < 2 else f"{name} {'ABC'[alike.index(number)]}"
