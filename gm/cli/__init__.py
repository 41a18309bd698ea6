"""The ``gm`` command line: `main` and its parser, assembled from one module
for each group of commands (`serve`, `admin`, `ratings`, `records`,
`shard`, `tournaments`, `operator`) and the options they share (`options`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .. import __version__
from ..configfile import ConfigError
from ..pbem.data.store import MissingDataDirectory
from .admin import add_games, add_new, add_show
from .operator import add_operator
from .options import EXIT_CONFIG, EXIT_START
from .owner import NotOwner
from .ratings import add_ratings
from .records import add_export, add_referee, add_replay, add_verify
from .serve import add_serve
from .shard import add_shard
from .tournaments import add_tournament

__all__ = ["EXIT_CONFIG", "EXIT_START", "build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The parser of every ``gm`` command, in the order ``gm --help`` lists them."""
    parser = argparse.ArgumentParser(prog="gm", description="A game master for board games played by email: "
                                     "Spaceships, Grid Fighters and Celestial Empire.")
    parser.add_argument("--version", action="version", version=f"gm {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (add_referee, add_serve, add_new, add_games, add_show, add_ratings, add_export, add_replay, add_verify,
                add_shard, add_tournament, add_operator):  # pause, deadline, extend, replace, ..., shunt
        add(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``gm`` command; its exit status."""
    args = build_parser().parse_args(argv)
    args.words = list(sys.argv[1:] if argv is None else argv)
    try:
        return args.run(args)
    except (ConfigError, MissingDataDirectory, NotOwner) as error:
        print(f"gm {args.command}: {error}", file=sys.stderr)
        return EXIT_CONFIG

