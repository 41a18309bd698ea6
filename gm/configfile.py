"""The settings of `gm serve`, declared once, and the TOML configuration file
every data-using command reads (``--config``).

`SETTINGS` is the one declaration of each setting: its key (the TOML key, and
with two dashes the command-line option), what kind of value it takes, and
its help. The command line builds its options from it and reads every value
through its kind (`gm.cli.options`); this module checks a file's keys and the
TOML types of their values against it.

A key gm does not know is an error naming it and the nearest known key, since
a typo silently ignored (``relay_user`` for ``relay-user``, ``adress``) would
make gm run with a default the operator did not mean, such as a fresh data
directory.
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass
from enum import Enum, auto
from pathlib import Path
from typing import Any


class Kind(Enum):
    """What a setting's value is. A file gives a FLAG as true or false and
    every other kind as a string, read as the command line's would be."""

    TEXT = auto()
    FLAG = auto()
    PLACE = auto()
    """HOST:PORT, or off."""
    DURATION = auto()
    """A number and a unit, such as 2m."""
    COUNT = auto()
    """A whole number."""
    TIME = auto()
    """A time of day, HH:MM (seconds and their parts may follow: HH:MM:SS.ffffff)."""


@dataclass(frozen=True)
class Setting:
    """One setting of `gm serve`: the TOML key ``key``, the option ``--key``."""

    key: str
    help: str | None
    kind: Kind = Kind.TEXT
    metavar: str | None = None

    @property
    def option(self) -> str:
        return f"--{self.key}"

    @property
    def dest(self) -> str:
        """Its name in Python: the argparse attribute, the daemon's `Config` field."""
        return self.key.replace("-", "_")


SHARED = (
    Setting("data", "the data directory (default ./gm-data)"),
    Setting("address", "the GM's own address (default gm@localhost)"),
    Setting("domain", "the GM's domain, for gm@DOMAIN"),
)
"""What every data-using command reads, from its options or the file."""

SERVE = (
    Setting("smtp", "HOST:PORT to listen for SMTP (default 127.0.0.1:2525; 'off' for none)", Kind.PLACE),
    Setting("lmtp", "HOST:PORT to listen for LMTP, behind Postfix or Exim", Kind.PLACE),
    Setting("http", "HOST:PORT to serve the public web archive of finished games (default off; "
            "docs/operations.md, \"The web archive\")", Kind.PLACE),
    Setting("web-only", "serve only the web archive (needs --http): no mail, nothing written, so it may run "
            "beside the daemon on the same data directory", Kind.FLAG),
    Setting("imap", "poll this IMAP mailbox: imap://HOST:PORT/FOLDER (imaps:// for TLS); "
            "user and password from GM_IMAP_USER and GM_IMAP_PASSWORD or --imap-user/--imap-password-file"),
    Setting("imap-user", None),
    Setting("imap-password-file", None),
    Setting("relay", "HOST:PORT of an SMTP relay for outgoing mail (default: local Maildir)", Kind.PLACE),
    Setting("relay-starttls", "use STARTTLS with the relay", Kind.FLAG),
    Setting("relay-user", "log in to the relay as this user"),
    Setting("relay-password-file", "the relay password (or GM_RELAY_PASSWORD)"),
    Setting("log-level", "debug, info (the default), warning or error; or GM_LOG_LEVEL"),
    Setting("catch-up", "after a start, how long deadlines that passed while gm was down wait for mail queued "
            "meanwhile (default 2m with --lmtp or --imap, else 0)", Kind.DURATION, "DURATION"),
    Setting("trusted-received", "Received headers your own MTA adds to LMTP mail; the lowest dates the mail "
            "(default 1)", Kind.COUNT, "N"),
    Setting("owner", "the operator's address: actions by mail (each confirmed by a reply) and a daily summary",
            metavar="ADDR"),
    Setting("web-url", "the web archive's public address (https://...), for the one-click unsubscribe links of "
            "digests and notices (docs/operations.md, \"Lists and unsubscribing\")", metavar="URL"),
    Setting("vacation-bank", "how long a player's vacations for all games may add up to in any rolling year "
            "(default 30d)", Kind.DURATION, "DURATION"),
    Setting("digest-time", "when the daily digest of the games that wait for a player is due, in the player's own "
            "time (default 07:00)", Kind.TIME, "HH:MM"),
    Setting("masters", "master processes that run the games, each its share (default 1: in the daemon's own "
            "process; docs/operations.md, \"Several master processes\")", Kind.COUNT, "N"),
)
"""What only `gm serve` reads, in the order ``gm serve --help`` lists it."""

SETTINGS = {setting.key: setting for setting in SHARED + SERVE}
KNOWN_KEYS = tuple(key for key, setting in SETTINGS.items() if setting.kind is not Kind.FLAG) + tuple(
    key for key, setting in SETTINGS.items() if setting.kind is Kind.FLAG)
"""Every key, as an unknown key's error lists them: strings first."""


class ConfigError(ValueError):
    """The configuration cannot be used; the message is one line for the operator."""


def load(path: str | Path) -> dict[str, Any]:
    """The settings in the TOML file at ``path``, checked: every key known,
    every value of its kind. Raises ConfigError."""
    try:
        with open(path, "rb") as handle:
            settings = tomllib.load(handle)
    except OSError as error:
        raise ConfigError(f"cannot read the configuration {path}: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    check(settings, str(path))
    return settings


def check(settings: dict[str, Any], where: str) -> None:
    """Raise ConfigError for an unknown key or a value of the wrong kind."""
    for key, value in settings.items():
        if key not in SETTINGS:
            raise ConfigError(f"{where}: unknown key {key!r}{suggestion(key)}")
        if SETTINGS[key].kind is Kind.FLAG:
            if not isinstance(value, bool):
                raise ConfigError(f"{where}: {key} must be true or false, not {value!r}")
        elif not isinstance(value, str):
            raise ConfigError(f"{where}: {key} must be a string in quotes, not {value!r}")


def suggestion(key: str) -> str:
    """``"; did you mean 'relay-user'?"``, or nothing when no known key is near."""
    near = difflib.get_close_matches(key.replace("_", "-").lower(), KNOWN_KEYS, n=1, cutoff=0.6)
    return f"; did you mean {near[0]!r}?" if near else f" (known keys: {', '.join(KNOWN_KEYS)})"
