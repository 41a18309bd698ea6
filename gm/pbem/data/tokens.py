"""Players' secrets: the token in every reply address, and the password line.

A player's secret is never stored. It is derived from the server's key as
HMAC-SHA256(key, "game/player") and checked by deriving it again and
comparing in constant time, so the data directory holds one secret (the key,
readable by its owner only) and no table of passwords that could leak.
"""

from __future__ import annotations

import base64
import errno
import functools
import hashlib
import hmac
import os
from pathlib import Path

TOKEN_LENGTH = 16
PLACEHOLDER = "@@GM-SECRET-16@@"
"""Stands for the recipient's token in rendered mail until it is sent."""
MASK = "*" * TOKEN_LENGTH
"""What the archive's copy of a sent message shows instead of the token."""


def load_key(path: Path, make: bool = True) -> bytes:
    """The server key, made (randomly, once) if the file does not exist yet
    and ``make`` says the directory is new. An empty file is a key emptied
    by damage, never one gm made, and a missing one where the directory
    holds data (not ``make``) a key lost: under a new key every player's
    mail would read as forged, so either is refused (an OSError naming the
    file: `gm serve` does not start) until the key is restored."""
    try:
        key = path.read_bytes()
        if not key:
            raise OSError(errno.EINVAL, "the server key is empty: restore it from the backup", str(path))
        return key
    except FileNotFoundError:
        if not make:
            raise OSError(errno.ENOENT, "the server key is missing, and the directory holds games and mail made "
                          "under it: restore it from the backup (docs/operations.md, \"Backups\")", str(path)) from None
        key = os.urandom(32)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(key)
            handle.flush()
            os.fsync(handle.fileno())
        return key


@functools.lru_cache(maxsize=4096)
def token(key: bytes, game: str, player: int) -> str:
    """The secret of ``player`` in ``game``: lower-case base32, no padding.
    Kept once derived: the master derives a seat's for every mail it sends
    the seat and every mail it checks from it (the process holds the key
    they are derived from anyway)."""
    digest = hmac.new(key, f"{game}/{player}".encode(), hashlib.sha256).digest()
    return base64.b32encode(digest).decode().lower()[:TOKEN_LENGTH]


def deputy_subject(subject: str, deputy: str) -> str:
    """What a deputy's token is derived for (`gm.kernel.deputies`): the
    seat's subject (`MailGame.secret_subject_of`) and the deputy's address,
    so that the deputy has a secret of their own, and one that no longer
    counts once another deputy is named or the seat moves."""
    return f"{subject}/deputy/{deputy.lower()}"


def instance_tag(key: bytes, game: str, created: str) -> str:
    """A tag that makes a game's Message-IDs unique to this installation and
    this game's creation: a data directory made afresh (a new key) or reset
    (new creation times) never repeats one. It reveals nothing of the key."""
    digest = hmac.new(key, f"message-id/{game}/{created}".encode(), hashlib.sha256).hexdigest()
    return digest[:10]


def verify(key: bytes, game: str, player: int, candidate: str) -> bool:
    return hmac.compare_digest(token(key, game, player), candidate.strip().lower())


def reveal(data: bytes, secret: str) -> bytes:
    """The message as sent: the placeholder replaced by the real token."""
    return data.replace(PLACEHOLDER.encode(), secret.encode())


def mask(data: bytes) -> bytes:
    """The message as archived: the placeholder replaced by asterisks."""
    return data.replace(PLACEHOLDER.encode(), MASK.encode())
