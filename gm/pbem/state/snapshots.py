"""Snapshots: each game's state after its last event, kept beside its archive
so that gm starts without replaying every game's history.

A snapshot is a cache, never the truth: the archive is. One is read as it
is when it was written under this gm's schema numbers (`gm.kernel.schema`:
the shape of `MailGame`, of the game's own state, and of the snapshot's
frame, `SCHEMA`), for this game, after the event that is the archive's last;
one written after an earlier event of the same archive is a base that the
later events are replayed onto. One written under older numbers is read
through its owners' migrations, checked to hold every field its classes
have, and otherwise not read: its game is replayed. Anything else (a newer
gm's, one from before schema numbers, a torn or foreign file, an archive
that does not hold the event) is ignored, and the game is rebuilt from its
archive and a new snapshot written. So deleting every snapshot gives back
the same games, by replay.

The head of a snapshot that is not current still says what gm must know of
its game (`head_summary`): the first start after an upgrade serves every
game at once on it, and loads each game (by migration or replay) when its
mail comes, or in the background, most urgent first
(`gm.pbem.master.keeping`).

    DATA/snapshots/GAME

The file is a short head, read alone at start-up (what gm must know of
every game, `gm.pbem.state.resident.GameSummary`, without loading it), then the
body (the game itself), each checked by its SHA-256 digest:

    b"gm-snapshot 1\\n" LENGTH(8) DIGEST(32) HEAD LENGTH(8) DIGEST(32) BODY

Head and body are pickles. gm reads only snapshots it wrote itself into its
own data directory, which also holds the server key; nothing from outside
is ever unpickled. Snapshots are written without fsync: a snapshot lost or
torn by a power cut fails its digest and is rebuilt from the archive.

Nothing read from the file is trusted before its digest: each LENGTH is
bounded by what the file holds (a flipped bit there must not ask for
2^62 bytes), the two frames must end exactly where the file does, and only
bytes whose digest matches are unpickled. A damaged snapshot (torn, a wrong
length or digest, a foreign game's) is logged once per process, as
``snapshot ignored``, and read as none; the daemon then rebuilds the game
from its archive and writes the snapshot anew.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import struct
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO

from ...kernel import model
from ...kernel.protocol import game_named
from ...kernel.schema import NotMigrated, complete, fill_defaults, migrate
from ...logs import event
from ..archive.replay import Threads
from .resident import GameSummary

MAGIC = b"gm-snapshot 1\n"
_LENGTH = struct.Struct(">Q")

SCHEMA = 4
"""The number of the snapshot's own shape: `Head`, `GameSummary` and
`gm.pbem.archive.replay.Threads`. Bump it when they change. A snapshot
of a number from `BODY_SINCE` on is read as its body's owners' migrations
allow; one under another number is not read, so it needs no migration (its
game is replayed: lazily while its head's summary still has
`GameSummary`'s fields, else at start-up, as one without a snapshot). 2: the summary
says which seats the robot stands in for (`GameSummary.stand_ins`); 3:
which seats the turn waits for corrected orders from
(`GameSummary.correcting`); 4: which of them are reminded
(`GameSummary.correction_awaited`)."""

BODY_SINCE = 1
"""The first snapshot shape whose body this gm reads: from it to `SCHEMA`
only the head's `GameSummary` gained fields, each with a default that is
true of every game written before it (`head_summary` fills them in), while
the body (`MailGame`, `Threads` and the applied Message-IDs) kept its frame.
So an upgrade that only adds to the summary keeps every snapshot's body,
migrated as its kernel and game numbers say, instead of replaying every
game. Raise it to `SCHEMA` when `Threads` or the body's frame changes
(tests/test_schemas.py compares the shapes kept in tests/schemas)."""


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """A digest of the Python version and of every file of the installed gm
    package (code, grammars, templates): which gm this is, exactly
    (`gm.pbem.master.faults` tells mail that failed under other code by it)."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(sys.version.encode() + b"\0")
    for folder, dirs, files in sorted(os.walk(root, followlinks=True)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = Path(folder) / name
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@dataclass
class Head:
    """What a snapshot says of itself and of its game, read without the body."""

    schemas: dict[str, int]
    """The schema numbers it was written under (`schemas_of`)."""
    game_id: str
    last_in: str
    """The archive key of the last inbound event the snapshot includes."""
    number: int
    """That event's sequence number."""
    summary: GameSummary
    """The game's summary after that event."""
    last_messages: list[tuple[str, int]] = field(default_factory=list)
    """The archive key and player of each message that event sent."""


def path_of(root: Path, game_id: str) -> Path:
    """Where a game's snapshot lives in the data directory ``root``."""
    return root / "snapshots" / game_id


def frame(data: bytes) -> bytes:
    """``data`` as one frame of the file: LENGTH, DIGEST, the bytes (the
    start-up index, `gm.pbem.state.index`, is framed alike)."""
    return _LENGTH.pack(len(data)) + hashlib.sha256(data).digest() + data


def write(root: Path, head: Head, body: Any) -> None:
    """Write a game's snapshot atomically (a rename over the old one)."""
    write_pickled(root, head.game_id, pickle.dumps(head, protocol=5), pickle.dumps(body, protocol=5))


def write_pickled(root: Path, game_id: str, head: bytes, body: bytes) -> None:
    """Write a snapshot whose head and body are pickled already."""
    target = path_of(root, game_id)
    target.parent.mkdir(exist_ok=True)
    tmp = target.with_name(f".{game_id}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(MAGIC + frame(head) + frame(body))
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def remove(root: Path, game_id: str) -> None:
    path_of(root, game_id).unlink(missing_ok=True)


def clear_unfinished(root: Path, owns: Callable[[str], bool] | None = None) -> None:
    """Remove what a process killed while writing a snapshot left behind
    (called at start-up, when no other gm writes these games' snapshots);
    ``owns``: of several master processes, only those of its own games."""
    folder = root / "snapshots"
    if folder.is_dir():
        for entry in folder.glob(".*.tmp"):
            if owns is None or owns(entry.name[1:].split(".")[0]):
                entry.unlink(missing_ok=True)


class Damaged(Exception):
    """A snapshot that is not one this gm wrote whole (the reason says how)."""


_reported: set[tuple[str, int, int, int]] = set()
"""The damaged snapshots logged already by this process (path, inode, size,
mtime): each is logged once, however often it is read before it is replaced."""


def _frame_length(handle: BinaryIO, size: int) -> tuple[int, bytes]:
    """A frame's LENGTH and DIGEST, the LENGTH bounded by the bytes left in
    the file (``size`` long)."""
    prefix = handle.read(_LENGTH.size + 32)
    if len(prefix) != _LENGTH.size + 32:
        raise Damaged("torn: it ends inside a frame's length or digest")
    (length,) = _LENGTH.unpack(prefix[:_LENGTH.size])
    if length > size - handle.tell():
        raise Damaged(f"a frame's length ({length} bytes) is past the end of the file ({size} bytes)")
    return length, prefix[_LENGTH.size:]


def read_frame(handle: BinaryIO, size: int) -> bytes:
    """The bytes of the frame at the handle's position, checked against its
    digest (`Damaged` when they do not match, or the frame is torn)."""
    length, digest = _frame_length(handle, size)
    data = handle.read(length)
    if len(data) != length:
        raise Damaged("torn: it ends inside a frame")
    if hashlib.sha256(data).digest() != digest:
        raise Damaged("a frame's digest does not match its bytes")
    return data


def _read_file(handle: BinaryIO, body: bool) -> tuple[bytes, bytes | None]:
    """The head's bytes (and the body's, if asked), each checked against its
    digest; the body's frame is measured even when it is not read, so that
    a file with a damaged length is found at start-up, not when mail comes."""
    size = os.fstat(handle.fileno()).st_size
    if handle.read(len(MAGIC)) != MAGIC:
        raise Damaged("not a snapshot of this format")
    head = read_frame(handle, size)
    if body:
        data: bytes | None = read_frame(handle, size)
    else:
        length, _ = _frame_length(handle, size)
        handle.seek(length, os.SEEK_CUR)
        data = None
    if handle.tell() != size:
        raise Damaged(f"{size - handle.tell()} bytes after its body")
    return head, data


def _report(path: Path, handle: BinaryIO | None, reason: str) -> None:
    try:
        found = os.fstat(handle.fileno()) if handle is not None else path.stat()
        seen = (str(path), found.st_ino, found.st_size, found.st_mtime_ns)
    except OSError:
        seen = (str(path), 0, 0, 0)
    if seen not in _reported:
        _reported.add(seen)
        event("snapshot ignored", logging.WARNING, game=path.name, reason=reason,
              note="the game is rebuilt from its archive")


def schemas_of(game: str) -> dict[str, int]:
    """The schema numbers this gm writes a snapshot of a ``game`` (its
    rules' name) under: the snapshot's own, the kernel's, the game's."""
    return {"snapshot": SCHEMA, "kernel": model.SCHEMA, game: game_named(game).schema}


def _game_of(head: Head) -> str | None:
    names = [name for name in head.schemas if name not in ("snapshot", "kernel")]
    return names[0] if len(names) == 1 else None


def is_current(head: Head) -> bool:
    """Whether a snapshot was written under this gm's schema numbers (its
    body is read as it is)."""
    game = _game_of(head)
    try:
        return game is not None and head.schemas == schemas_of(game)
    except ValueError:  # a game this gm does not have
        return False


def head_summary(head: Head) -> GameSummary | None:
    """What the head says of its game, whatever its schema numbers, when it
    has `GameSummary`'s fields: true of the game after ``last_in`` as the gm
    that wrote it saw it (until the game is loaded, a provisional summary).
    A summary that lacks only fields added since with a default (the
    release before `GameSummary.stand_ins`) is given them. None when the
    head's summary is of another shape."""
    summary = head.summary
    if not isinstance(summary, GameSummary):
        return None
    try:
        fill_defaults(summary)
    except NotMigrated:
        return None
    return summary if complete(summary) else None


def _open(root: Path, game_id: str, body: bool) -> tuple[Head, bytes | None] | None:
    """Head (and the body's bytes, checked, if asked) read from one open
    file: a snapshot renamed over this one meanwhile cannot pair one's head
    with the other's body. A head from before schema numbers is given none
    (``schemas`` empty: never current, never migrated)."""
    path = path_of(root, game_id)
    try:
        with open(path, "rb") as handle:
            try:
                head_data, body_data = _read_file(handle, body)
            except Damaged as damage:
                _report(path, handle, str(damage))
                return None
    except FileNotFoundError:
        return None
    except OSError as error:  # a directory in its place, an unreadable file: read as none, never fatal
        _report(path, None, f"it cannot be read: {error.strerror or error}")
        return None
    try:
        head = pickle.loads(head_data)
    except Exception as error:  # its digest matched: bytes gm wrote, of code that no longer reads them
        _report(path, None, f"its head does not unpickle: {type(error).__name__}")
        return None
    if not isinstance(head, Head):
        return None  # not damaged, only of no use to this gm
    if not isinstance(getattr(head, "schemas", None), dict):
        head.schemas = {}
    if head.game_id != game_id:
        _report(path, None, f"it is the snapshot of another game ({head.game_id})")
        return None
    return head, body_data


def read_head(root: Path, game_id: str) -> Head | None:
    """The head of a game's snapshot, or None when there is none that gm
    wrote for this game (missing, damaged); it may be of other schema
    numbers than this gm's (`is_current`)."""
    found = _open(root, game_id, body=False)
    return None if found is None else found[0]


def read(root: Path, game_id: str) -> tuple[Head, Any] | None:
    """A game's snapshot, head and body (the body read through the
    migrations where it was written under older schema numbers, which the
    head still says: `is_current` tells a snapshot to write anew); None as
    for `read_head`, or when the body cannot be brought to this gm's schema
    numbers (its game is then replayed)."""
    found = _open(root, game_id, body=True)
    if found is None:
        return None
    head, data = found
    assert data is not None
    if is_current(head):
        try:
            return head, pickle.loads(data)
        except Exception as error:  # its digest matched: bytes gm wrote, of code that no longer reads them
            _report(path_of(root, game_id), None, f"its body does not unpickle: {type(error).__name__}")
            return None
    game = _game_of(head)
    if game is None or not BODY_SINCE <= head.schemas.get("snapshot", 0) <= SCHEMA:
        _not_read(game_id, "written before schema numbers, or under a snapshot shape of another body")
        return None
    try:
        want = schemas_of(game)
    except ValueError:
        _not_read(game_id, f"a game this gm does not have ({game})")
        return None
    for owner in ("kernel", game):
        have = head.schemas.get(owner, 0)
        if have > want[owner] or (have < want[owner] and not _migratable(owner, game, have, want[owner])):
            _not_read(game_id, f"{owner} schema {have}: no migration to {want[owner]}")
            return None
    return _migrated(game_id, head, data, want)


def _migratable(owner: str, game: str, have: int, want: int) -> bool:
    steps = model.MIGRATIONS if owner == "kernel" else game_named(game).migrations
    return all(callable(steps.get(number)) for number in range(have, want))


def _migrated(game_id: str, head: Head, data: bytes, want: dict[str, int]) -> tuple[Head, Any] | None:
    """The body of a snapshot of older schema numbers, brought to ``want``
    and checked to hold every field its classes have, and no other."""
    rules = game_named(_game_of(head) or "")
    try:
        game, threads, applied = pickle.loads(data)
        game = migrate(game, head.schemas.get("kernel", 0), want["kernel"], model.MIGRATIONS)
        game.play = migrate(game.play, head.schemas[rules.name], want[rules.name], rules.migrations)
    except Exception as error:  # a cache: anything doubtful is replayed, never trusted, never fatal
        _not_read(game_id, f"its migration failed: {type(error).__name__}: {error}")
        return None
    if not isinstance(game, model.MailGame) or not isinstance(threads, Threads) or not complete(game):
        _not_read(game_id, "its migrated state lacks fields, or has fields its classes do not")
        return None
    event("snapshot migrated", logging.DEBUG, game=game_id,
          schemas=" ".join(f"{k} {head.schemas.get(k, 0)}->{v}" for k, v in want.items()))
    return head, (game, threads, applied)


def _not_read(game_id: str, reason: str) -> None:
    event("snapshot not read", logging.DEBUG, game=game_id, reason=reason, note="the game is replayed")
