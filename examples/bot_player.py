#!/usr/bin/env python3
"""A bot player for Coins: keeps a player key, queues for quick play, plays game after game from its feed.

On the coins-client package (clients/python, docs/sdk.md: its generated operations and its typed feed
reader) and coins_http.py beside it (retries); with ``--webhook``, webhook_receiver.py beside it too
(signatures). Usage:

    python examples/bot_player.py --base-url http://127.0.0.1:8000 --key-file ~/.coins-bot.key --games 3

The first run creates a player (``POST /v1/players``, named by ``--name``) and writes its key to
``--key-file``, created with mode 0600; later runs reuse the key (it acts for the player in every
game, like a password: keep the file private). The bot then follows its own player feed
(``GET /v1/players/me/events``, docs/players.md) and nothing else:

- ``player`` (first on every stream that does not resume): its games in progress; it acts in the
  ones that wait for it, and queues (``POST /v1/queue``) when it has none and no ticket;
- ``match_found`` / ``game_started``: a new table, printed;
- ``your_turn``: it deals, or plays a random card of the hand the event carries (any card held is legal);
- ``game_result``: its place, the scores and the rating change (``before -> after``, or
  "unrated"); after ``--games`` results it stops, else it queues again.

Every POST carries an ``Idempotency-Key``, kept across its retries (connection errors, 5xx, 429
after ``Retry-After``, ``409 idempotency_key_in_use``: coins_http.py), so the server applies it
once. The package's reader (``follow_player``) resumes a dropped stream with ``Last-Event-ID`` (no
event lost, none repeated) after a growing, bounded pause, and yields typed events. While a ticket
waits, it is re-read every 25 seconds: an expired ticket is replaced, a matched one whose
``match_found`` was lost is joined all the same. A ticket of an earlier run (``409 already_queued``,
whose ``ticket`` member names it) is cancelled and this run's queued in its place; one matched
meanwhile brings its game, which is played. With no game and no ticket, it queues again within 5
seconds. Every loop is bounded: ``--games``, ``--timeout`` seconds, and the reader's
attempts in a row.

With ``--webhook URL`` it follows no stream: it makes a webhook (``POST /v1/players/me/webhooks``)
pointing at ``URL``, the public https address where ``--listen`` (a local port, HTTPS with
``--tls-cert`` and ``--tls-key``, or plain HTTP behind a proxy that ends TLS) is reached, sleeps
until a signed delivery arrives, verifies it (webhook_receiver.py: the Standard Webhooks signature
with the secret it was shown once) and acts on it as on a feed event; a delivery that does not
verify is answered 401 and ignored. It reads its ticket every 25 seconds while one waits (that
keeps it alive), and deletes the webhook as it stops.

As it stops, however (done, out of time, an error, Ctrl-C or SIGTERM), it cancels a waiting ticket
and deletes its webhook. Exit status: 0 the games were played; 1 an error (the problem is printed);
2 ``--timeout`` ran out, or the options were wrong; 130 (SIGINT) or 143 (SIGTERM) stopped.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import queue
import random
import signal
import sys
import threading
import time
from pathlib import Path

import httpx
from coins_client import AuthenticatedClient, FeedLost, PlayerEvent, ProblemError, follow_player
from coins_client.api.hands import deal_hand, get_hand
from coins_client.api.player_events import get_player_events
from coins_client.api.plays import play_card
from coins_client.api.profiles import create_player
from coins_client.api.queue import cancel_ticket, enter_queue, get_ticket
from coins_client.api.webhooks import create_webhook, delete_webhook, list_webhooks
from coins_client.events import PLAYER_EVENT_TYPES
from coins_client.models import (
    GameResultEvent,
    GameStartedEvent,
    GameStatus,
    Hand,
    MatchFoundEvent,
    NewPlayerProfile,
    NewWebhook,
    NotificationType,
    PlayCard,
    PlayerStateEvent,
    Queue,
    RematchOfferedEvent,
    YourTurnEvent,
)
from coins_client.models import Problem as ProblemModel
from coins_http import Problem, anonymous, connect, ok

# Answers that only mean the game moved on before our request arrived (a stand-in played for
# us, the hand ended, an old your_turn): the feed's next events say what to do.
STALE = ("not_your_turn", "no_hand_in_progress", "hand_in_progress", "game_finished", "not_dealer")
TICKET_EVERY = 25.0  # seconds between reads of a waiting ticket (it expires after 30 unread)
QUEUE_AGAIN_EVERY = 5.0  # seconds between looks at the ticket (and tries to queue when there is none)


class BadKeyFile(Exception):
    """The key file is there but holds no key."""


def load_key(base_url: str, key_file: Path, name: str) -> str:
    """The key in ``key_file``; or a new player's, written there with mode 0600 (never printed)."""
    if key_file.exists():
        if key_file.stat().st_mode & 0o077:
            print(f"warning: {key_file} is readable by others (chmod 600 it)", file=sys.stderr)
        key = key_file.read_text().strip()
        if not key:  # sent as it is, "Bearer " alone: httpx refuses the header, and every retry with it
            raise BadKeyFile(f"{key_file} holds no key: delete it, and a new player is made and saved there")
        return key
    created = ok(create_player.sync(client=anonymous(base_url), body=NewPlayerProfile(name=name)))
    # O_EXCL: never overwrite a key another run wrote meanwhile; 0600 from the start, not chmod after.
    descriptor = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(created.key + "\n")
    print(f"created player {created.name} ({created.id}); key saved in {key_file}", flush=True)
    return created.key


