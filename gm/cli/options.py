"""What every group of ``gm`` commands shares: the exit statuses, the
options built from the declared settings (`gm.configfile.SETTINGS`), and the
reading of a setting from the command line or the configuration file."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from datetime import time, timedelta
from pathlib import Path
from typing import Any

from ..configfile import SETTINGS, ConfigError, Kind, Setting, load
from ..kernel.clock import parse_duration
from ..pbem.data.store import Store
from ..pbem.writing.mailer import Identity
from .owner import act_as_owner

EXIT_CONFIG = 2
"""Exit status when the command line or the configuration is wrong, the
data directory named does not exist, or the user may not write it
(`gm.cli.owner`): running again will not help."""
EXIT_START = 1
"""Exit status when `gm serve` cannot start (a port in use, an unusable data
directory): it may work later."""


def duration(text: str) -> timedelta:
    """``72h``, ``3d``, ``90m`` or ``45s`` (`gm.kernel.clock.parse_duration`),
    for argparse, which shows an ArgumentTypeError's words as they are."""
    try:
        return parse_duration(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def host_port(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:25`` too); a missing host is 127.0.0.1.
    ValueError for anything else, or a port no socket can have."""
    host, sep, port = text.rpartition(":")
    if not sep or not (port.isascii() and port.isdigit()):
        raise ValueError(f"{text!r}: give HOST:PORT, such as 127.0.0.1:2525")
    if int(port) > 65535:
        raise ValueError(f"{text!r}: the port must be from 0 to 65535")
    return host.strip("[]") or "127.0.0.1", int(port)


def _place(text: str) -> tuple[str, int] | None:
    return None if text in ("", "off", "none") else host_port(text)


def _count(text: str) -> int:
    if not (text.isascii() and text.isdigit()):
        raise ValueError(f"give a whole number, not {text!r}")
    return int(text)


def _time_of_day(text: str) -> time:
    try:
        return time.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"give a time of day as HH:MM (or HH:MM:SS.ffffff), not {text!r}") from None


_READERS: dict[Kind, Callable[[Any], Any]] = {
    Kind.TEXT: str, Kind.FLAG: bool, Kind.PLACE: _place, Kind.DURATION: parse_duration, Kind.COUNT: _count,
    Kind.TIME: _time_of_day,
}
"""How a value of each kind is read, from the command line and the file alike."""


def add_settings(parser: argparse.ArgumentParser, *keys: str) -> None:
    """The options of the settings ``keys``, as `gm.configfile` declares them.
    An option not given is None, so that the file's value (or the default)
    shows through."""
    for setting in (SETTINGS[key] for key in keys):
        if setting.kind is Kind.FLAG:
            parser.add_argument(setting.option, action="store_true", default=None, help=setting.help)
        else:
            parser.add_argument(setting.option, metavar=setting.metavar, help=setting.help)


def data_option(parser: argparse.ArgumentParser) -> None:
    """``--config`` and ``--data``: where a command finds its games."""
    parser.add_argument("--config", help="a TOML file of settings (see docs/operations.md); the command line wins")
    add_settings(parser, "data")


def identity_options(parser: argparse.ArgumentParser) -> None:
    """``--address`` and ``--domain``: whom the GM's mail comes from."""
    add_settings(parser, "address", "domain")


def settings(args: argparse.Namespace) -> dict[str, Any]:
    """The configuration file's settings (checked), or none; read once."""
    if "_settings" not in vars(args):
        args._settings = load(args.config) if getattr(args, "config", None) else {}
    return args._settings


def pick(args: argparse.Namespace, key: str, default: Any = None) -> Any:
    """A setting as given: the command line's, else the configuration file's, else ``default``."""
    value = getattr(args, SETTINGS[key].dest, None)
    return value if value is not None else settings(args).get(key, default)


def given(args: argparse.Namespace, among: Iterable[Setting]) -> dict[str, Any]:
    """The settings ``among`` that the command line or the file gives, each
    read by its kind, by `Setting.dest`. ConfigError for a value that cannot
    be read, naming the setting."""
    values = {}
    for setting in among:
        value = pick(args, setting.key)
        if value is not None:
            try:
                values[setting.dest] = _READERS[setting.kind](value)
            except ValueError as error:
                raise ConfigError(f"{setting.key}: {error}") from None
    return values


def data(args: argparse.Namespace) -> str:
    """The data directory named (``gm-data`` when none is)."""
    return pick(args, "data", "gm-data")


def store(args: argparse.Namespace, writes: bool = True) -> Store:
    """The existing data directory; a missing one is an error (MissingDataDirectory).

    A command that ``writes`` it writes it as its owner, whose daemon must
    be able to write all of it: run by root, the process becomes the owner
    first; run by another user, `gm.cli.owner.NotOwner` refuses it before
    anything is written. ``args.words`` is the command line, for the
    refusal to show as it should have been run."""
    root = data(args)
    if writes:
        act_as_owner(Path(root), getattr(args, "words", [args.command, "..."]))
    return Store(root, create=False)


def identity(args: argparse.Namespace) -> Identity:
    """The GM's address: ``--address``, else gm@ ``--domain``, else gm@localhost."""
    address, domain = pick(args, "address"), pick(args, "domain")
    return Identity(address=address or (f"gm@{domain}" if domain else "gm@localhost"))
