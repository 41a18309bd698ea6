"""The ``gm`` command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from . import __version__
from .notation import NotationError
from .referee import EXIT_UNREADABLE, RecordError, referee_text, render_json, render_text


def _referee(args: argparse.Namespace) -> int:
    try:
        text = sys.stdin.read() if args.record == "-" else Path(args.record).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        print(f"gm referee: cannot read {args.record}: {error}", file=sys.stderr)
        return EXIT_UNREADABLE
    try:
        outcome = referee_text(text)
    except (NotationError, RecordError) as error:
        print(f"gm referee: {args.record}: {error}", file=sys.stderr)
        return EXIT_UNREADABLE
    sys.stdout.write(render_json(outcome) if args.json else render_text(outcome))
    return outcome.exit_status


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gm", description="A game master for Spaceships played by email.")
    parser.add_argument("--version", action="version", version=f"gm {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