class Bot:
    """What the bot knows: its games in progress, its waiting ticket, the results it has seen."""

    def __init__(self, me: AuthenticatedClient, queue_body: Queue, games: int, rng: random.Random) -> None:
        self.me = me
        self.queue_body = queue_body
        self.wanted = games
        self.rng = rng
        self.active: set[str] = set()  # games in progress it sits in
        self.finished: set[str] = set()  # games whose game_result it has seen: a later event of one is stale
        self.ticket: str | None = None  # its waiting ticket (perhaps an earlier run's, taken over)
        self.ticket_read = 0.0  # when it was last read (time.monotonic())
        self.acted: dict[str, int] = {}  # per game, the version it last acted on
        self.results: list[GameResultEvent] = []
        self.events = 0
        self.failure: Exception | None = None  # the ticket's thread's error, which stops the bot
        self.lock = threading.Lock()  # the events and the ticket's reads, one at a time

    @property
    def done(self) -> bool:
        return len(self.results) >= self.wanted

    def queue(self) -> None:
        """Queue for a game, unless one is in progress, a ticket waits, or enough games were played."""
        if self.active or self.ticket or len(self.results) + len(self.active) >= self.wanted:
            return
        self.enter_queue()

    def enter_queue(self, *, replacing: bool = True) -> None:
        """``POST /v1/queue``. ``409 already_queued`` means a ticket of an earlier run still waits, on
        that run's terms: the problem's ``ticket`` names it, and it is replaced (once a call; one that
        stopped waiting meanwhile is named by no member, and the next look queues again)."""
        try:
            ticket = ok(enter_queue.sync(client=self.me, body=self.queue_body))
        except Problem as problem:
            if problem.code != "already_queued":
                raise
            print(f"already queued: {problem}", flush=True)
            if replacing and problem.ticket is not None:
                self.replace(problem.ticket)
            return
        self.ticket, self.ticket_read = ticket.id, time.monotonic()
        print(f"queued: ticket {ticket.id} (first to {ticket.target_score}, rated {ticket.rated})", flush=True)

    def replace(self, earlier: str) -> None:
        """Cancel an earlier run's waiting ticket and queue ours; if it was matched meanwhile
        (``409 ticket_matched``), its game is ours instead."""
        answer = cancel_ticket.sync(earlier, client=self.me)
        if isinstance(answer, ProblemModel) and answer.code == "ticket_matched":
            game = ok(get_ticket.sync(earlier, client=self.me)).game
            print(f"ticket {earlier} of an earlier run was matched: game {game}", flush=True)
            if game:
                self.sit(game)
            return
        print(f"ticket {earlier} of an earlier run cancelled", flush=True)
        self.enter_queue(replacing=False)

    def check_ticket(self) -> None:
        """Every ``QUEUE_AGAIN_EVERY`` seconds: with no ticket, queue (unless a game is in progress or
        enough were played); every ``TICKET_EVERY`` seconds, read our ticket: expired, it is
        replaced; matched, its game is ours."""
        with self.lock:
            if self.ticket is None:
                self.queue()
                return
            if time.monotonic() - self.ticket_read < TICKET_EVERY:
                return
            ticket = ok(get_ticket.sync(self.ticket, client=self.me))
            self.ticket_read = time.monotonic()
            if ticket.status == "matched" and ticket.game:
                self.ticket = None
                self.sit(ticket.game)
                self.queue()  # its game may be over already
            elif ticket.status in ("expired", "cancelled"):
                print(f"ticket {self.ticket} {ticket.status}: queueing again", flush=True)
                self.ticket = None
                self.queue()

    def sit(self, game: str) -> None:
        """Count ``game`` among those in progress, unless it has finished: deliveries may come out of
        order, and a ``your_turn`` after the ``game_result`` would stop the bot queueing again."""
        if game not in self.finished:
            self.active.add(game)

    def leave_queue(self) -> None:
        """Cancel our waiting ticket, as the bot stops: left waiting, it could be matched into a game
        that only stand-ins would play."""
        if self.ticket is not None:
            with contextlib.suppress(httpx.TransportError):  # else it expires 30 s unread all the same
                cancel_ticket.sync(self.ticket, client=self.me)
            self.ticket = None

    def act(self, game: str, version: int, action: str, hand: Hand | None = None) -> None:
        """Deal, or play a random card of ``hand`` (read when not given); once per version of
        ``game``; refusals that only mean the game moved on are ignored."""
        if self.acted.get(game, -1) >= version:
            return
        self.acted[game] = version
        try:
            if action == "deal":
                ok(deal_hand.sync(game, client=self.me))
                return
            hand = hand or ok(get_hand.sync(game, client=self.me))
            card = self.rng.choice(hand.cards)
            trick = ok(play_card.sync(game, client=self.me, body=PlayCard(card=card))).trick
        except Problem as problem:
            if problem.code not in STALE:
                raise
            return
        if trick.winner is not None and trick.winner == hand.seat:
            print(f"{game}: took trick {trick.trick_number} of hand {trick.hand_number} with {card}", flush=True)

    def handle(self, event: PlayerEvent) -> None:
        with self.lock:
            self.events += 1
            if isinstance(event, PlayerStateEvent):
                rating, games = event.player.rating.value, event.games
                print(f"player {event.player.name}: rating {rating}, {len(games)} games in progress", flush=True)
                for game in games:
                    if game.id in self.finished:
                        continue
                    self.active.add(game.id)
                    if game.your_turn:
                        self.act(
                            game.id, game.version, "deal" if game.status == GameStatus.WAITING_FOR_DEAL else "play"
                        )
            elif isinstance(event, MatchFoundEvent):
                print(f"match found: game {event.game}", flush=True)
                if self.ticket == event.ticket:  # not a late one of an earlier match
                    self.ticket = None
                self.sit(event.game)
            elif isinstance(event, GameStartedEvent):
                print(f"game {event.game} started: seat {event.seat}", flush=True)
                self.sit(event.game)
            elif isinstance(event, YourTurnEvent):
                if event.game not in self.finished:
                    self.active.add(event.game)
                    self.act(event.game, event.version, str(event.action), event.hand)
            elif isinstance(event, GameResultEvent):
                if event.game in self.finished:  # told twice: counted once
                    return
                self.finished.add(event.game)
                self.active.discard(event.game)
                self.acted.pop(event.game, None)
                self.results.append(event)
                print(describe_result(event, len(self.results), self.wanted), flush=True)
            elif isinstance(event, RematchOfferedEvent):
                print(
                    f"rematch {event.rematch} of {event.game} offered to your seat {event.seat} (not taken)", flush=True
                )
            self.queue()


