"""The operator's commands on the command line: pause, resume, deadline
(and extend, its alias for ``deadline --extend``), replace, cancel, answer
(each spooled for the daemon as an event of the game's,
`gm.pbem.operator.actions`) and shunt (list, show, release, discard)."""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from typing import Any

from ..kernel.clock import parse_duration
from ..kernel.values import AddressReplaced, Answered, Cancelled, DeadlineSet, Paused, Resumed, SeatHanded
from ..pbem.answers.owner import shunt_listing
from ..pbem.operator.actions import check_action, clean_address, discard, moment, release, request_action, show
from ..pbem.operator.admin import load_games
from .options import add_settings, data_option, identity, identity_options, store

EXIT_REFUSED = 2
"""Exit status when the action cannot be done (no such game, the game is
over, a deadline in the past...): nothing was spooled."""


def add_operator(commands: Any) -> None:
    """Add the operator's commands to ``gm``'s parser."""
    def action(name: str, help: str, with_identity: bool = True) -> argparse.ArgumentParser:
        parser = commands.add_parser(name, help=help,
                                     description=help + ". The daemon applies it and tells the players. "
                                                 f"Exit {EXIT_REFUSED} (and nothing done) when it cannot be done.")
        parser.add_argument("game")
        data_option(parser)
        if with_identity:
            identity_options(parser)
        else:  # --address is the player's new address here: the GM's own comes from --config or --domain
            add_settings(parser, "domain")
        parser.set_defaults(run=_action)
        return parser

    action("pause", "pause a game: no deadline or reminder until it is resumed")
    action("resume", "resume a paused game: its deadline starts again from now")
    deadline = action("deadline", "set or extend a game's deadline")
    deadline.add_argument("--at", metavar="ISO",
                          help="the new deadline, such as 2026-12-01T12:00Z (UTC unless it says)")
    deadline.add_argument("--extend", metavar="DURATION", help="move the deadline on by this much: 24h, 3d, 90m")
    extend = action("extend", "move a game's deadline on (the same as deadline GAME --extend DURATION)")
    extend.add_argument("duration", metavar="DURATION", help="by how much: 24h (or +24h), 3d, 90m")
    replace = action("replace", "give a player's seat a new address (and reply token), or give it to the "
                     "GM's robot until its player sends orders again, or back", with_identity=False)
    replace.add_argument("--player", type=int, required=True, metavar="N")
    given = replace.add_mutually_exclusive_group(required=True)
    given.add_argument("--address", dest="new_address", metavar="ADDR", help="the player's new address")
    given.add_argument("--robot", metavar="LEVEL", type=str.lower,
                       help="the GM's robot plays the seat at LEVEL (easy, normal, hard) until its player "
                       "sends orders again")
    given.add_argument("--person", action="store_true",
                       help="give the seat the robot plays back to its player")
    cancel = action("cancel", "cancel a game: it ends with no winner, every player told why")
    cancel.add_argument("--reason", required=True, metavar="TEXT")
    answer = action("answer", "answer a player on what the rules leave to the GM (a research order); "
                    "gm show lists what waits for an answer")
    answer.add_argument("--player", type=int, required=True, metavar="N")
    answer.add_argument("--text", required=True, metavar="TEXT", help="what the player is told")

    shunt = commands.add_parser("shunt", help="list, show, release (handle again) or discard shunted mail")
    shunt.add_argument("what", choices=("list", "show", "release", "discard"))
    shunt.add_argument("key", nargs="?", help="the shunted message's key (or a part of it only it holds)")
    data_option(shunt)
    shunt.set_defaults(run=_shunt)


def _action(args: argparse.Namespace) -> int:
    now = datetime.now(UTC)
    name = args.command
    data = store(args)
    try:
        if name == "pause":
            event: Any = Paused(now)
        elif name == "resume":
            event = Resumed(now)
        elif name == "deadline":
            if (args.at is None) == (args.extend is None):
                raise ValueError("give either --at ISO-TIME or --extend DURATION")
            if args.at:
                event = DeadlineSet(now, deadline=moment(args.at))
            else:
                event = DeadlineSet(now, extend=parse_duration(args.extend, example="24h"))
        elif name == "replace" and args.new_address is None:
            event = SeatHanded(now, args.player, None if args.person else args.robot)
        elif name == "extend":
            event = DeadlineSet(now, extend=parse_duration(args.duration, example="24h"))
        elif name == "replace":
            event = AddressReplaced(now, args.player, clean_address(args.new_address))
        elif name == "answer":
            event = Answered(now, args.player, args.text)
        else:
            event = Cancelled(now, args.reason)
        why = check_action(dict(load_games(data)), args.game, event)
        if why:
            raise ValueError(why)
    except ValueError as error:
        print(f"gm {name}: {error}", file=sys.stderr)
        return EXIT_REFUSED
    key = request_action(data, identity(args), args.game, event)
    print(f"{name} of {args.game} requested ({key}); the daemon applies it and tells the players")
    return 0


def _shunt(args: argparse.Namespace) -> int:
    data = store(args, writes=args.what in ("release", "discard"))
    try:
        if args.what == "list":
            print(shunt_listing(data))
        elif args.key is None:
            raise KeyError(f"give the key of the shunted message: gm shunt {args.what} KEY")
        elif args.what == "show":
            sys.stdout.write(show(data, args.key).decode("utf-8", "replace"))
        elif args.what == "release":
            print(release(data, args.key, datetime.now(UTC)))
        else:
            print(discard(data, args.key))
    except KeyError as error:
        print(f"gm shunt: {error.args[0]}", file=sys.stderr)
        return EXIT_REFUSED
    return 0
