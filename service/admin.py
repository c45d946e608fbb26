"""``coins-admin``: what an operator does to a player, each change audited (who, why) and logged.

    coins-admin rename PLAYER NAME --reason WHY [--by WHO]
    coins-admin revoke-key PLAYER --reason WHY [--by WHO]
    coins-admin new-key PLAYER --reason WHY [--by WHO]     # prints the new key, once
    coins-admin bar PLAYER --reason WHY [--by WHO]         # no rated play from now on
    coins-admin lift-bar PLAYER --reason WHY [--by WHO]
    coins-admin audit PLAYER                               # the operators' actions on the player
    coins-admin legacy-names                               # names kept from before the rule for names

It reads ``DATABASE_URL`` (and ``REDIS_URL``, ``DATABASE_LISTEN_URL``: a revoked key's readers are
told at once) like the service. ``--by`` is the operator's name (default: the login name). Every
change writes a row of ``admin_actions`` with the change in the same transaction, and one log line;
neither ever holds a key. The use cases are :class:`service.players.Operators`'.
"""

from __future__ import annotations

import argparse
import getpass
import json
import logging
import sys
from collections.abc import Sequence
from datetime import UTC, datetime

from .config import ConfigError, Settings
from .events import channel_for
from .games import GameService
from .games.errors import PlayerNotFound
from .names import NameRefused
from .players import OperatorAction, Operators
from .store import Database, DatabaseUnavailable, GameStore
from .store.migrate import SchemaNotMigrated, require_migrated

__all__ = ["main"]

CHANGES = ("rename", "revoke-key", "new-key", "bar", "lift-bar")


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        settings = Settings.from_env()
    except ConfigError as error:
        print(f"coins-admin: {error}", file=sys.stderr)
        return 2
    database = Database(settings.sqlalchemy_url, pool_size=1, busy_timeout_ms=settings.db_busy_timeout_ms)
    channel = channel_for(database, listen_url=settings.database_listen_url, redis_url=settings.redis_url)
    operators = Operators(GameService(GameStore(database), signals=channel), lambda: datetime.now(UTC))
    try:
        require_migrated(database)  # a database left behind (or empty) has not the tables this code reads
        return _run(operators, args)
    except SchemaNotMigrated as error:
        print(f"coins-admin: {error}", file=sys.stderr)
        return 2
    except (PlayerNotFound, NameRefused, ValueError) as error:
        print(f"coins-admin: {error}", file=sys.stderr)
        return 1
    except DatabaseUnavailable as error:
        print(f"coins-admin: the database is unavailable: {error}", file=sys.stderr)
        return 3
    finally:
        database.dispose()


def _run(operators: Operators, args: argparse.Namespace) -> int:
    if args.command == "audit":
        for action in operators.audit(args.player):
            print(json.dumps(action, default=str))
        return 0
    if args.command == "legacy-names":
        for player in operators.legacy_names():
            print(f"{player.id}\t{player.name!r}")
        return 0
    who = {"operator": args.by, "reason": args.reason}
    done: OperatorAction
    if args.command == "rename":
        done = operators.rename(args.player, args.name, **who)
    elif args.command == "revoke-key":
        done = operators.revoke_key(args.player, **who)
    elif args.command == "new-key":
        done = operators.issue_key(args.player, **who)
    elif args.command == "bar":
        done = operators.bar(args.player, **who)
    else:
        done = operators.lift_bar(args.player, **who)
    print(f"coins-admin: {done.action} done for player {done.player_id}" + (f": {done.detail}" if done.detail else ""))
    if done.key is not None:  # shown once, here only: hand it to the player over a channel you trust
        print(done.key)
    return 0


HELP = {
    "rename": "rename a player (the rule for names applies; seats taken keep their name)",
    "revoke-key": "revoke the player's key: refused at once, their streams end, their webhooks go",
    "new-key": "issue the player a new key (it replaces any), printed once, here only",
    "bar": "bar the player from rated play from now on (a waiting rated ticket is cancelled)",
    "lift-bar": "lift a bar from rated play",
    "audit": "list the operators' actions on the player, oldest first (JSON lines)",
    "legacy-names": "list the players whose names were kept from before the rule for names",
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="coins-admin",
        description="Operators' actions on players, audited. Reads DATABASE_URL (and REDIS_URL, DATABASE_LISTEN_URL).",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")
    for name in CHANGES:
        command = commands.add_parser(name, help=HELP[name], description=HELP[name])
        command.add_argument("player", help="the player's id")
        if name == "rename":
            command.add_argument("name", help="the new name (the rule for names applies)")
        command.add_argument("--reason", required=True, help="why: kept in the audit and the log")
        command.add_argument("--by", default=getpass.getuser(), help="who: the operator (default: the login name)")
    commands.add_parser("audit", help=HELP["audit"], description=HELP["audit"]).add_argument(
        "player", help="the player's id"
    )
    commands.add_parser("legacy-names", help=HELP["legacy-names"], description=HELP["legacy-names"])
    return parser


if __name__ == "__main__":
    sys.exit(main())