def describe_result(event: GameResultEvent, number: int, wanted: int) -> str:
    rating = event.rating
    change = (
        "unrated" if rating is None else f"rating {rating.before} -> {rating.after} ({rating.after - rating.before:+d})"
    )
    scores = ", ".join(str(score) for score in event.scores)
    return f"game {number}/{wanted} {event.game} over: place {event.place} (scores {scores}); {change}"


def ticket_reader(bot: Bot, stop: threading.Event) -> threading.Thread:
    """A thread that looks after the waiting ticket (:meth:`Bot.check_ticket`) until ``stop``."""

    def run() -> None:
        while not stop.wait(QUEUE_AGAIN_EVERY):
            try:
                bot.check_ticket()
            except Exception as error:  # retried already (coins_http.py): the bot stops with it, status 1
                bot.failure = error
                if not stop.is_set():  # the main thread waits on its feed or its receiver: wake it
                    signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGUSR1)
                return

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


class TicketFailed(Exception):
    """The ticket's thread met an error (``Bot.failure``): raised in the main thread, which stops."""


def _ticket_failed(signum: int, frame: object) -> None:
    raise TicketFailed


class OutOfTime(Exception):
    """``--timeout`` ran out while the bot waited for its feed."""


def _out_of_time(signum: int, frame: object) -> None:
    raise OutOfTime


