"""``gm shard init|transport|route|export|import``: several daemons, each
with a share of the games (`gm.pbem.operator.shards`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..pbem.data.store import MissingDataDirectory
from ..pbem.operator import shards
from ..pbem.operator.transport import moved_line, transport_lines
from .options import EXIT_CONFIG, EXIT_START, data_option, identity, identity_options, store


def add_shard(commands: Any) -> None:
    """The ``shard`` command and its five sub-commands."""
    shard = commands.add_parser("shard", help="run several daemons, each with a share of the games",
                                description="Several gm daemons behind one MTA, games sharded by id "
                                "(see docs/operations.md, \"Several daemons\").")
    shard_commands = shard.add_subparsers(dest="what", required=True, metavar="WHAT")
    init = shard_commands.add_parser("init", help="make this data directory shard K of S",
                                     description="Make the data directory (which must hold the shards' shared "
                                     "secret.key) shard K of S: the games it makes are gN with N mod S = K.")
    init.add_argument("shard", metavar="K/S", help="this shard's number K (0 to S-1) and the number of shards S")
    data_option(init)
    transport = shard_commands.add_parser("transport", help="print the Postfix regexp map that routes games to shards",
                                          description="Print the lines of the regexp transport map (gm-shards) that "
                                          "route each game's plus-addresses to its shard: one HOP per shard, "
                                          "shard 0 first.")
    transport.add_argument("hops", nargs="+", metavar="HOP",
                           help="a shard's LMTP listener HOST:PORT, or a Postfix next hop")
    route = shard_commands.add_parser("route", help="print the Postfix line that routes (or holds) one moved game",
                                      description="Print a line of the override transport map (gm-moved) that sends "
                                      "GAME's mail to HOP, or, with --hold, a line of the access map (gm-hold) that "
                                      "keeps it on Postfix's hold queue while the game moves.")
    route.add_argument("game", metavar="GAME")
    route.add_argument("hop", nargs="?", metavar="HOP", help="the new shard's LMTP listener HOST:PORT")
    route.add_argument("--hold", action="store_true", help="keep the game's mail on Postfix's hold queue")
    export = shard_commands.add_parser("export", help="take a game out of this (stopped) shard into a bundle",
                                       description="Take GAME out of the data directory into the new folder BUNDLE, "
                                       "with its spooled and queued mail and its sent markers. Stop this shard's "
                                       "gm serve first, and hold the game's mail in Postfix (gm shard route --hold).")
    export.add_argument("game", metavar="GAME")
    export.add_argument("--to", required=True, metavar="BUNDLE", help="the folder to make")
    data_option(export)
    bring = shard_commands.add_parser("import", help="put a game's bundle into this (stopped) shard",
                                      description="Put a bundle made by gm shard export into the data directory. "
                                      "Stop this shard's gm serve first; start it again afterwards.")
    bring.add_argument("bundle", metavar="BUNDLE")
    data_option(bring)
    for command in (init, transport, route, export, bring):
        identity_options(command)
    transport.add_argument("--config", help="a TOML file of settings: address, domain")
    route.add_argument("--config", help="a TOML file of settings: address, domain")
    shard.set_defaults(run=_shard)


def _shard(args: argparse.Namespace) -> int:
    gm = identity(args)
    try:
        if args.what == "transport":
            print("\n".join(transport_lines(gm.local, gm.domain, args.hops)))
        elif args.what == "route":
            if (args.hop is None) == (not args.hold):
                raise ValueError("give either the next hop (HOST:PORT) or --hold")
            print(moved_line(gm.local, gm.domain, args.game, args.hop))
        elif args.what == "init":
            shard, data = shards.Shard.parse(args.shard), store(args)
            changed = shards.init(data.root, shard)
            print(f"{data.root} {'is now' if changed else 'was already'} shard {shard}: the games it makes are "
                  f"gN with N mod {shard.count} = {shard.index}")
        elif args.what == "export":
            done = shards.export_game(store(args), args.game, args.to, gm.local, gm.domain)
            print(f"exported {done.summary()} to {args.to}; `gm shard import {args.to}` on the new shard")
        else:
            done = shards.import_game(store(args), args.bundle)
            print(f"imported {done.summary()}; restart this shard's gm serve, then route {done.game}'s mail here")
    except ValueError as error:
        print(f"gm shard {args.what}: {error}", file=sys.stderr)
        return EXIT_CONFIG
    except MissingDataDirectory:
        raise  # exit 2, as for every command
    except OSError as error:  # a bundle or data directory that cannot be read or written
        print(f"gm shard {args.what}: {error.filename or ''}: {error.strerror or error}", file=sys.stderr)
        return EXIT_START
    return 0
