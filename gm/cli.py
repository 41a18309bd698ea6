"""The ``gm`` command line."""

from __future__ import annotations

import argparse
import os
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any, Sequence

from . import __version__
from .kernel.errors import NotationError
from .kernel.errors import RecordError
from .kernel.records import EXIT_UNREADABLE, referee_record


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


def _duration(text: str) -> timedelta:
    """``72h``, ``3d``, ``90m`` or ``45s``."""
    units = {"d": "days", "h": "hours", "m": "minutes", "s": "seconds"}
    if len(text) < 2 or text[-1] not in units or not text[:-1].replace(".", "", 1).isdigit():
        raise argparse.ArgumentTypeError(f"{text!r}: give a number and a unit, such as 72h, 3d or 90m")
    return timedelta(**{units[text[-1]]: float(text[:-1])})


def _host_port(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r}: give HOST:PORT, such as 127.0.0.1:2525")
    return host.strip("[]") or "127.0.0.1", int(port)


EXIT_CONFIG = 2
"""Exit status when the command line or the configuration is wrong, or the
data directory named does not exist: running again will not help."""
EXIT_START = 1
"""Exit status when `gm serve` cannot start (a port in use, an unusable data
directory): it may work later."""


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    """The configuration file's settings (checked), or none."""
    from .configfile import load

    if "_settings" not in vars(args):
        args._settings = load(args.config) if getattr(args, "config", None) else {}
    return args._settings


def _pick(args: argparse.Namespace, name: str, default: Any = None) -> Any:
    """An option: the command line's, else the configuration file's, else ``default``."""
    value = getattr(args, name, None)
    return value if value is not None else _settings(args).get(name.replace("_", "-"), default)


def _data(args: argparse.Namespace) -> str:
    return _pick(args, "data", "gm-data")


def _store(args: argparse.Namespace):
    """The existing data directory; a missing one is an error (MissingDataDirectory)."""
    from .pbem.store import Store

    return Store(_data(args), create=False)


def _identity(args: argparse.Namespace):
    from .pbem.mailer import Identity

    address, domain = _pick(args, "address"), _pick(args, "domain")
    return Identity(address=address or (f"gm@{domain}" if domain else "gm@localhost"))


def _address_option(args: argparse.Namespace, name: str, default: str | None = None) -> tuple[str, int] | None:
    """A HOST:PORT option; ``off`` (or nothing) is None."""
    from .configfile import ConfigError

    value = _pick(args, name, default)
    if value is None or value in ("", "off", "none"):
        return None
    try:
        return _host_port(value)
    except argparse.ArgumentTypeError as error:
        raise ConfigError(f"{name}: {error}") from None


def _duration_option(args: argparse.Namespace, name: str) -> timedelta | None:
    from .configfile import ConfigError

    value = _pick(args, name)
    if value is None or isinstance(value, timedelta):
        return value
    try:
        return _duration(value)
    except argparse.ArgumentTypeError as error:
        raise ConfigError(f"{name.replace('_', '-')}: {error}") from None


def _count_option(args: argparse.Namespace, name: str, default: int) -> int:
    from .configfile import ConfigError

    value = _pick(args, name, str(default))
    if not str(value).isdigit():
        raise ConfigError(f"{name.replace('_', '-')}: give a whole number, not {value!r}")
    return int(value)


def _log_level(args: argparse.Namespace) -> int:
    from .configfile import ConfigError
    from .logs import parse_level

    text = args.log_level or os.environ.get("GM_LOG_LEVEL") or _settings(args).get("log-level") or "info"
    try:
        return parse_level(text)
    except ValueError as error:
        raise ConfigError(str(error)) from None


