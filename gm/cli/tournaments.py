"""``gm tournament``: the operator's tournaments (`gm.pbem.answers.tournaments`).

    gm tournament new --game GAME --format round-robin|swiss [--rounds N] [--variant V]
                      [--deadline 3d] [--players NAME-OR-ADDRESS ...] [--signup-until DATE] [--unrated]
    gm tournament start ID          close the sign-up now: round 1 starts at the daemon's next pass
    gm tournament show ID [--json]  the entrants, rounds and standings, by public name

``new`` only writes the tournament's record; the daemon (the only writer of
games) starts its rounds.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from typing import Any

from ..kernel.addresses import is_mail_address
from ..kernel.protocol import game_named
from ..league.standings import System
from ..pbem.data import tournaments as data
from ..pbem.data.names import public_names
from ..pbem.operator.admin import load_games
from ..pbem.state import tournaments as view
from .options import data_option, duration, store


def add_tournament(commands: Any) -> None:
    """Add ``gm tournament new|start|show`` to ``gm``'s parser."""
    tournament = commands.add_parser("tournament", help="make a tournament, start it, show its standings")
    actions = tournament.add_subparsers(dest="action", required=True, metavar="ACTION")
    new = actions.add_parser("new", help="record a tournament; prints its id")
    new.add_argument("--game", required=True, type=str.lower, help="spaceships or gridfighters")
    new.add_argument("--format", required=True, choices=[s.value for s in System])
    new.add_argument("--rounds", type=int, metavar="N",
                     help="a Swiss's rounds (default ceil(log2(entrants)) + 1; a round-robin plays every round)")
    new.add_argument("--variant", help="the ruleset (default: the game's own)")
    new.add_argument("--deadline", type=duration, help="time for each turn (default the games' own, 72h)")
    new.add_argument("--players", nargs="*", default=[], metavar="NAME-OR-ADDRESS",
                     help="entrants, by public name or address (others may join by mail until it starts)")
    new.add_argument("--signup-until", type=_moment, metavar="DATE",
                     help="when sign-up by mail closes and round 1 starts (UTC, e.g. 2026-12-01T12:00); "
                     "default: at once")
    new.add_argument("--unrated", action="store_true", help="its games do not count for ratings")
    start = actions.add_parser("start", help="close the sign-up now and start round 1")
    start.add_argument("id")
    show = actions.add_parser("show", help="the entrants, rounds and standings")
    show.add_argument("id")
    show.add_argument("--json", action="store_true")
    for parser in (new, start, show):
        data_option(parser)
    tournament.set_defaults(run=_run)


def _moment(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text.strip().replace(" UTC", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give a date and time such as 2026-12-01T12:00") from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _run(args: argparse.Namespace) -> int:
    return {"new": _new, "start": _start, "show": _show}[args.action](args)


def _new(args: argparse.Namespace) -> int:
    try:
        rules = game_named(args.game)
        if max(rules.seats) != 2:
            raise ValueError(f"a tournament is of a two-player game; {rules.title} is not one")
        if args.variant:
            rules.describe_variant(args.variant)
        if args.rounds is not None and args.rounds < 1:
            raise ValueError("--rounds must be 1 or more")
        found = store(args)
        by_name = {name.lower(): address for address, name in public_names(found).items()}
        players: list[str] = []
        for given in args.players:
            address = given if is_mail_address(given) else by_name.get(given.lower())
            if address is None:
                raise ValueError(f"{given!r} is neither a mail address nor anyone's public name")
            if address.lower() in {p.lower() for p in players}:
                raise ValueError(f"{given!r} is named twice")
            players.append(address)
    except ValueError as error:
        print(f"gm tournament new: {error}", file=sys.stderr)
        return 2
    record = data.Record(data.new_id(found), rules.name, System(args.format), datetime.now(UTC), tuple(players),
                         args.rounds, args.variant,
                         args.deadline.total_seconds() / 3600 if args.deadline else None, args.signup_until,
                         not args.unrated)
    data.add_record(found, record)
    print(record.id)
    return 0


def _start(args: argparse.Namespace) -> int:
    found = store(args)
    record = data.record(found, args.id.lower())
    if record is None:
        print(f"gm tournament start: there is no tournament {args.id}", file=sys.stderr)
        return 2
    if data.rounds(found, record.id):
        print(f"gm tournament start: tournament {record.id} has started already", file=sys.stderr)
        return 2
    data.start_early(found, record.id, datetime.now(UTC))
    print(f"tournament {record.id}: sign-up closed; round 1 starts at the daemon's next pass")
    return 0


def _show(args: argparse.Namespace) -> int:
    found = store(args, writes=False)
    games = dict(load_games(found))
    st = view.state(found, args.id.lower(), games.get)
    if st is None:
        print(f"gm tournament show: there is no tournament {args.id}", file=sys.stderr)
        return 2
    shown = view.shown(st, public_names(found)) | {"over": data.ended(found, st.record.id)}
    if args.json:
        print(json.dumps(shown, indent=1))
        return 0
    print(f"Tournament {shown['id']}: {game_named(shown['game']).title}, {shown['format']}, "
          f"{shown['rounds_planned']} rounds{'' if shown['rated'] else ', unrated'}"
          f"{'; over' if shown['over'] else ''}")
    print(f"Entrants: {', '.join(shown['entrants']) or 'none yet'}")
    for played in shown["rounds"]:
        print(f"Round {played['round']}:")
        for game in played["games"]:
            print("  " + _line(game))
    print(f"Standings (points, then {shown['tiebreak']}):")
    for row in shown["standings"]:
        print(f"  {row['place']:>3}  {row['name']:<24} {row['points']:>4g} {row['tiebreak']:>6g}"
              f"  +{row['won']} ={row['drawn']} -{row['lost']}")
    return 0


def _line(game: dict[str, Any]) -> str:
    """One pairing of a round, as the standings mail and ``show`` write it."""
    if game["bye"]:
        return f"{game['first']}: a bye (1 point)"
    result = {None: "playing", 1.0: "1-0", 0.5: "½-½", 0.0: "0-1"}[game["points_first"]]
    where = f" ({game['game']})" if game["game"] else " (not played: withdrawn)"
    return f"{game['first']} - {game['second']}: {result}{where}"
