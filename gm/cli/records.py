"""The commands on what a game leaves behind: ``gm referee`` (a plain-text
record), ``gm export`` (a game's archive as an mbox) and ``gm replay`` (a
Maildir rebuilt and compared)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..kernel.errors import NotationError, RecordError
from ..kernel.records import EXIT_UNREADABLE, referee_record
from ..pbem.archive.verifying import FAILED, PASSED, UNCHECKABLE
from ..pbem.archive.verifying import verify as verify_mailbox
from ..pbem.operator.admin import export_mbox, verify_replay
from .options import data_option, store


def add_referee(commands: Any) -> None:
    """``gm referee RECORD``."""
    referee = commands.add_parser(
        "referee",
        help="referee a game record",
        description="Referee a whole game from a plain-text record (see docs/record-format.md). "
        "Exit 0 when every setup and order was legal, 1 when something was rejected, "
        "2 when the record cannot be read.",
    )
    referee.add_argument("record", metavar="RECORD", help="the record file, or - for standard input")
    referee.add_argument("--json", action="store_true", help="print one JSON document instead of text")
    referee.set_defaults(run=_referee)


def add_export(commands: Any) -> None:
    """``gm export GAME --mbox FILE``."""
    export = commands.add_parser("export", help="write a game's archive as an mbox")
    export.add_argument("game")
    export.add_argument("--mbox", required=True, help="the mbox file to write")
    export.add_argument("--player", type=int, metavar="N",
                        help="only what the GM sent player N (what may be given to a player); default: the whole "
                             "archive")
    data_option(export)
    export.set_defaults(run=_export)


def add_replay(commands: Any) -> None:
    """``gm replay MAILDIR``."""
    replay = commands.add_parser("replay", help="rebuild a game from its Maildir and check every message it sent")
    replay.add_argument("maildir", metavar="MAILDIR")
    replay.set_defaults(run=_replay)


def add_verify(commands: Any) -> None:
    """``gm verify MAILBOX``."""
    verify = commands.add_parser(
        "verify", help="check the GM's commitments in the mail one player received",
        description="Check, from one player's mail alone (an mbox or a Maildir, as 'gm export --player' "
        "writes it), that the GM kept its commitments: each matches its revealed value and salt, none changed "
        "during the game, and the game played again under the rules gives what the player was told "
        "(docs/verification.md). Needs no data directory. Exit 0 when every check passed, 1 when one failed, "
        "2 when something could not be checked.")
    verify.add_argument("mailbox", metavar="MAILBOX", help="an mbox file or a Maildir")
    verify.set_defaults(run=_verify)


def _verify(args: argparse.Namespace) -> int:
    verdict = verify_mailbox(args.mailbox)
    for line in verdict.lines:
        print(line)
    passed = "gm verify: every check that this game's mail allows passed" if verdict.limited else \
        "gm verify: every check passed"
    print({PASSED: passed, FAILED: "gm verify: a check FAILED",
           UNCHECKABLE: "gm verify: not everything could be checked"}[verdict.status])
    return verdict.status


def _referee(args: argparse.Namespace) -> int:
    try:
        text = sys.stdin.read() if args.record == "-" else Path(args.record).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        print(f"gm referee: cannot read {args.record}: {error}", file=sys.stderr)
        return EXIT_UNREADABLE
    try:
        outcome = referee_record(text)
    except (NotationError, RecordError) as error:
        print(f"gm referee: {args.record}: {error}", file=sys.stderr)
        return EXIT_UNREADABLE
    sys.stdout.write(outcome.json() if args.json else outcome.text())
    return outcome.exit_status


def _export(args: argparse.Namespace) -> int:
    data = store(args, writes=False)  # the mbox is the caller's, written as who runs the command
    try:
        count = export_mbox(data, args.game, args.mbox, args.player)
    except KeyError as error:
        print(f"gm export: {error.args[0]}", file=sys.stderr)
        return 2
    print(f"{count} messages written to {args.mbox}")
    return 0


def _replay(args: argparse.Namespace) -> int:
    try:
        count, differences = verify_replay(args.maildir)
    except (FileNotFoundError, ValueError) as error:
        print(f"gm replay: {error}", file=sys.stderr)
        return 2
    for difference in differences:
        print(difference)
    print(f"{count} messages rebuilt from {args.maildir}: "
          f"{'all identical' if not differences else f'{len(differences)} differ'}")
    return 0 if not differences else 1
