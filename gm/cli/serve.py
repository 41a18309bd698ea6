"""``gm serve``: the daemon, set up from the command line and the
configuration file."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from .. import logs
from ..configfile import ConfigError
from ..pbem.shards import shard_of
from .options import (EXIT_CONFIG, EXIT_START, count_option, data, data_option, duration_option, identity,
                      identity_options, pick, place, settings)


def add_serve(commands: Any) -> None:
    """The ``serve`` command and its options."""
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


def _log_level(args: argparse.Namespace) -> int:
    text = args.log_level or os.environ.get("GM_LOG_LEVEL") or settings(args).get("log-level") or "info"
    try:
        return logs.parse_level(text)
    except ValueError as error:
        raise ConfigError(str(error)) from None


def _serve(args: argparse.Namespace) -> int:
    # The daemon's stack (asyncio, aiosmtpd, ssl) costs every other command
    # about 0.1 s of start-up, and the web archive's (aiohttp) about 0.4 s:
    # imported only by the command that runs them.
    import asyncio

    from ..pbem.daemon import Config, StartError, serve
    from ..pbem.delivery import Relay

    relay = None
    relay_at = place(args, "relay")
    if relay_at:
        password = _secret(pick(args, "relay_password_file"), "GM_RELAY_PASSWORD")
        relay = Relay(*relay_at, starttls=bool(pick(args, "relay_starttls", False)), user=pick(args, "relay_user"),
                      password=password)
    config = Config(
        data=data(args),
        smtp=place(args, "smtp", "127.0.0.1:2525"),
        lmtp=place(args, "lmtp"),
        http=place(args, "http"),
        web_only=bool(pick(args, "web_only", False)),
        imap=pick(args, "imap"),
        imap_user=pick(args, "imap_user") or os.environ.get("GM_IMAP_USER"),
        imap_password=_secret(pick(args, "imap_password_file"), "GM_IMAP_PASSWORD"),
        relay=relay,
        identity=identity(args),
        catch_up=duration_option(args, "catch_up"),
        trusted_received=count_option(args, "trusted_received", 1),
        owner=pick(args, "owner"),
    )
    logs.setup(_log_level(args))
    if config.web_only:
        from ..web.site import run_alone

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
    try:
        shard = shard_of(data)
    except ValueError as error:
        raise ConfigError(str(error)) from None
    return f" (shard {shard})" if shard else ""


def _secret(path: str | None, variable: str) -> str | None:
    """A password: from the file named, else from the environment variable."""
    if path:
        try:
            return Path(path).read_text().strip()
        except OSError as error:
            raise ConfigError(f"cannot read the password file {path}: {error.strerror or error}") from None
    return os.environ.get(variable)
