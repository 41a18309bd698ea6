"""``gm ratings``: the rating tables, for the operator (players by address).

The tables are the derived store's (`gm.pbem.state.ratings`): read from
``DATA/ratings.json`` when it is whole and derived from the games finished
now, else derived again from the finished games' archives and written;
``--rebuild`` always derives them again.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..kernel.protocol import REGISTRY, game_named
from ..kernel.values import ENDED
from ..pbem.operator.admin import load_games
from ..pbem.state.ratings import current, rebuild, robot_name, row_json, shown_row
from .options import data_option, store


def add_ratings(commands: Any) -> None:
    """Add ``gm ratings`` to ``gm``'s parser."""
    ratings = commands.add_parser("ratings", help="show the rating tables (derived from the finished games)")
    ratings.add_argument("--game", type=str.lower, help="only this game's table: spaceships, gridfighters, "
                         "celestial-empire")
    ratings.add_argument("--json", action="store_true", help="the tables as JSON, every figure unrounded")
    ratings.add_argument("--rebuild", action="store_true",
                         help="derive the tables again from every finished game's archive and rewrite the file")
    data_option(ratings)
    ratings.set_defaults(run=_ratings)


def _ratings(args: argparse.Namespace) -> int:
    try:
        names = [game_named(args.game).name] if args.game else REGISTRY.names()
    except ValueError as error:
        print(f"gm ratings: {error}", file=sys.stderr)
        return 2
    data = store(args)
    ended = {game_id: game for game_id, game in load_games(data) if game.phase == ENDED}
    ratings = (rebuild if args.rebuild else current)(data.root, ended, ended.__getitem__)
    if args.json:
        print(json.dumps({name: [row_json(row) for row in ratings.table(name)] for name in names}, indent=1))
        return 0
    for name in names:
        print(f"{game_named(name).title} ratings")
        rows = ratings.table(name)
        if not rows:
            print("  no rated games yet\n")
            continue
        print(f"  {'#':>3}  {'Player':<32} {'Rating':>8} {'Dev.':>6} {'Vol.':>8} {'Games':>6} {'In time':>8}")
        for place, row in enumerate(rows, 1):
            shown = shown_row(row, place, robot_name(row.player) or row.player)
            volatility = "" if row.volatility is None else f"{row.volatility:.5f}"
            print(f"  {place:>3}  {shown['name']:<32} {shown['rating']:>8} {shown['deviation']:>6} {volatility:>8} "
                  f"{row.games:>6} {shown['reliability']:>8}")
        print()
    return 0
