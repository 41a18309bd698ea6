"""The administrator's commands on the games: ``gm new``, ``gm games`` and
``gm show``."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

from ..kernel.protocol import game_named
from ..kernel.values import Options
from ..pbem.operator.admin import describe_game, load_game, pending_requests, request_game
from .options import data_option, duration, identity, identity_options, store


def add_new(commands: Any) -> None:
    """``gm new``: a game requested, for the daemon to set up."""
    new = commands.add_parser("new", help="create a game and queue its invitations")
    data_option(new)
    identity_options(new)
    new.add_argument("--player", action="append", required=True, metavar="ADDR",
                     help="a player's address (once for each seat, in order)")
    new.add_argument("--robot", action="store_true",
                     help="the GM's robot takes the last seat (Spaceships, Grid Fighters)")
    new.add_argument("--robots", type=int, metavar="N",
                     help="N seats after the people's for the GM's robots (Celestial Empire)")
    new.add_argument("--level", choices=("easy", "normal", "hard"),
                     help="the robot's level (default normal)")
    new.add_argument("--take-over-after", type=int, metavar="N",
                     help="the GM's robot plays a person's seat once it missed N deadlines in a row, until "
                     "its player sends orders again; 0 never (default: 2 for Celestial Empire, else 0)")
    new.add_argument("--take-over-level", choices=("easy", "normal", "hard"),
                     help="the level of the robot that takes over such a seat (default normal)")
    new.add_argument("--alias", action="append", metavar="NAME",
                     help="a player's alias (once for each seat, in player order)")
    new.add_argument("--observer", action="append", metavar="ADDR",
                     help="an address that watches the game: a note now, the whole game when it ends (repeatable)")
    new.add_argument("--game", default="spaceships", type=str.lower,
                     help="the game: spaceships (the default), gridfighters or celestial-empire")
    new.add_argument("--variant", help="the ruleset, e.g. 2.6.1 or 2.6.1+fleet=24 (default: the game's own)")
    new.add_argument("--deadline", type=duration, default=timedelta(hours=72), help="time for each turn (default 72h)")
    new.add_argument("--remind-before", type=duration, default=timedelta(hours=12),
                     help="remind this long before the deadline")
    new.add_argument("--forfeit-after", type=int, default=3,
                     help="turns in a row without orders that forfeit (default 3)")
    new.add_argument("--absence-max", type=duration, default=timedelta(days=14),
                     help="the longest absence a player may declare (default 14d)")
    new.add_argument("--absence-total", type=duration, default=timedelta(days=28),
                     help="how long a player's absences in a game may add up to (default 28d)")
    new.add_argument("--wait-for-deadline", action="store_true", help="run turns only at the deadline")
    new.add_argument("--public-each-turn", action="store_true",
                     help="both players agreed that the web archive may show the game after each turn, "
                     "as an observer sees it (default: only once it has ended)")
    new.add_argument("--rated", action="store_true",
                     help="the game counts for the players' ratings (gm ratings)")
    new.add_argument("--match", choices=("scored", "continued"), help="play a scored [9] or continued [10] match")
    new.add_argument("--match-games", type=int, metavar="N", help="the match ends after N games")
    new.add_argument("--match-target", type=int, metavar="N", help="a scored match ends once a player has N points")
    new.set_defaults(run=_new)


def add_games(commands: Any) -> None:
    """``gm games``: one line for each game."""
    games = commands.add_parser("games", help="list games with turn, state and next deadline")
    data_option(games)
    games.set_defaults(run=_games)


def add_show(commands: Any) -> None:
    """``gm show``: one game, as JSON."""
    show = commands.add_parser("show", help="show one game")
    show.add_argument("game")
    data_option(show)
    show.set_defaults(run=_show)


def _new(args: argparse.Namespace) -> int:
    data = store(args)
    try:
        rules = game_named(args.game)
        take_over = rules.take_over_after if args.take_over_after is None else args.take_over_after
        if take_over < 0:
            raise ValueError("--take-over-after: give 0 (never) or more missed deadlines")
        take_over_level = args.take_over_level or Options.take_over_level
        if args.take_over_level and not (take_over and take_over_level in rules.robot_levels):
            raise ValueError(f"--take-over-level: no robot takes over a seat in this game of {rules.title} "
                             "(give --take-over-after N too)")
        options = Options(deadline=args.deadline, wait_for_deadline=args.wait_for_deadline,
                          reminder_before=min(args.remind_before, args.deadline / 2),
                          forfeit_after=args.forfeit_after, absence_max=args.absence_max,
                          absence_total=args.absence_total, public_each_turn=args.public_each_turn,
                          rated=args.rated, take_over_after=take_over if rules.robot_levels else 0,
                          take_over_level=take_over_level)
        asked = {"match": args.match, "match-games": args.match_games, "match-target": args.match_target}
        given = {name: str(value) for name, value in asked.items() if value is not None} if args.match else {}
        match = rules.creation_terms(given) if given else None  # the game reads its own terms
        if given and match is None:
            raise ValueError(f"--match: {rules.title} has no matches")
        if args.level and not (args.robot or args.robots):
            raise ValueError("--level is the robot's: give --robot or --robots too")
        if args.robot and args.robots is not None:
            raise ValueError("give --robot (the last seat of a two-player game) or --robots N, not both")
        if args.robots is not None and max(rules.seats) <= 2:
            raise ValueError(f"--robots is for games of more than two seats: {rules.title} takes --robot")
        robots = 1 if args.robot else args.robots or 0
        variant = args.variant or rules.default_variant
        key, game_id = request_game(data, identity(args), args.player, variant, options,
                                    datetime.now(UTC), args.alias, match=match, game=args.game,
                                    observers=args.observer, robot=(args.level or "normal") if robots else None,
                                    robots=robots or 1)
    except ValueError as error:
        print(f"gm new: {error}", file=sys.stderr)
        return 2
    print(f"game requested: {game_id} ({key}); the daemon sets it up and mails the invitations")
    return 0


def _games(args: argparse.Namespace) -> int:
    """The listing; a game whose archive does not replay is listed as not
    loading, with the error, and the others as ever (as the daemon stops
    that game alone). Exit status 1 when one did not load."""
    data = store(args, writes=False)
    games, broken = [], []
    for game_id in data.game_ids():
        try:
            loaded = load_game(data, game_id)
        except Exception as error:  # a damaged archive, or a fault replaying it: this game's alone
            broken.append((game_id, "?", "not loading", _one_line(error), ""))
            continue
        if loaded is not None:
            games.append((game_id, loaded))
    requested = [r for r in pending_requests(data) if r["game"] not in {g for g, _ in games} | {b[0] for b in broken}]
    rows = list(broken)
    for r in requested:
        rows.append((r["game"], r["kind"], "requested", " vs ".join(r["players"]), ""))
    for _, game in games:
        d = describe_game(game)
        state = d["phase"] if d["phase"] != "play" else f"{game.rules.turn_word} {d['turn']}"
        state += " paused" if game.paused else ""
        deadline = f"deadline {d['deadline']}" if d["deadline"] else ""
        deadline += "".join(f"  {alias} away until {until}" for alias, until in d["absent"].items())
        deadline += f"  {len(d['observers'])} watching" if d["observers"] else ""
        rows.append((d["game"], d["kind"], state, " vs ".join(d["players"]), deadline))
    if not rows:
        print("no games")
    for line in _columns(sorted(rows, key=lambda row: (len(row[0]), row[0]))):
        print(line)
    return 1 if broken else 0


def _one_line(error: Exception) -> str:
    """An error as one line of the listing or of a message."""
    return " ".join(f"{type(error).__name__}: {error}".split())


def _columns(rows: list[tuple[str, str, str, str, str]]) -> list[str]:
    """The listing's lines: the id, game and state columns as wide as their
    widest entry (a name like celestial-empire must not push its row out of
    line), then the players and whatever follows them."""
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(3)]
    return [(" ".join(cell.ljust(width) for cell, width in zip(row[:3], widths))
             + f" {row[3]}  {row[4]}").rstrip() for row in rows]


def _show(args: argparse.Namespace) -> int:
    """One game as JSON, read alone (another game's damaged archive does
    not stop it); exit status 1 when its archive does not replay."""
    data = store(args, writes=False)
    try:
        game = load_game(data, args.game) if args.game in data.game_ids() else None
    except Exception as error:  # a damaged archive, or a fault replaying it
        print(f"gm show: {args.game} does not load: {_one_line(error)}", file=sys.stderr)
        return 1
    if game is None:
        print(f"gm show: no game {args.game}", file=sys.stderr)
        return 2
    print(json.dumps(describe_game(game), indent=2))
    return 0
