"""The TOML configuration file every data-using command reads (``--config``).

Keys are the long options of `gm serve` without the leading dashes. A key gm
does not know is an error naming it and the nearest known key, since a typo
silently ignored (``relay_user`` for ``relay-user``, ``adress``) would make gm
run with a default the operator did not mean, such as a fresh data directory.
"""

from __future__ import annotations

import difflib
import tomllib
from pathlib import Path
from typing import Any

STRING_KEYS = (
    "data", "address", "domain", "smtp", "lmtp", "http", "imap", "imap-user", "imap-password-file",
    "relay", "relay-user", "relay-password-file", "log-level", "catch-up", "trusted-received",
    "owner",
)
BOOLEAN_KEYS = ("relay-starttls", "web-only")
KNOWN_KEYS = STRING_KEYS + BOOLEAN_KEYS


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
        if key not in KNOWN_KEYS:
            raise ConfigError(f"{where}: unknown key {key!r}{suggestion(key)}")
        if key in BOOLEAN_KEYS and not isinstance(value, bool):
            raise ConfigError(f"{where}: {key} must be true or false, not {value!r}")
        if key in STRING_KEYS and not isinstance(value, str):
            raise ConfigError(f"{where}: {key} must be a string in quotes, not {value!r}")


def suggestion(key: str) -> str:
    """``"; did you mean 'relay-user'?"``, or nothing when no known key is near."""
    near = difflib.get_close_matches(key.replace("_", "-").lower(), KNOWN_KEYS, n=1, cutoff=0.6)
    return f"; did you mean {near[0]!r}?" if near else f" (known keys: {', '.join(KNOWN_KEYS)})"