class Stopped(BaseException):
    """SIGINT (Ctrl-C) or SIGTERM: the bot stops, deleting its webhook and cancelling its ticket as it
    goes. A BaseException, as KeyboardInterrupt is, so that no ``except Exception`` swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.status = 128 + signum  # the shell's status for a process a signal ended: 130, 143


def _stopped(signum: int, frame: object) -> None:
    for name in (signal.SIGINT, signal.SIGTERM):  # a second signal ends the process at once
        signal.signal(name, signal.SIG_DFL)
    raise Stopped(signum)


def follow(bot: Bot, deadline: float) -> bool:
    """Follow the feed (the package's reader), acting on it, until ``bot.done``; False at the deadline."""
    signal.signal(signal.SIGALRM, _out_of_time)  # the reader waits as long as the feed is alive: bound it
    signal.setitimer(signal.ITIMER_REAL, max(deadline - time.monotonic(), 0.01))
    try:
        for event in follow_player(bot.me):
            bot.handle(event)
            if bot.done:
                break
    except OutOfTime:
        pass
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return bot.done


WEBHOOK_TYPES = ["your_turn", "match_found", "game_started", "game_result", "rematch_offered"]


def by_webhook(bot: Bot, url: str, listen: str, tls: tuple[str | None, str | None], deadline: float) -> bool:
    """Play from signed deliveries to a webhook at ``url`` (received on ``listen``), until
    ``bot.done``; False at the deadline. The webhook is deleted as it ends; one of an earlier run to
    the same ``url`` (a run killed before it could delete its own) is deleted before it is made."""
    from webhook_receiver import Receiver  # only here: the feed needs no receiver beside the bot

    for earlier in ok(list_webhooks.sync(client=bot.me)).items:
        if earlier.url == url:  # an earlier run's, stopped before it could delete it (kill -9)
            delete_webhook.sync(earlier.id, client=bot.me)
            print(f"webhook {earlier.id} of an earlier run to {url} deleted", flush=True)
    types = [NotificationType(name) for name in WEBHOOK_TYPES]
    made = ok(create_webhook.sync(client=bot.me, body=NewWebhook(url=url, types=types)))
    receiver: Receiver | None = None
    try:  # from here on the webhook is deleted however it ends: a certificate missing, a port taken …
        host, _, port = listen.rpartition(":")
        receiver = Receiver(made.secret, host or "127.0.0.1", int(port), *tls)
        print(f"webhook {made.id}: deliveries to {url}, received on port {receiver.port}", flush=True)
        bot.handle(ok(get_player_events.sync(client=bot.me, wait=0)).items[0])
        while not bot.done and time.monotonic() < deadline:
            try:
                delivered = receiver.events.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                continue
            model = PLAYER_EVENT_TYPES.get(str(delivered.get("type")))
            if model is not None:  # a type this version does not list: skipped
                bot.handle(model.from_dict(delivered))
        return bot.done
    finally:
        if receiver is not None:
            receiver.close()
        delete_webhook.sync(made.id, client=bot.me)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8000", help="the server (default %(default)s)")
    parser.add_argument("--key-file", type=Path, required=True, help="the player's key: read, or created 0600")
    parser.add_argument("--name", default="Bot", help="the new player's name (default %(default)s)")
    parser.add_argument("--games", type=int, default=1, help="games to play, then stop (default %(default)s)")
    parser.add_argument("--target-score", type=int, default=15, help="the games' target (default %(default)s)")
    parser.add_argument("--unrated", action="store_true", help="queue for unrated games (default: rated)")
    parser.add_argument(
        "--bots-after", type=int, help="seconds after which bots may fill the table (default: the server's)"
    )
    parser.add_argument("--seed", type=int, help="seed for the random card choices")
    parser.add_argument(
        "--timeout", type=float, default=3600, help="give up after this many seconds (default %(default)s)"
    )
    parser.add_argument("--webhook", help="play from signed deliveries to this public https URL, not from the feed")
    parser.add_argument("--listen", default="127.0.0.1:8443", help="--webhook: where to receive (default %(default)s)")
    parser.add_argument("--tls-cert", help="--webhook: the receiver's certificate (else plain HTTP behind a proxy)")
    parser.add_argument("--tls-key", help="--webhook: the certificate's private key")
    args = parser.parse_args(argv)
    queue_body = Queue(target_score=args.target_score, rated=not args.unrated)
    if args.bots_after is not None:
        queue_body.bots_after = args.bots_after
    signal.signal(signal.SIGINT, _stopped)
    signal.signal(signal.SIGTERM, _stopped)
    try:
        me = connect(args.base_url, load_key(args.base_url, args.key_file.expanduser(), args.name))
        bot = Bot(me, queue_body, args.games, random.Random(args.seed))
        signal.signal(signal.SIGUSR1, _ticket_failed)  # the ticket's thread's error stops the bot
        stop = threading.Event()
        ticket_reader(bot, stop)
        deadline = time.monotonic() + args.timeout
        try:
            if args.webhook:
                finished = by_webhook(bot, args.webhook, args.listen, (args.tls_cert, args.tls_key), deadline)
            else:
                finished = follow(bot, deadline)
        finally:
            stop.set()
            signal.signal(signal.SIGUSR1, signal.SIG_IGN)  # the thread's error, if it comes now, is too late
            bot.leave_queue()
    except TicketFailed:
        print(f"error: {bot.failure}", file=sys.stderr)
        return 1
    except (Problem, ProblemError, FeedLost, httpx.TransportError, OSError, BadKeyFile) as problem:
        # OSError: the webhook receiver's (a certificate file missing, its port taken)
        print(f"error: {problem}", file=sys.stderr)
        return 1
    except Stopped as stopped:
        print(f"stopped by {stopped}", file=sys.stderr)
        return stopped.status
    print(f"{len(bot.results)} games played; {bot.events} events read")
    if not finished:
        print(f"no end of {args.games} games within {args.timeout:.0f}s", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
