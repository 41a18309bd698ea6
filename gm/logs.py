"""The daemon's log: one line per record on stderr, and never a secret.

Lines read ``LEVEL logger: message``, for example::

    INFO gm: listening proto=smtp addr=127.0.0.1:2525

with key=value fields (`event` writes them), so that ``grep`` and
``journalctl -g`` find them. Under systemd (``JOURNAL_STREAM`` names our
stderr) or when stderr is not a terminal the line has no timestamp, since
journald and other collectors add their own; under systemd each line also
starts with a ``<N>`` syslog priority, which journald turns into the entry's
priority.
On a terminal each line starts with an ISO 8601 timestamp instead.

Players' secrets must never reach a log, whatever the level and whichever
library logged: `SecretFilter` sits on the handler and masks every reply
plus-address token (``gm+g1.2.****************@``) and every ``password``
line's argument in the formatted message and any traceback. aiosmtpd's
per-command chatter (logger ``mail.log``) is kept at WARNING unless the level
is DEBUG, when its SMTP dialogue is shown, masked.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import time
from collections.abc import Callable
from datetime import datetime
from typing import IO, Any

log = logging.getLogger("gm")

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
SMTP_LOGGERS = ("mail.log", "mail.debug")
"""aiosmtpd's loggers: every SMTP command, with its addresses, at INFO."""

MASK = "*" * 16
"""What a secret is shown as: as many asterisks as a player's token has
letters, as in the archive's copies of the GM's mail (`gm.pbem.data.tokens.MASK`)."""

_PLUS_TOKEN = re.compile(r"(\+[\w-]+\.\d+\.)[A-Za-z0-9]+")
_PASSWORD = re.compile(r"(password\s+)\S+", re.I)
_MASKED = rf"\g<1>{MASK}"
"""What `_PLUS_TOKEN` and `_PASSWORD` are replaced by: what came before the secret, then `MASK`."""
_SYSLOG_PRIORITY = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3, logging.CRITICAL: 2}


def mask_secrets(text: str) -> str:
    """``text`` with every reply-address token and password argument masked.

    Any run of letters and digits after ``+GAME.PLAYER.`` counts as a token,
    so that a mistyped (and so nearly right) token is masked as well."""
    text = _PLUS_TOKEN.sub(_MASKED, text)
    return _PASSWORD.sub(_MASKED, text)


class SecretFilter(logging.Filter):
    """Masks secrets in each record before any formatter sees it.

    The message is formatted here (arguments merged in) and its result masked,
    so a secret passed as an argument, as bytes or inside a repr, is caught
    too; a traceback's text is masked the same way."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = mask_secrets(record.getMessage())
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = mask_secrets(record.exc_text)
        if record.stack_info:
            record.stack_info = mask_secrets(record.stack_info)
        return True


class LineFormatter(logging.Formatter):
    """``[TIMESTAMP ]LEVEL logger: message``, always on one line (a
    traceback's lines are joined with `` | ``)."""

    def __init__(self, timestamps: bool, priorities: bool):
        super().__init__()
        self.timestamps = timestamps
        self.priorities = priorities

    def format(self, record: logging.LogRecord) -> str:
        text = f"{record.levelname} {record.name}: {record.getMessage()}"
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            text += " | " + record.exc_text
        if record.stack_info:
            text += " | " + record.stack_info
        lines = text.splitlines()  # most records are one line, kept as it is
        text = lines[0] if len(lines) == 1 and lines[0].strip() else " | ".join(line for line in lines if line.strip())
        if self.timestamps:
            stamp = datetime.fromtimestamp(record.created).astimezone().isoformat(timespec="milliseconds")
            text = f"{stamp} {text}"
        if self.priorities:
            text = f"<{_SYSLOG_PRIORITY.get(record.levelno, 6)}>{text}"
        return text


def under_journald(stream: IO[str]) -> bool:
    """True when ``stream`` is the journal stream systemd gave us
    (``JOURNAL_STREAM`` is ``DEVICE:INODE`` of that stream)."""
    value = os.environ.get("JOURNAL_STREAM", "")
    device, _, inode = value.partition(":")
    try:
        status = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return device.isdigit() and inode.isdigit() and (status.st_dev, status.st_ino) == (int(device), int(inode))


def parse_level(text: str) -> int:
    """A level name (any case) as a number; ValueError names the choices."""
    name = text.strip().upper()
    if name not in LEVELS:
        raise ValueError(f"log level {text!r}: choose one of {', '.join(level.lower() for level in LEVELS)}")
    return getattr(logging, name)


def setup(level: int | str = logging.INFO, stream: IO[str] | None = None) -> logging.Handler:
    """Send every log record to ``stream`` (stderr) as one masked line.

    The handler goes on the root logger, so every library's records pass
    the secret filter; it replaces the one an earlier call put there."""
    stream = stream if stream is not None else sys.stderr
    number = parse_level(level) if isinstance(level, str) else level
    journald = under_journald(stream)
    terminal = hasattr(stream, "isatty") and stream.isatty()
    handler = logging.StreamHandler(stream)
    handler.addFilter(SecretFilter())
    handler.setFormatter(LineFormatter(timestamps=terminal and not journald, priorities=journald))
    handler.set_name("gm")
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == "gm"]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(number)
    for name in SMTP_LOGGERS:
        logging.getLogger(name).setLevel(logging.INFO if number <= logging.DEBUG else logging.WARNING)
    return handler


_QUOTED = re.compile(r'[\s"=\\]')
"""What puts a field's value in quotes: a space, a quote, an equals sign or a backslash."""


def quote(value: Any) -> str:
    """A field value as written in a log line: bare when it is one plain
    word, otherwise in double quotes with backslash escapes."""
    text = str(value)
    if text and not _QUOTED.search(text):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def fields(**values: Any) -> str:
    """``k=v k=v`` for the values given, in order; None values are left out."""
    return " ".join([f"{key.replace('_', '-')}={quote(value)}" for key, value in values.items() if value is not None])


def event(name: str, level: int = logging.INFO, **values: Any) -> None:
    """Log ``name k=v k=v`` on the ``gm`` logger: one of gm's own events.
    Nothing is written out when the logger would drop the record (a level
    it does not log)."""
    if not log.isEnabledFor(level):
        return
    detail = fields(**values)
    log.log(level, "%s %s", name, detail) if detail else log.log(level, "%s", name)


class Throttled:
    """One event that may come thousands of times a second (a refused
    connection in a flood), logged at ``level`` at most once every ``every``
    seconds: the first at once, each later one with ``unlogged=N``, the
    number left out since the last line."""

    def __init__(self, level: int = logging.WARNING, every: float = 60.0,
                 clock: Callable[[], float] = time.monotonic):
        self.level = level
        self.every = every
        self.clock = clock
        self._next = float("-inf")
        self._unlogged = 0

    def log(self, name: str, **values: Any) -> None:
        """`event` ``name`` with ``values``, unless one was logged less than ``every`` seconds ago."""
        now = self.clock()
        if now < self._next:
            self._unlogged += 1
            return
        event(name, level=self.level, **values, unlogged=self._unlogged or None)
        self._next = now + self.every
        self._unlogged = 0
