"""The start-up index: what opening each game found on the disk, kept in one
file, so that a start checks each game with three ``stat`` calls instead of
listing its archive and reading its snapshot's head.

Opening a game at start-up (`gm.pbem.state.loading.open_game`) lists its
archive (every message it holds) and reads its snapshot's head: at 10,000
games, tens of thousands of directory reads before the first mail is
handled. What the opening keeps of that is small and changes only when the
game's folders or its snapshot change: the head, which of its last event's
replies the archive holds and which were sent, and the clock's events of the
turn being collected (`Entry`). The index keeps one entry per game, each with the
*stamp* of what it was read from: the inode, modification and change times
of the archive's ``new/`` and ``cur/`` folders (any file added, renamed or
removed there changes them), and the inode, size and modification time of
the snapshot's file (written by a rename, so a new inode; not its change
time, which a hard-linked copy or backup of the file changes). A start uses
an entry only when the stamp is still the same; any other game is opened
from its archive, as without an index. What an entry says of the game rests
on the archive's folders alone (the head it keeps was of the archive's last
event); the snapshot's part of the stamp only keeps the entry as fresh as
the snapshot (one written anew after an upgrade is no longer pending).

A stamp is taken before what it vouches for is read, so a change made while
reading shows as a different stamp next time; and an entry is made only of
folders and files unchanged for `SETTLED_NS` before the stamp, so that a
change within the file system's timestamp granularity after it cannot keep
the same times. The change time cannot be set back by a program (``utime``
changes it), so a folder restored over the old one is no match either.

The index also keeps the spool keys that were archived in some game and
still spooled when it was written (`Index.spooled`): the spool folder is
made durable first, so any other key archived before then is gone from the
spool for good, and a game whose entry is used cannot hold a key archived
later. With them, a start knows every spooled message that was handled
before (`gm.pbem.master.screening`, ``handled-before``) without listing the
archives.

    DATA/snapshots/.index

The file is ``b"gm-index 1\\n"`` and one frame as a snapshot's
(`gm.pbem.state.snapshots`: length, SHA-256 digest, pickle). It is a cache
derived from the archives and snapshots, written without fsync, by the
master alone (in its first idle moment once serving began, so that the
first mail does not wait for it, or at the end of a start where nothing
serves; now and then while serving; and when the daemon stops): one that is missing, torn, of another snapshot shape
(`gm.pbem.state.snapshots.SCHEMA`) later than this gm's, or does not
unpickle is logged once and not used (every game is opened from its
archive, and a new index written); one of an earlier shape is used for the
entries whose heads have today's fields.
An entry's head is read as the snapshot's own would be (`is_current`, or
the summary of another gm's, pending), so an index written by the release
before an upgrade serves the first start after it as well.
"""

from __future__ import annotations

import logging
import os
import pickle
import time
from dataclasses import dataclass, fields
from pathlib import Path

from ...logs import event
from ...storage.syncing import fsync_dir
from . import snapshots

MAGIC = b"gm-index 1\n"
NAME = ".index"
"""In the snapshots' folder, whose leftovers of killed writes start-up clears
(`gm.pbem.state.snapshots.clear_unfinished`); no game id starts with a dot."""
SETTLED_NS = 2_000_000_000
"""How long a game's folders and snapshot must have stayed unchanged before a
stamp is taken for an entry (nanoseconds): more than the coarsest timestamp
granularity of the file systems gm runs on."""

Stamp = tuple[int, ...]


@dataclass(frozen=True)
class Entry:
    """What opening one game read of the disk, and the stamp it holds for."""

    stamp: Stamp | None
    """`stamp` of the game before it was read; None: not to be kept (changed
    too recently, `SETTLED_NS`)."""
    head: snapshots.Head
    """Its snapshot's head, written after the archive's last event."""
    present: frozenset[str]
    """The archive keys of the head's ``last_messages`` that the archive holds."""
    clock: frozenset[str]
    """The clock's spool keys archived for the turn the head's summary is in
    (`gm.pbem.state.loading`, what must never be spooled again)."""
    sent: frozenset[str] | None = None
    """The archive keys of the head's ``last_messages`` whose sent/ marker
    was on the disk: a mail once sent stays so (no marker is ever removed),
    so a start need not look for those again. None in the entries of a gm
    before it (the class's default stands in for the missing field): a
    start looks for every marker, and keeps what it found in the entry."""


@dataclass
class Index:
    """Every game's entry (those known), and the spool keys archived and still spooled."""

    entries: dict[str, Entry]
    spooled: frozenset[str]


