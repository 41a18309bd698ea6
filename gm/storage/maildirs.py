"""Durable Maildirs: every message gm keeps is a file any mail client can open.

`mailbox.Maildir` reads and exports well, but its ``add`` does not fsync, and
gm promises that a message acknowledged with 250 survives a power cut. So
writing goes through `DurableMaildir.add`: the message is written into
``tmp/``, made durable, renamed into ``new/`` (or ``cur/``), and that rename
is made durable, as the Maildir specification intends. Names are chosen by
the caller where they must be deterministic (so that redoing a step after a
crash finds the file already there instead of writing it twice).

Inside a batch (`gm.storage.batches.Batch`) an addition is only staged, and
durable once the batch is committed.
"""

from __future__ import annotations

import mailbox
import os
from collections.abc import Iterator
from pathlib import Path

from .batches import HOST, Staged, current_batch, drop_half_written, staging_name, write_staged
from .syncing import Syncer, fsync_dir


def unix_lines(data: bytes) -> bytes:
    """A message with the line ends mail programs expect in a Maildir on
    Unix (LF, not the CRLF of the wire). gm keeps its games and its local
    deliveries so; `gm replay` compares in this form, and the master reads
    a player's mail in it (`gm.pbem.master.incoming.Incoming.stored`)."""
    return data.replace(b"\r\n", b"\n")


class DurableMaildir:
    """A Maildir whose additions are durable when `add` returns (or, in a
    `Batch`, when the batch is committed).

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
        self._tmp, self._new, self._cur = self.path / "tmp", self.path / "new", self.path / "cur"
        """Its folders, joined once: a path of a message is one join away."""
        self._folders = {sub: os.path.join(self.path, sub) for sub in ("tmp", "new", "cur")}
        """The same as strings, for the files a batch stages (no Path made for each)."""
        self._known: set[str] | None = None
        self._syncer: Syncer | None = None
        if create:
            for sub in ("tmp", "new", "cur"):
                (self.path / sub).mkdir(parents=True, exist_ok=True)
            fsync_dir(self.path)
            fsync_dir(self.path.parent)
        elif not (self.path / "new").is_dir():
            raise FileNotFoundError(f"{self.path} is not a Maildir (no new/ folder)")

    @staticmethod
    def _check(key: str) -> None:
        if "/" in key or ":" in key or key.startswith("."):
            raise ValueError(f"bad Maildir key {key!r}")

    def _target(self, key: str, seen: bool) -> Path:
        return self._cur / f"{key}:2,S" if seen else self._new / key

    def add(self, data: bytes, key: str, seen: bool = False) -> str:
        """Store ``data`` under ``key`` durably, unless the key exists already.

        Returns the key. A message stored as seen goes to ``cur/`` with the
        ``S`` flag, so a mail client shows gm's own archive as read. In a
        batch the file is staged, and durable once the batch is committed."""
        self._check(key)
        if key in self:
            return key
        batch = current_batch()
        if batch is not None:
            batch.stage(self._staged(batch.syncer, data, key, seen))
            return key
        tmp = self._tmp / f"{key}.{os.getpid()}.{HOST}"
        try:
            with open(tmp, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        except BaseException:
            drop_half_written(tmp)
            raise
        target = self._target(key, seen)
        os.replace(tmp, target)
        fsync_dir(target.parent)
        self._published(key)
        return key

    def stage(self, data: bytes, key: str, syncer: Syncer) -> Staged:
        """Write ``data`` for ``key`` where nothing looks, for `publish` to
        rename into ``new/`` (with other files, by a group commit)."""
        self._check(key)
        return self._staged(syncer, data, key, False)

    def _staged(self, syncer: Syncer, data: bytes, key: str, seen: bool) -> Staged:
        """``data`` written into ``tmp/`` under a staging name, to be published as ``key``."""
        folders = self._folders
        tmp = f"{folders['tmp']}/{staging_name(key)}"
        write_staged(syncer, tmp, data, folders["tmp"])
        if seen:
            return Staged(self, key, tmp, f"{folders['cur']}/{key}:2,S", tmp_dir=folders["tmp"],
                          target_dir=folders["cur"])
        return Staged(self, key, tmp, f"{folders['new']}/{key}", tmp_dir=folders["tmp"], target_dir=folders["new"])

    def forget(self) -> None:
        """Forget the keys known in memory: the next look reads the disk."""
        self._known = None

    def _published(self, key: str) -> None:
        if self._known is not None:
            self._known.add(key)

    def _removed(self, key: str) -> None:
        if self._known is not None:
            self._known.discard(key)

    def _find(self, key: str, tried_new: bool = False) -> Path | None:
        """Where ``key``'s file is (``tried_new``: the caller found none in ``new/``)."""
        batch = current_batch()
        if batch is not None:
            if batch.state(self, key) is False:
                return None
            staged = batch.staged_file(self, key)
            if staged is not None:
                return staged
        new = self._new / key
        if not tried_new and new.exists():  # where gm puts what it adds, and looks up most: tried alone first
            return new
        cur = self._cur
        # gm writes only these two names; a mail client that changed a
        # message's flags is caught by the scan below.
        for candidate in (cur / f"{key}:2,S", cur / key):
            if candidate.exists():
                return candidate
        for candidate in cur.glob(f"{glob_escape(key)}:2,*"):
            return candidate
        return None

    def __contains__(self, key: str) -> bool:
        batch = current_batch()
        if batch is not None:
            state = batch.state(self, key)
            if state is not None:
                return state
        if self._known is None:
            self._scan()
        return key in self._known  # type: ignore[operator]

    def _scan(self) -> set[str]:
        names = set()
        for sub in ("new", "cur"):
            for entry in os.scandir(self.path / sub):
                if not entry.name.startswith("."):
                    names.add(entry.name.split(":2,")[0])
        self._known = set(names)
        return names

    def keys(self) -> list[str]:
        names = self._scan()
        batch = current_batch()
        if batch is not None:
            staged, removed = batch.changes(self)
            names = (names | staged) - removed
        return sorted(names)

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self.keys())

    def get_bytes(self, key: str) -> bytes:
        batch = current_batch()
        untouched = batch is None or batch.state(self, key) is None
        if untouched:
            try:  # where gm puts what it adds: opened at once, no look first (`_find` would stat it)
                with open(f"{self._folders['new']}/{key}", "rb") as handle:
                    return handle.read()
            except FileNotFoundError:
                pass
        path = self._find(key, tried_new=untouched)
        if path is None:
            raise KeyError(key)
        return path.read_bytes()

    def file_of(self, key: str) -> Path:
        path = self._find(key)
        if path is None:
            raise KeyError(key)
        return path

    def remove(self, key: str) -> None:
        """Delete a message durably (no error if it is already gone). In a
        batch it is deleted once the batch is durable, not made durable
        itself (see `gm.storage.batches`)."""
        batch = current_batch()
        if batch is not None:
            if batch.state(self, key) is False:
                return
            staged = batch.staged_file(self, key) is not None
            path = None if staged else self._find(key)
            batch.remove(self, key, path, self._folders["tmp"])
            return
        path = self._find(key)
        if path is not None:
            path.unlink(missing_ok=True)
            fsync_dir(path.parent)
        self._removed(key)

    def mailbox(self) -> mailbox.Maildir:
        """The standard library's view of this Maildir, for reading and export."""
        return mailbox.Maildir(self.path, factory=None, create=False)


def glob_escape(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)
