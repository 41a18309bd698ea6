"""Snapshots: each game's state after its last event, kept beside its archive
so that gm starts without replaying every game's history.

A snapshot is a cache, never the truth: the archive is. One is trusted only
when it was written by exactly this gm (`code_fingerprint`: every file of the
installed package), for this game, after the event that is the archive's
last; one written after an earlier event of the same archive is a base that
the later events are replayed onto. Anything else (another version of gm, a
torn or foreign file, an archive that does not hold the event) is ignored,
and the game is rebuilt from its archive and a new snapshot written. So
deleting every snapshot gives back the same games, by replay.

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
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from ...logs import event

if TYPE_CHECKING:
    from .resident import GameSummary

MAGIC = b"gm-snapshot 1\n"
_LENGTH = struct.Struct(">Q")


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """A digest of the Python version and of every file of the installed gm
    package (code, grammars, templates): a snapshot pickled by other code
    may not mean the same state, so only one written by exactly this gm is
    used. (A game registered from outside gm, `gm.kernel.protocol.REGISTRY`,
    is not covered: change its name when its rules change.)"""
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

    fingerprint: str
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


def _frame(data: bytes) -> bytes:
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
        tmp.write_bytes(MAGIC + _frame(head) + _frame(body))
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def remove(root: Path, game_id: str) -> None:
    path_of(root, game_id).unlink(missing_ok=True)


def clear_unfinished(root: Path) -> None:
    """Remove what a process killed while writing a snapshot left behind
    (called at start-up, when no other gm writes here)."""
    folder = root / "snapshots"
    if folder.is_dir():
        for entry in folder.glob(".*.tmp"):
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


def _read_frame(handle: BinaryIO, size: int) -> bytes:
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
    head = _read_frame(handle, size)
    if body:
        data: bytes | None = _read_frame(handle, size)
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


def _open(root: Path, game_id: str, body: bool) -> tuple[Head, Any] | None:
    """Head (and body, if asked) read from one open file: a snapshot renamed
    over this one meanwhile cannot pair one's head with the other's body."""
    path = path_of(root, game_id)
    try:
        with open(path, "rb") as handle:
            try:
                head_data, body_data = _read_file(handle, body)
            except Damaged as damage:
                _report(path, handle, str(damage))
                return None
    except OSError:
        return None
    try:
        head = pickle.loads(head_data)
    except Exception as error:  # its digest matched: bytes gm wrote, of code that no longer reads them
        _report(path, None, f"its head does not unpickle: {type(error).__name__}")
        return None
    if not isinstance(head, Head) or head.fingerprint != code_fingerprint():
        return None  # written by another gm: not damaged, only of no use to this one
    if head.game_id != game_id:
        _report(path, None, f"it is the snapshot of another game ({head.game_id})")
        return None
    try:
        return head, pickle.loads(body_data) if body_data is not None else None
    except Exception as error:  # as for the head
        _report(path, None, f"its body does not unpickle: {type(error).__name__}")
        return None


def read_head(root: Path, game_id: str) -> Head | None:
    """The head of a game's snapshot, or None when there is none that this
    gm wrote for this game (missing, damaged, or from other code)."""
    found = _open(root, game_id, body=False)
    return None if found is None else found[0]


def read(root: Path, game_id: str) -> tuple[Head, Any] | None:
    """A game's snapshot, head and body; None as for `read_head`."""
    return _open(root, game_id, body=True)