def path_of(folder: Path) -> Path:
    """The index in ``folder``: the data directory's own, or the folder of
    master K of several (`gm.pbem.data.store.Part.folder`), each of which
    keeps its own games' entries."""
    return folder / "snapshots" / NAME


def _times(found: os.stat_result) -> tuple[int, int]:
    return found.st_mtime_ns, found.st_ctime_ns


_TIMES = slice(5, None)
"""Where a `Stamp`'s times are: after the device, the three inodes and the snapshot's size."""


def stamp(root: Path, game_id: str) -> Stamp | None:
    """The stamp of a game's archive folders and snapshot now; None when one
    of them is missing."""
    folder = os.path.join(root, "games", game_id)
    try:
        new = os.stat(os.path.join(folder, "new"))
        cur = os.stat(os.path.join(folder, "cur"))
        snapshot = os.stat(os.path.join(root, "snapshots", game_id))
    except OSError:
        return None
    return (new.st_dev, new.st_ino, cur.st_ino, snapshot.st_ino, snapshot.st_size,
            *_times(new), *_times(cur), snapshot.st_mtime_ns)


def settled_stamp(root: Path, game_id: str) -> Stamp | None:
    """`stamp`, when none of its times is within `SETTLED_NS` of now (nor
    after it: a clock set back); else None."""
    now = time.time_ns()
    found = stamp(root, game_id)
    if found is None or any(t > now - SETTLED_NS for t in found[_TIMES]):
        return None
    return found


_reported: set[tuple[int, int, int]] = set()


def _ignored(path: Path, reason: str) -> None:
    try:
        found = path.stat()
        seen = (found.st_ino, found.st_size, found.st_mtime_ns)
    except OSError:
        seen = (0, 0, 0)
    if seen not in _reported:
        _reported.add(seen)
        event("index ignored", logging.WARNING, file=str(path), reason=reason,
              note="every game is opened from its archive")


def read(folder: Path) -> Index | None:
    """The index in ``folder`` (`path_of`), or None when there is none that
    this gm can use (missing, damaged, of another snapshot shape)."""
    path = path_of(folder)
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if handle.read(len(MAGIC)) != MAGIC:
                _ignored(path, "not an index of this format")
                return None
            data = snapshots.read_frame(handle, size)
            if handle.tell() != size:
                raise snapshots.Damaged(f"{size - handle.tell()} bytes after its frame")
    except FileNotFoundError:
        return None
    except OSError as error:
        _ignored(path, f"it cannot be read: {error.strerror or error}")
        return None
    except snapshots.Damaged as damage:
        _ignored(path, str(damage))
        return None
    try:
        shape, entries, spooled = pickle.loads(data)
    except Exception as error:  # its digest matched: bytes gm wrote, of code that no longer reads them
        _ignored(path, f"it does not unpickle: {type(error).__name__}")
        return None
    if (not isinstance(shape, int) or shape > snapshots.SCHEMA or not isinstance(entries, dict)
            or not isinstance(spooled, frozenset)):
        _ignored(path, "written under another snapshot shape")
        return None
    return Index({k: v for k, v in entries.items()
                  if isinstance(v, Entry) and isinstance(v.head, snapshots.Head)
                  and (shape == snapshots.SCHEMA or _whole_head(v.head))}, spooled)


_HEAD_FIELDS = frozenset(found.name for found in fields(snapshots.Head))


def _whole_head(head: snapshots.Head) -> bool:
    """Whether a head pickled under an older snapshot shape has `Head`'s
    fields, no more and no fewer: its summary is then read as an older
    snapshot file's is (`gm.pbem.state.snapshots.head_summary`: filled with
    the defaults of fields added since, or not trusted), so the release
    before an upgrade that changed the summary still opens every game from
    its index."""
    return set(vars(head)) == _HEAD_FIELDS


def write(folder: Path, index: Index, spool: Path) -> None:
    """Write the index atomically (a rename over the old one). The spool's
    folders (``spool``) are made durable first: `Index.spooled` is only
    true while every removal from the spool before it is durable."""
    for sub in ("new", "cur"):
        fsync_dir(spool / sub)
    kept = {k: v for k, v in index.entries.items() if v.stamp is not None}
    data = pickle.dumps((snapshots.SCHEMA, kept, index.spooled), protocol=5)
    target = path_of(folder)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{NAME}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(MAGIC + snapshots.frame(data))
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
