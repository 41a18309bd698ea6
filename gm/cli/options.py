"""What every group of ``gm`` commands shares: the exit statuses, the
options that name the data directory and the GM's identity, and the reading
of a setting from the command line or the configuration file."""

from __future__ import annotations

import argparse
from datetime import timedelta
from typing import Any

from ..configfile import ConfigError, load
from ..kernel.clock import parse_duration
from ..pbem.mailer import Identity
from ..pbem.store import Store

EXIT_CONFIG = 2
"""Exit status when the command line or the configuration is wrong, or the
data directory named does not exist: running again will not help."""
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
    """``HOST:PORT`` (``[::1]:25`` too); a missing host is 127.0.0.1."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r}: give HOST:PORT, such as 127.0.0.1:2525")
    return host.strip("[]") or "127.0.0.1", int(port)


def data_option(parser: argparse.ArgumentParser) -> None:
    """``--config`` and ``--data``: where a command finds its games."""
    parser.add_argument("--config", help="a TOML file of settings (see docs/operations.md); the command line wins")
    parser.add_argument("--data", default=None, help="the data directory (default ./gm-data)")


def identity_options(parser: argparse.ArgumentParser) -> None:
    """``--address`` and ``--domain``: whom the GM's mail comes from."""
    parser.add_argument("--address", help="the GM's own address (default gm@localhost)")
    parser.add_argument("--domain", help="the GM's domain, for gm@DOMAIN")


def settings(args: argparse.Namespace) -> dict[str, Any]:
    """The configuration file's settings (checked), or none; read once."""
    if "_settings" not in vars(args):
        args._settings = load(args.config) if getattr(args, "config", None) else {}
    return args._settings


def pick(args: argparse.Namespace, name: str, default: Any = None) -> Any:
    """An option: the command line's, else the configuration file's, else ``default``."""
    value = getattr(args, name, None)
    return value if value is not None else settings(args).get(name.replace("_", "-"), default)


def data(args: argparse.Namespace) -> str:
    """The data directory named (``gm-data`` when none is)."""
    return pick(args, "data", "gm-data")


def store(args: argparse.Namespace) -> Store:
    """The existing data directory; a missing one is an error (MissingDataDirectory)."""
    return Store(data(args), create=False)


def identity(args: argparse.Namespace) -> Identity:
    """The GM's address: ``--address``, else gm@ ``--domain``, else gm@localhost."""
    address, domain = pick(args, "address"), pick(args, "domain")
    return Identity(address=address or (f"gm@{domain}" if domain else "gm@localhost"))


def place(args: argparse.Namespace, name: str, default: str | None = None) -> tuple[str, int] | None:
    """A HOST:PORT option; ``off`` (or nothing) is None."""
    value = pick(args, name, default)
    if value is None or value in ("", "off", "none"):
        return None
    try:
        return host_port(value)
    except argparse.ArgumentTypeError as error:
        raise ConfigError(f"{name}: {error}") from None


def duration_option(args: argparse.Namespace, name: str) -> timedelta | None:
    """A duration option (``2m``), or None when not given."""
    value = pick(args, name)
    if value is None or isinstance(value, timedelta):
        return value
    try:
        return duration(value)
    except argparse.ArgumentTypeError as error:
        raise ConfigError(f"{name.replace('_', '-')}: {error}") from None


def count_option(args: argparse.Namespace, name: str, default: int) -> int:
    """A whole-number option."""
    value = pick(args, name, str(default))
    if not str(value).isdigit():
        raise ConfigError(f"{name.replace('_', '-')}: give a whole number, not {value!r}")
    return int(value)