def _serve(args: argparse.Namespace) -> int:
    import asyncio

    from . import logs
    from .pbem.daemon import Config, StartError, serve
    from .pbem.delivery import Relay

    relay = None
    relay_at = _address_option(args, "relay")
    if relay_at:
        password = _secret(_pick(args, "relay_password_file"), "GM_RELAY_PASSWORD")
        relay = Relay(*relay_at, starttls=bool(_pick(args, "relay_starttls", False)), user=_pick(args, "relay_user"),
                      password=password)
    config = Config(
        data=_data(args),
        smtp=_address_option(args, "smtp", "127.0.0.1:2525"),
        lmtp=_address_option(args, "lmtp"),
        http=_address_option(args, "http"),
        web_only=bool(_pick(args, "web_only", False)),
        imap=_pick(args, "imap"),
        imap_user=_pick(args, "imap_user") or os.environ.get("GM_IMAP_USER"),
        imap_password=_secret(_pick(args, "imap_password_file"), "GM_IMAP_PASSWORD"),
        relay=relay,
        identity=_identity(args),
        catch_up=_duration_option(args, "catch_up"),
        trusted_received=_count_option(args, "trusted_received", 1),
        owner=_pick(args, "owner"),
    )
    logs.setup(_log_level(args))
    if config.web_only:
        from .configfile import ConfigError
        from .web.site import run_alone

        if config.http is None:
            raise ConfigError("web-only: give --http HOST:PORT too")
        return run_alone(config.data, config.http, EXIT_START)
    where = f"SMTP on {config.smtp[0]}:{config.smtp[1]}" if config.smtp else "no SMTP listener"
    where += f"; web archive on http://{config.http[0]}:{config.http[1]}/" if config.http else ""
    out = f"relay {relay.host}:{relay.port}" if relay else f"local Maildir {config.data}/delivered/"
    shard = _shard_of(config.data)
    print(f"gm serving as {config.identity.address}{shard}: {where}; data in {config.data}/; outgoing mail to {out}",
          flush=True)
    try:
        asyncio.run(serve(config))
    except StartError as error:
        print(f"gm serve: {error}", file=sys.stderr)
        return EXIT_START
    except KeyboardInterrupt:  # Ctrl-C before the signal handlers were in place
        logs.event("stopped", signal="SIGINT")
    return 0


def _shard_of(data: str) -> str:
    """`` (shard K/S)`` when the data directory is a shard, else nothing."""
    from .configfile import ConfigError
    from .pbem.shards import shard_of

    try:
        shard = shard_of(data)
    except ValueError as error:
        raise ConfigError(str(error)) from None
    return f" (shard {shard})" if shard else ""


def _secret(path: str | None, variable: str) -> str | None:
    from .configfile import ConfigError

    if path:
        try:
            return Path(path).read_text().strip()
        except OSError as error:
            raise ConfigError(f"cannot read the password file {path}: {error.strerror or error}") from None
    return os.environ.get(variable)


def _new(args: argparse.Namespace) -> int:
    from datetime import datetime, timezone

    from .pbem.admin import request_game
    from .kernel.protocol import game_named
    from .kernel.values import Options

    options = Options(deadline=args.deadline, wait_for_deadline=args.wait_for_deadline,
                      reminder_before=min(args.remind_before, args.deadline / 2), forfeit_after=args.forfeit_after,
                      absence_max=args.absence_max, absence_total=args.absence_total,
                      public_each_turn=args.public_each_turn)
    store = _store(args)
    try:
        rules = game_named(args.game)
        asked = {"match": args.match, "match-games": args.match_games, "match-target": args.match_target}
        given = {name: str(value) for name, value in asked.items() if value is not None} if args.match else {}
        match = rules.creation_terms(given) if given else None  # the game reads its own terms
        if given and match is None:
            raise ValueError(f"--match: {rules.title} has no matches")
        if args.level and not args.robot:
            raise ValueError("--level is the robot's: give --robot too")
        variant = args.variant or rules.default_variant
        key, game_id = request_game(store, _identity(args), args.player, variant, options,
                                    datetime.now(timezone.utc), args.alias, match=match, game=args.game,
                                    observers=args.observer, robot=(args.level or "normal") if args.robot else None)
    except ValueError as error:
        print(f"gm new: {error}", file=sys.stderr)
        return 2
    print(f"game requested: {game_id} ({key}); the daemon sets it up and mails the invitations")
    return 0


def _games(args: argparse.Namespace) -> int:
    from .pbem.admin import describe_game, load_games, pending_requests

    store = _store(args)
    games = load_games(store)
    requested = [r for r in pending_requests(store) if r["game"] not in {g for g, _ in games}]
    rows = []
    for r in requested:
        rows.append((r["game"], f"{r['game']:<6} {r['kind']:<13} {'requested':<10} {' vs '.join(r['players'])}"))
    for game_id, game in games:
        d = describe_game(game)
        state = d["phase"] if d["phase"] != "play" else f"{game.rules.turn_word} {d['turn']}"
        state += " paused" if game.paused else ""
        deadline = f"deadline {d['deadline']}" if d["deadline"] else ""
        deadline += "".join(f"  {alias} away until {until}" for alias, until in d["absent"].items())
        deadline += f"  {len(d['observers'])} watching" if d["observers"] else ""
        rows.append((game_id, f"{d['game']:<6} {d['kind']:<13} {state:<10} {' vs '.join(d['players'])}  {deadline}".rstrip()))
    if not rows:
        print("no games")
    for _, line in sorted(rows, key=lambda row: (len(row[0]), row[0])):
        print(line)
    return 0


