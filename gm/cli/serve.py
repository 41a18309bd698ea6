"""``gm serve``: the daemon, set up from the command line and the
configuration file."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from .. import logs
from ..configfile import SERVE, SHARED, ConfigError
from ..pbem.operator.shards import shard_of, unfinished_move
from ..process import StartError
from .options import EXIT_CONFIG, EXIT_START, add_settings, data_option, given, identity, identity_options, settings
from .owner import act_as_owner


def add_serve(commands: Any) -> None:
    """The ``serve`` command and its options."""
    serve = commands.add_parser("serve", help="run the game master daemon",
                                description="Run the daemon. With no options: SMTP on 127.0.0.1:2525, data in "
                                "./gm-data, "
                                "outgoing mail into ./gm-data/delivered/. SIGTERM or SIGINT stop it cleanly (exit 0). "
                                f"Exit {EXIT_CONFIG} for a wrong configuration, {EXIT_START} when it cannot start "
                                "(such as a port in use). See docs/operations.md.")
    data_option(serve)
    add_settings(serve, *(setting.key for setting in SERVE))
    identity_options(serve)
    serve.set_defaults(run=_serve)


def _log_level(args: argparse.Namespace) -> int:
    text = args.log_level or os.environ.get("GM_LOG_LEVEL") or settings(args).get("log-level") or "info"
    try:
        return logs.parse_level(text)
    except ValueError as error:
        raise ConfigError(str(error)) from None


def _serve(args: argparse.Namespace) -> int:
    """The daemon, set up as the options say. It runs as the data
    directory's owner, as the administration commands write it
    (`gm.cli.owner`): run by root, it reads its configuration and password
    files as root, then becomes the owner of an existing data directory
    before it opens the directory or binds a listener, so that nothing it
    writes is root's, where the owner's own daemon could not write it
    again; a new data directory, or root's own (a container where root is
    the only user), is served as root. Run by another user, it is refused.
    ``--web-only`` writes nothing and runs as whoever starts it."""
    import asyncio  # here, not at the top: at the top, every other gm command would pay for it at start-up

    from ..daemon import Config, serve  # here: the daemon's stack (aiosmtpd, ssl) costs other commands ~0.1 s
    from ..pbem.serving.delivery import Relay  # here: it brings asyncio, smtplib and ssl, as above

    values = given(args, SHARED + SERVE)  # each one a Config field of its name, but for those taken out here
    for apart in ("address", "domain", "log_level"):  # the identity, and the log (whose GM_LOG_LEVEL comes between)
        values.pop(apart, None)
    relay_at, starttls = values.pop("relay", None), values.pop("relay_starttls", False)
    user, password_file = values.pop("relay_user", None), values.pop("relay_password_file", None)
    relay = None
    if relay_at:
        host, port = relay_at
        relay = Relay(host, port, starttls=starttls, user=user, password=_secret(password_file, "GM_RELAY_PASSWORD"))
    values["imap_user"] = values.get("imap_user") or os.environ.get("GM_IMAP_USER")
    imap_password = _secret(values.pop("imap_password_file", None), "GM_IMAP_PASSWORD")
    config = Config(**values, relay=relay, imap_password=imap_password, identity=identity(args))
    logs.setup(_log_level(args))
    if config.web_only:
        from ..web.site import run_alone  # here: aiohttp (~0.4 s of start-up) only for the web archive

        if config.http is None:
            raise ConfigError("web-only: give --http HOST:PORT too")
        return run_alone(config.data, config.http, EXIT_START)
    act_as_owner(Path(config.data), getattr(args, "words", ["serve", "..."]))  # before it opens or binds anything
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
    """`` (shard K/S)`` when the data directory is a shard, else nothing.
    ConfigError while a move of a game (`gm shard export` or ``import``) is
    cut short there: the daemon would shunt the mail of a game that left, or
    run one whose mail is not all in place."""
    try:
        shard = shard_of(data)
    except ValueError as error:
        raise ConfigError(str(error)) from None
    unfinished = unfinished_move(data)
    if unfinished:
        raise ConfigError(f"{data}: {unfinished}, before starting gm (docs/operations.md, \"An interrupted move\")")
    return f" (shard {shard})" if shard else ""


def _secret(path: str | None, variable: str) -> str | None:
    """A password: from the file named, else from the environment variable."""
    if path:
        try:
            return Path(path).read_text().strip()
        except OSError as error:
            raise ConfigError(f"cannot read the password file {path}: {error.strerror or error}") from None
    return os.environ.get(variable)
