"""Durable Maildirs: every message gm keeps is a file any mail client can open.

`mailbox.Maildir` reads and exports well, but its ``add`` does not fsync, and
gm promises that a message acknowledged with 250 survives a power cut. So
writing goes through `DurableMaildir.add`: the message is written into
``tmp/``, flushed and fsynced, renamed into ``new/``, and ``new/`` itself is
fsynced, as the Maildir specification intends. Names are chosen by the
caller where they must be deterministic (so that redoing a step after a crash
finds the file already there instead of writing it twice).
"""

from __future__ import annotations

import mailbox
import os
import socket
from pathlib import Path
from typing import Iterator

_HOST = socket.gethostname().replace("/", "_").replace(":", "_") or "localhost"


def fsync_dir(path: Path) -> None:
    """Make a directory's entries (a rename, a new file) durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def unix_lines(data: bytes) -> bytes:
    """A message with the line ends mail programs expect in a Maildir on
    Unix (LF, not the CRLF of the wire). gm keeps its games and its local
    deliveries so; `gm replay` compares in this form."""
    return data.replace(b"\r\n", b"\n")


class DurableMaildir:
    """A Maildir whose additions are durable when `add` returns.

    Keys are file names in ``new/`` or ``cur/`` without the ``:2,`` info
    suffix; `keys` lists them sorted, so callers that need an order name
    their files so that it sorts (gm's archives start each name with a
    zero-padded sequence number).

    The keys are also kept in memory once listed, so that checking for a key
    (which every idempotent write does) costs no directory scan; gm is the
    only writer of its Maildirs, and `keys` always reads the disk again (the
    spool also receives files from ``gm new`` in another process).
    """

    def __init__(self, path: str | os.PathLike[str], create: bool = True):
        self.path = Path(path)
        self._known: set[str] | None = None
        if create:
            for sub in ("tmp", "new", "cur"):
                (self.path / sub).mkdir(parents=True, exist_ok=True)
            fsync_dir(self.path)
            fsync_dir(self.path.parent)
        elif not (self.path / "new").is_dir():
            raise FileNotFoundError(f"{self.path} is not a Maildir (no new/ folder)")

    def add(self, data: bytes, key: str, seen: bool = False) -> str:
        """Store ``data`` under ``key`` durably, unless the key exists already.

        Returns the key. A message stored as seen goes to ``cur/`` with the
        ``S`` flag, so a mail client shows gm's own archive as read."""
        if "/" in key or ":" in key or key.startswith("."):
            raise ValueError(f"bad Maildir key {key!r}")
        if key in self:
            return key
        tmp = self.path / "tmp" / f"{key}.{os.getpid()}.{_HOST}"
        try:
            with open(tmp, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        except BaseException:
            # A half-written file (a full disk) would keep its space taken.
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass
            raise
        target = self.path / "cur" / f"{key}:2,S" if seen else self.path / "new" / key
        os.replace(tmp, target)
        fsync_dir(target.parent)
        if self._known is not None:
            self._known.add(key)
        return key

    def _find(self, key: str) -> Path | None:
        cur = self.path / "cur"
        # gm writes only these two names; a mail client that changed a
        # message's flags is caught by the scan below.
        for candidate in (self.path / "new" / key, cur / f"{key}:2,S", cur / key):
            if candidate.exists():
                return candidate
        for candidate in cur.glob(f"{glob_escape(key)}:2,*"):
            return candidate
        return None

    def __contains__(self, key: str) -> bool:
        if self._known is None:
            self.keys()
        return key in self._known  # type: ignore[operator]

    def keys(self) -> list[str]:
        names = set()
        for sub in ("new", "cur"):
            for entry in os.scandir(self.path / sub):
                if not entry.name.startswith("."):
                    names.add(entry.name.split(":2,")[0])
        self._known = names
        return sorted(names)

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self.keys())

    def get_bytes(self, key: str) -> bytes:
        path = self._find(key)
        if path is None:
            raise KeyError(key)
        return path.read_bytes()

    def file_of(self, key: str) -> Path:
        path = self._find(key)
        if path is None:
            raise KeyError(key)
        return path

    def remove(self, key: str) -> None:
        """Delete a message durably (no error if it is already gone)."""
        path = self._find(key)
        if path is not None:
            path.unlink(missing_ok=True)
            fsync_dir(path.parent)
        if self._known is not None:
            self._known.discard(key)

    def mailbox(self) -> mailbox.Maildir:
        """The standard library's view of this Maildir, for reading and export."""
        return mailbox.Maildir(self.path, factory=None, create=False)


def glob_escape(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)