def _show(args: argparse.Namespace) -> int:
    import json

    from .pbem.admin import describe_game, load_games

    for game_id, game in load_games(_store(args)):
        if game_id == args.game:
            print(json.dumps(describe_game(game), indent=2))
            return 0
    print(f"gm show: no game {args.game}", file=sys.stderr)
    return 2


def _export(args: argparse.Namespace) -> int:
    from .pbem.admin import export_mbox

    store = _store(args)
    try:
        count = export_mbox(store, args.game, args.mbox, args.player)
    except KeyError as error:
        print(f"gm export: {error.args[0]}", file=sys.stderr)
        return 2
    print(f"{count} messages written to {args.mbox}")
    return 0


def _replay(args: argparse.Namespace) -> int:
    from .pbem.admin import verify_replay

    try:
        count, differences = verify_replay(args.maildir)
    except (FileNotFoundError, ValueError) as error:
        print(f"gm replay: {error}", file=sys.stderr)
        return 2
    for difference in differences:
        print(difference)
    print(f"{count} messages rebuilt from {args.maildir}: {'all identical' if not differences else f'{len(differences)} differ'}")
    return 0 if not differences else 1


def _shard(args: argparse.Namespace) -> int:
    """``gm shard init|transport|route|export|import`` (`gm.pbem.shards`)."""
    from .pbem import shards
    from .pbem.store import MissingDataDirectory

    identity = _identity(args)
    try:
        if args.what == "transport":
            print("\n".join(shards.transport_lines(identity.local, identity.domain, args.hops)))
        elif args.what == "route":
            if (args.hop is None) == (not args.hold):
                raise ValueError("give either the next hop (HOST:PORT) or --hold")
            print(shards.moved_line(identity.local, identity.domain, args.game, args.hop))
        elif args.what == "init":
            shard, store = shards.Shard.parse(args.shard), _store(args)
            changed = shards.init(store.root, shard)
            print(f"{store.root} {'is now' if changed else 'was already'} shard {shard}: the games it makes are "
                  f"gN with N mod {shard.count} = {shard.index}")
        elif args.what == "export":
            done = shards.export_game(_store(args), args.game, args.to, identity.local, identity.domain)
            print(f"exported {done.summary()} to {args.to}; `gm shard import {args.to}` on the new shard")
        else:
            done = shards.import_game(_store(args), args.bundle)
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

    def data_option(p: argparse.ArgumentParser) -> None:
        p.add_argument("--config", help="a TOML file of settings (see docs/operations.md); the command line wins")
        p.add_argument("--data", default=None, help="the data directory (default ./gm-data)")

    def identity_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--address", help="the GM's own address (default gm@localhost)")
        p.add_argument("--domain", help="the GM's domain, for gm@DOMAIN")

    serve = commands.add_parser("serve", help="run the game master daemon",
                                description="Run the daemon. With no options: SMTP on 127.0.0.1:2525, data in ./gm-data, "
                                "outgoing mail into ./gm-data/delivered/. SIGTERM or SIGINT stop it cleanly (exit 0). "
                                f"Exit {EXIT_CONFIG} for a wrong configuration, {EXIT_START} when it cannot start "
                                "(such as a port in use). See docs/operations.md.")
    data_option(serve)
    serve.add_argument("--smtp", help="HOST:PORT to listen for SMTP (default 127.0.0.1:2525; 'off' for none)")
    serve.add_argument("--lmtp", help="HOST:PORT to listen for LMTP, behind Postfix or Exim")
    serve.add_argument("--http", help="HOST:PORT to serve the public web archive of finished games (default off; "
                       "docs/operations.md, \"The web archive\")")
    serve.add_argument("--web-only", action="store_true", default=None,
                       help="serve only the web archive (needs --http): no mail, nothing written, so it may run "
                       "beside the daemon on the same data directory")
    serve.add_argument("--imap", help="poll this IMAP mailbox: imap://HOST:PORT/FOLDER (imaps:// for TLS); "
                       "user and password from GM_IMAP_USER and GM_IMAP_PASSWORD or --imap-user/--imap-password-file")
    serve.add_argument("--imap-user")
    serve.add_argument("--imap-password-file")
    serve.add_argument("--relay", help="HOST:PORT of an SMTP relay for outgoing mail (default: local Maildir)")
    serve.add_argument("--relay-starttls", action="store_true", default=None, help="use STARTTLS with the relay")
    serve.add_argument("--relay-user", help="log in to the relay as this user")
    serve.add_argument("--relay-password-file", help="the relay password (or GM_RELAY_PASSWORD)")
    serve.add_argument("--log-level", help="debug, info (the default), warning or error; or GM_LOG_LEVEL")
    serve.add_argument("--catch-up", metavar="DURATION",
                       help="after a start, how long deadlines that passed while gm was down wait for mail queued "
                       "meanwhile (default 2m with --lmtp or --imap, else 0)")
    serve.add_argument("--trusted-received", metavar="N",
                       help="Received headers your own MTA adds to LMTP mail; the lowest dates the mail (default 1)")
    serve.add_argument("--owner", metavar="ADDR",
                       help="the operator's address: actions by mail (each confirmed by a reply) and a daily summary")
    identity_options(serve)
    serve.set_defaults(run=_serve)

    new = commands.add_parser("new", help="create a game and queue its invitations")
    data_option(new)
    identity_options(new)
    new.add_argument("--player", action="append", required=True, metavar="ADDR", help="a player's address (once for each seat, in order)")
    new.add_argument("--robot", action="store_true", help="the GM's robot takes the last seat (Spaceships, Grid Fighters)")
    new.add_argument("--level", choices=("easy", "normal", "hard"),
                     help="the robot's level (default normal)")
    new.add_argument("--alias", action="append", metavar="NAME", help="a player's alias (once for each seat, in player order)")
    new.add_argument("--observer", action="append", metavar="ADDR",
                     help="an address that watches the game: a note now, the whole game when it ends (repeatable)")
    new.add_argument("--game", default="spaceships", type=str.lower,
                     help="the game: spaceships (the default) or gridfighters")
    new.add_argument("--variant", help="the ruleset, e.g. 2.6.1 or 2.6.1+fleet=24 (default: the game's own)")
    new.add_argument("--deadline", type=_duration, default=timedelta(hours=72), help="time for each turn (default 72h)")
    new.add_argument("--remind-before", type=_duration, default=timedelta(hours=12), help="remind this long before the deadline")
    new.add_argument("--forfeit-after", type=int, default=3, help="turns in a row without orders that forfeit (default 3)")
    new.add_argument("--absence-max", type=_duration, default=timedelta(days=14),
                     help="the longest absence a player may declare (default 14d)")
    new.add_argument("--absence-total", type=_duration, default=timedelta(days=28),
                     help="how long a player's absences in a game may add up to (default 28d)")
    new.add_argument("--wait-for-deadline", action="store_true", help="run turns only at the deadline")
    new.add_argument("--public-each-turn", action="store_true",
                     help="both players agreed that the web archive may show the game after each turn, "
                     "as an observer sees it (default: only once it has ended)")
    new.add_argument("--match", choices=("scored", "continued"), help="play a scored [9] or continued [10] match")
    new.add_argument("--match-games", type=int, metavar="N", help="the match ends after N games")
    new.add_argument("--match-target", type=int, metavar="N", help="a scored match ends once a player has N points")
    new.set_defaults(run=_new)

    games = commands.add_parser("games", help="list games with turn, state and next deadline")
    data_option(games)
    games.set_defaults(run=_games)

    show = commands.add_parser("show", help="show one game")
    show.add_argument("game")
    data_option(show)
    show.set_defaults(run=_show)

    export = commands.add_parser("export", help="write a game's archive as an mbox")
    export.add_argument("game")
    export.add_argument("--mbox", required=True, help="the mbox file to write")
    export.add_argument("--player", type=int, metavar="N",
                        help="only what the GM sent player N (what may be given to a player); default: the whole archive")
    data_option(export)
    export.set_defaults(run=_export)

    replay = commands.add_parser("replay", help="rebuild a game from its Maildir and check every message it sent")
    replay.add_argument("maildir", metavar="MAILDIR")
    replay.set_defaults(run=_replay)

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
                                          "route each game's plus-addresses to its shard: one HOP per shard, shard 0 first.")
    transport.add_argument("hops", nargs="+", metavar="HOP", help="a shard's LMTP listener HOST:PORT, or a Postfix next hop")
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

    from .operator_cli import add_commands

    add_commands(commands, data_option, identity_options)  # pause, resume, deadline, replace, cancel, shunt
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from .configfile import ConfigError
    from .pbem.store import MissingDataDirectory

    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except (ConfigError, MissingDataDirectory) as error:
        print(f"gm {args.command}: {error}", file=sys.stderr)
        return EXIT_CONFIG


if __name__ == "__main__":
    sys.exit(main())
